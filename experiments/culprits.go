package experiments

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// Verifier returns the experiment that re-derives the hands-on page's claims and searches for the
// smallest failing case of each: the verify page's block and "site verify" both run it.
func Verifier() *Experiment {
	e, _ := Lookup("claims")
	return e
}

// culprits sets, for an experiment that shrinks, the run that tells the stories of a failing
// case's culprits (see CulpritRun).
func (d *definition[P, R]) culprits(f func(Shrunk) (string, url.Values, bool)) *definition[P, R] {
	d.e.culprits = f
	return d
}

// CulpritRun is the run that tells the culprits' stories for the claim of s, at s.Params, as the
// experiment's name and the query its jobs routes take (its parameters, the point and, where its
// counts at a point are several policies, the one whose story is told). ok is false where no
// such run exists (a claim no experiment's timeline shows, or an experiment that shrinks
// nothing). The links a case shows and the timeline it draws are both made from it.
func (e *Experiment) CulpritRun(s Shrunk) (experiment string, q url.Values, ok bool) {
	if e.culprits == nil {
		return "", nil, false
	}
	return e.culprits(s)
}

// CaseQuery is the query of a permalink to the failing case s on the verifier's page: the job
// count always, since it is what shrinking changes, then every other parameter that differs from
// the document's, in the form's order. It is "" for an experiment whose parameters s's are not.
func (e *Experiment) CaseQuery(s Shrunk) string {
	if reflect.TypeOf(s.Params) != e.paramsType {
		return ""
	}
	vals, defs := e.Format(s.Params), e.Format(e.Defaults())
	var parts []string
	for _, f := range e.Fields {
		if f.Name == "jobs" || vals[f.Name] != defs[f.Name] {
			parts = append(parts, f.Name+"="+url.QueryEscape(vals[f.Name]))
		}
	}
	return strings.Join(parts, "&")
}

// claimsCulpritRun is the verifier's CulpritRun: the lease experiment at the claim's timeout for
// the B6 claims, the window experiment at the claim's window for the B4 ones, none for the others
// (nor for a window of 0 ids, which the window experiment does not take).
func claimsCulpritRun(s Shrunk) (string, url.Values, bool) {
	p := s.Params
	switch s.Kind {
	case ClaimShortTimeoutDoubles:
		return "lease", culpritLeaseQuery(p, claimTimeouts[0]), true
	case ClaimLongTimeoutReachesZero:
		point := claimTimeouts[2]
		if s.Mode == FailNonePast60 {
			point = claimTimeouts[1]
		}
		return "lease", culpritLeaseQuery(p, point), true
	case ClaimSmallWindowLeaks:
		return culpritWindowQuery(p, p.MaxDelay/2)
	case ClaimFullWindowLeaksNone:
		return culpritWindowQuery(p, p.MaxDelay)
	}
	return "", nil, false
}

// culpritLeaseQuery is the lease experiment on the verifier's duration draw: its job count, its
// seed and the timeouts the claims check, with point the timeout the claim reads.
func culpritLeaseQuery(p ClaimsParams, point float64) url.Values {
	timeouts := make([]string, len(claimTimeouts))
	for i, t := range claimTimeouts {
		timeouts[i] = FormatFloat(t)
	}
	q := url.Values{}
	q.Set("jobs", strconv.FormatInt(p.Jobs, 10))
	q.Set("seed", strconv.FormatInt(p.LeaseSeed, 10))
	q.Set("timeouts", strings.Join(timeouts, ","))
	q.Set("point", FormatFloat(point))
	// The verifier's lease is never renewed: the timeline tells that policy's story.
	q.Set("outcome", "no_renewal")
	return q
}

// culpritWindowQuery is the window experiment on the verifier's stream and delays, with the one
// window the claim checks as both the sweep and its point.
func culpritWindowQuery(p ClaimsParams, window int64) (string, url.Values, bool) {
	if window < 1 {
		return "", nil, false
	}
	w := strconv.FormatInt(window, 10)
	q := url.Values{}
	q.Set("jobs", strconv.FormatInt(p.Jobs, 10))
	q.Set("crash_rate", strconv.FormatFloat(p.CrashRate, 'g', -1, 64))
	q.Set("seed", strconv.FormatInt(p.Seed, 10))
	q.Set("max_delay", strconv.FormatInt(p.MaxDelay, 10))
	q.Set("delay_seed", strconv.FormatInt(p.DelaySeed, 10))
	q.Set("windows", w)
	q.Set("point", w)
	return "window", q, true
}
