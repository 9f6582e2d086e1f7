package site

import (
	"context"
	"fmt"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
)

// admitRun charges one run of e on p to the client of ctx (see runs.Admission).
func (s *server) admitRun(ctx context.Context, e *experiments.Experiment, p any) error {
	return s.admit.Run(web.ClientOf(ctx), e, p)
}

// admitSpread charges a spread of n seeds of e on p to the client of ctx.
func (s *server) admitSpread(ctx context.Context, e *experiments.Experiment, p any, n int) error {
	_, cached := s.spreads.cached(spreadKey(e, p, n))
	return s.admit.Spread(web.ClientOf(ctx), e, p, n, cached)
}

// waitText tells a reader when to run again.
func waitText(d time.Duration) string {
	return fmt.Sprintf("Wait %d s, then press Run again.", web.RetrySeconds(d))
}
