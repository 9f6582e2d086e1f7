package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
)

// admitRun charges one run of e on p to the client of ctx. A result already cached (the document's
// defaults are, from start-up) costs the server nothing and is never refused; a refusal is a 429
// that says when the client's next run will be allowed.
func (s *server) admitRun(ctx context.Context, e *experiments.Experiment, p any) error {
	if s.runner.Cached(e, p) {
		return nil
	}
	ok, wait := s.limiter.Allow(web.ClientOf(ctx))
	if ok {
		return nil
	}
	s.metrics.Rejected.WithLabelValues("rate_limited").Inc()
	return &web.Error{Status: http.StatusTooManyRequests, RetryAfter: wait,
		Msg: "Too many runs from your network address in a short time (a class behind one address shares the allowance)."}
}

// admitSpread charges a spread of n seeds of e on p to the client of ctx, after admitRun has
// charged the form's own run: spreadCharge(n) runs' worth, so that spread=200 on the API is not
// one run's worth of the allowance, yet any spread fits a fresh client's bucket with its run. A
// summary already cached costs nothing. A refusal gives back the run's token too, since the client
// will ask for both again, and so its Retry-After is the time until both fit.
func (s *server) admitSpread(ctx context.Context, e *experiments.Experiment, p any, n int) error {
	if _, ok := s.spreads.cached(spreadKey(e, p, n)); ok {
		return nil
	}
	charge := s.limiter.SpreadCharge(n)
	if charge == 0 {
		return nil
	}
	key := web.ClientOf(ctx)
	ok, wait := s.limiter.AllowN(key, charge)
	if ok {
		return nil
	}
	if !s.runner.Cached(e, p) { // admitRun charged it a moment ago
		s.limiter.Refund(key, 1)
	}
	s.metrics.Rejected.WithLabelValues("rate_limited").Inc()
	return &web.Error{Status: http.StatusTooManyRequests, RetryAfter: wait,
		Msg: fmt.Sprintf("A spread over %d seeds costs %d runs, more than your network address has left in its allowance just now.", n, charge)}
}

// waitText tells a reader when to run again.
func waitText(d time.Duration) string {
	return fmt.Sprintf("Wait %d s, then press Run again.", web.RetrySeconds(d))
}
