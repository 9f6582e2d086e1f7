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
	return h.admit.Spread(web.ClientOf(ctx), e, p, n, cached)
}

// waitText tells a reader when to run again.
func waitText(d time.Duration) string {
	return fmt.Sprintf("Wait %d s, then press Run again.", web.RetrySeconds(d))
}
