package notebook

import (
	"context"
	"fmt"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
)

// admitRun charges one run of e on p to the client of ctx (see runs.Admission).
func (h *Handlers) admitRun(ctx context.Context, e *experiments.Experiment, p any) error {
	return h.admit.Run(web.ClientOf(ctx), e, p)
}

// admitSpread charges a spread of n seeds of e on p to the client of ctx.
func (h *Handlers) admitSpread(ctx context.Context, e *experiments.Experiment, p any, n int) error {
	_, cached := h.spreads.cached(spreadKey(e, p, n))
	return h.admit.Spread(web.ClientOf(ctx), e, p, n, h.spreadCharge(n), cached)
}

// spreadCharge is what a spread of n seeds takes from a client's allowance: n runs, but never more
// than half the burst. A spread is asked for together with the form's own run, and the two must
// fit in one full bucket together, or a spread as large as the burst could never run at all (the
// run takes its token, then the spread finds one too few, again and again). With a burst under
// two, the run's own token is the whole allowance, and a spread adds nothing to it.
func (h *Handlers) spreadCharge(n int) int { return min(n, h.admit.Rate.Burst()/2) }

// waitText tells a reader when to run again.
func waitText(d time.Duration) string {
	return fmt.Sprintf("Wait %d s, then press Run again.", web.RetrySeconds(d))
}
