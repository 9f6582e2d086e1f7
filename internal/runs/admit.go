package runs

import (
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/experiments"
)

// Rate is the allowance of runs per client address (the web layer's rate limiter).
type Rate interface {
	Allow(client netip.Addr) (bool, time.Duration)
	AllowN(client netip.Addr, n int) (bool, time.Duration)
	Refund(client netip.Addr, n int)
	// Burst is the most runs' worth a client's allowance holds at once.
	Burst() int
}

// Admission charges readers' runs to their client address before they reach the Runner: a result
// already cached costs the server nothing and is never refused; a refusal is a 429 that says
// when the client's next run will be allowed.
type Admission struct {
	Runner   *Runner
	Rate     Rate
	Rejected *prometheus.CounterVec // by reason; counts "rate_limited"
}

// Run charges one run of e on p to client.
func (a *Admission) Run(client netip.Addr, e *experiments.Experiment, p any) error {
	if a.Runner.Cached(e, p) {
		return nil
	}
	return a.Work(client)
}

// Work charges one run's worth of work that is not an experiment's (a workbench check) to client.
func (a *Admission) Work(client netip.Addr) error {
	if ok, wait := a.Rate.Allow(client); !ok {
		return a.refuse(wait, "Too many runs from your network address in a short time (a class behind one address shares the allowance).")
	}
	return nil
}

// Spread charges a spread of n seeds of e on p to client, after Run has charged the form's own
// run: charge runs' worth, the spread's price, which its caller sets (so that spread=200 on the API
// is not one run's worth of the allowance, yet any spread fits a fresh client's bucket with its
// run). cached says the summary is already kept, which costs nothing. A refusal gives back the
// run's token too, since the client will ask for both again, and so its Retry-After is the time
// until both fit.
func (a *Admission) Spread(client netip.Addr, e *experiments.Experiment, p any, n, charge int, cached bool) error {
	if cached || charge == 0 {
		return nil
	}
	ok, wait := a.Rate.AllowN(client, charge)
	if ok {
		return nil
	}
	if !a.Runner.Cached(e, p) { // Run charged it a moment ago
		a.Rate.Refund(client, 1)
	}
	return a.refuse(wait, fmt.Sprintf("A spread over %d seeds costs %d runs, more than your network address has left in its allowance just now.", n, charge))
}

func (a *Admission) refuse(wait time.Duration, msg string) error {
	if a.Rejected != nil {
		a.Rejected.WithLabelValues("rate_limited").Inc()
	}
	return &Error{Code: http.StatusTooManyRequests, Wait: wait, Msg: msg}
}
