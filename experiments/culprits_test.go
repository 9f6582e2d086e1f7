package experiments

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestCaseQueryRoundTrips: a failing case's permalink query reads back as the case's parameters,
// starts with the job count, and carries nothing else at the document's values.
func TestCaseQueryRoundTrips(t *testing.T) {
	e := Verifier()
	def := DefaultClaimsParams()
	odd := def
	odd.Jobs, odd.CrashRate, odd.LeaseSeed = 7, 0, 5
	for _, p := range []ClaimsParams{def, odd} {
		q := e.CaseQuery(Shrunk{Params: p})
		if !strings.HasPrefix(q, "jobs=") {
			t.Errorf("%s does not start with the job count", q)
		}
		vals, err := url.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Parse(vals)
		if err != nil {
			t.Fatal(err)
		}
		if got != p {
			t.Errorf("%s reads back as %+v, not %+v", q, got, p)
		}
		if p == def && q != "jobs=20000" {
			t.Errorf("defaults carry more than the job count: %s", q)
		}
	}
	if window, _ := Lookup("window"); window.CaseQuery(Shrunk{Params: def}) != "" {
		t.Error("an experiment that is not the verifier wrote a case query")
	}
}

// TestCulpritRunsAreRuns: the run a failing case's culprits are traced in is one its experiment
// takes: the parameters parse, the point is one of the run's points and the outcome one of its
// outcomes, so the links the verify page and "site verify" print open a timeline, not an error.
func TestCulpritRunsAreRuns(t *testing.T) {
	p := DefaultClaimsParams()
	p.Jobs, p.CrashRate = 123, 0.5
	for _, tt := range []struct {
		kind ClaimKind
		mode FailMode
	}{
		{ClaimShortTimeoutDoubles, FailTooFewSlow}, {ClaimLongTimeoutReachesZero, FailOutlived300},
		{ClaimLongTimeoutReachesZero, FailNonePast60}, {ClaimSmallWindowLeaks, FailAllCaught}, {ClaimFullWindowLeaksNone, FailEscaped},
	} {
		name, q, ok := Verifier().CulpritRun(Shrunk{Kind: tt.kind, Mode: tt.mode, Params: p})
		if !ok {
			t.Errorf("%s: no culprit run", tt.kind)
			continue
		}
		e, found := Lookup(name)
		if !found {
			t.Errorf("%s: culprits traced in %q, no experiment of the catalog", tt.kind, name)
			continue
		}
		vals := url.Values{}
		for k, v := range q {
			if k != "point" && k != "outcome" {
				vals[k] = v
			}
		}
		params, err := e.Parse(vals)
		if err != nil {
			t.Errorf("%s: %s refuses %v: %v", tt.kind, name, vals, err)
			continue
		}
		if !slices.Contains(e.Points(params), q.Get("point")) {
			t.Errorf("%s: point %q is not one of %s's %v", tt.kind, q.Get("point"), name, e.Points(params))
		}
		if o := q.Get("outcome"); o != "" && !slices.Contains(e.Outcomes(), o) {
			t.Errorf("%s: outcome %q is not one of %s's %v", tt.kind, o, name, e.Outcomes())
		}
		if _, err := e.Trace(context.Background(), params, q.Get("point"), "0", q.Get("outcome")); err != nil {
			t.Errorf("%s: job 0 of the culprit run does not trace: %v", tt.kind, err)
		}
	}
	if _, _, ok := Verifier().CulpritRun(Shrunk{Kind: ClaimAckBeforeLoses, Params: p}); ok {
		t.Error("a claim no timeline shows has a culprit run")
	}
	window, _ := Lookup("window")
	if _, _, ok := window.CulpritRun(Shrunk{Kind: ClaimSmallWindowLeaks, Params: p}); ok {
		t.Error("an experiment that shrinks nothing named a culprit run")
	}
}
