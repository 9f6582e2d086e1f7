package pages

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestJobTimelineURL checks the timeline links against the route that serves them:
// "GET /jobs/{experiment}/{id}" with that experiment's own parameters, the point and, for the
// lease, the policy whose story is told.
func TestJobTimelineURL(t *testing.T) {
	site := Site{Base: "/base/"}
	p := experiments.DefaultClaimsParams()
	p.Jobs, p.CrashRate = 123, 0.5
	tests := []struct {
		kind       experiments.ClaimKind
		mode       experiments.FailMode
		maxDelay   int64
		experiment string
		want       url.Values
	}{
		{experiments.ClaimLongTimeoutReachesZero, experiments.FailOutlived300, 2000, "lease",
			url.Values{"jobs": {"123"}, "seed": {"31"}, "timeouts": {"5,60,300"}, "point": {"300"}, "outcome": {"no_renewal"}}},
		{experiments.ClaimShortTimeoutDoubles, experiments.FailTooFewSlow, 2000, "lease",
			url.Values{"jobs": {"123"}, "seed": {"31"}, "timeouts": {"5,60,300"}, "point": {"5"}, "outcome": {"no_renewal"}}},
		{experiments.ClaimSmallWindowLeaks, experiments.FailAllCaught, 2000, "window",
			url.Values{"jobs": {"123"}, "crash_rate": {"0.5"}, "seed": {"13"}, "max_delay": {"2000"}, "delay_seed": {"17"}, "windows": {"1000"}, "point": {"1000"}}},
		{experiments.ClaimFullWindowLeaksNone, experiments.FailEscaped, 2000, "window",
			url.Values{"jobs": {"123"}, "crash_rate": {"0.5"}, "seed": {"13"}, "max_delay": {"2000"}, "delay_seed": {"17"}, "windows": {"2000"}, "point": {"2000"}}},
		{experiments.ClaimSmallWindowLeaks, experiments.FailAllCaught, 1, "", nil}, // a window of 0 ids
		{experiments.ClaimAckBeforeLoses, experiments.FailBroken, 2000, "", nil},
	}
	for _, tt := range tests {
		q := p
		q.MaxDelay = tt.maxDelay
		got := JobTimelineURL(site, experiments.Verifier(), experiments.Shrunk{Kind: tt.kind, Mode: tt.mode, Params: q}, 42)
		if tt.experiment == "" {
			if got != "" {
				t.Errorf("%s: %q, want no link", tt.kind, got)
			}
			continue
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatal(err)
		}
		if u.Path != "/base/jobs/"+tt.experiment+"/42" || u.Query().Encode() != tt.want.Encode() {
			t.Errorf("%s: %s", tt.kind, got)
		}
		// The parameters, less the point and the outcome the jobs route adds, are ones the
		// experiment itself accepts.
		e, _ := experiments.Lookup(tt.experiment)
		vals := u.Query()
		vals.Del("point")
		vals.Del("outcome")
		if _, err := e.Parse(vals); err != nil {
			t.Errorf("%s: %s refuses %v: %v", tt.kind, tt.experiment, vals, err)
		}
	}
}

// TestShrinkCasesRender renders a real shrunk case and one cut short with many culprits.
func TestShrinkCasesRender(t *testing.T) {
	p := experiments.DefaultClaimsParams()
	p.CrashRate = 0
	s, err := experiments.ShrinkClaim(context.Background(), p, experiments.ClaimSmallWindowLeaks, experiments.ShrinkBudget)
	if err != nil {
		t.Fatal(err)
	}
	many := experiments.Shrunk{Kind: experiments.ClaimShortTimeoutDoubles, Failed: true, StoppedEarly: true,
		From: p, Params: p, Claim: experiments.Claim{ID: "B6", Text: "short"}, Tried: 3}
	for i := range int64(14) {
		many.Culprits = append(many.Culprits, 100+i)
	}
	held := experiments.Shrunk{Kind: experiments.ClaimHeartbeatDecouples}
	views := NewShrinkViews(Site{}, experiments.Verifier(), "/verify", "exp-claims", []experiments.Shrunk{s, held, many}, nil)
	if len(views) != 2 {
		t.Fatalf("%d cases, want the 2 that failed", len(views))
	}
	var b strings.Builder
	if err := ShrinkCases(views, false).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`href="/verify?` + strings.ReplaceAll(experiments.Verifier().CaseQuery(s), "&", "&amp;") + `#exp-claims"`,
		s.Claim.Detail, ">109<", "and 4 more", "this is the smallest found so far",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered cases lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, ">110<") || strings.Count(out, "smallest found so far") != 1 {
		t.Errorf("more than ten ids, or the early stop on the wrong case:\n%s", out)
	}
}
