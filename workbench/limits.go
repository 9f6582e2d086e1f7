package workbench

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

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
	case strings.Contains(ce.Msg, "cancelled"):
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &CodeError{Line: ce.Line, Col: ce.Col, Msg: "the check ran past its deadline while the handler was here"}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	case strings.Contains(ce.Msg, "excessive repeat"), strings.Contains(ce.Msg, "too large"):
		return &CodeError{Line: ce.Line, Col: ce.Col, Msg: ce.Msg + ": a value may hold at most about a billion bytes or items, a check's limit"}
	}
	return ce
}
