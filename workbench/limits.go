package workbench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// deadlineKey holds, in a check's context, how long the check may run, so that running out of
// time can say how long that was.
type deadlineKey struct{}

func withDeadline(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, deadlineKey{}, d)
}

// maxPrints bounds how many times a check's handler may print. Past the first 16 KB nothing
// printed is kept, yet each print still costs a call: a handler printing in a tight loop would
// otherwise run to the deadline. A print per delivery at the largest default stream is about
// 225,000 (20,000 jobs, a few redeliveries, every crash point).
const maxPrints = 1_000_000

// printFlood is the reason a check's thread is cancelled with when its handler prints too often.
const printFlood = "printed past the limit"

// limitError says which limit stopped a check, at the line the handler was on when it did.
func limitError(ctx context.Context, err error) error {
	var ce *CodeError
	if !errors.As(err, &ce) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	switch {
	case strings.Contains(ce.Msg, "too many steps"):
		return &CodeError{Line: ce.Line, Col: ce.Col, Msg: fmt.Sprintf(
			"the handler ran more than %s Starlark steps in all, this check's limit: does a loop here run too long?", thousands(maxSteps))}
	case strings.Contains(ce.Msg, printFlood):
		return &CodeError{Line: ce.Line, Col: ce.Col, Msg: fmt.Sprintf(
			"the handler printed more than %s times in all, this check's limit (it keeps the first %s bytes of output): does a print here run in a loop?",
			thousands(maxPrints), thousands(maxOutput))}
	case strings.Contains(ce.Msg, "cancelled"):
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			msg := "the check ran past its deadline while the handler was here"
			if d, ok := ctx.Value(deadlineKey{}).(time.Duration); ok {
				msg = fmt.Sprintf("the check ran past its deadline of %s while the handler was here: does a loop here run too long?", d)
			}
			return &CodeError{Line: ce.Line, Col: ce.Col, Msg: msg}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	case strings.Contains(ce.Msg, "excessive repeat"), strings.Contains(ce.Msg, "too large"):
		return &CodeError{Line: ce.Line, Col: ce.Col, Msg: ce.Msg + ": a value may hold at most about a billion bytes or items, a check's limit"}
	}
	return ce
}
