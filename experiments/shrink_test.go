package experiments

import (
	"context"
	"slices"
	"testing"
	"time"
)

// durationsOf draws the verifier's job durations again, written apart from slowJobs so that the
// culprits it names are checked by code that did not name them.
func durationsOf(jobs, seed int64) []float64 {
	rng := newPyRandom(seed)
	out := make([]float64, jobs)
	for i := range out {
		mean := 40.0
		if rng.random() > 0.05 {
			mean = 2.0
		}
		out[i] = rng.expovariate(1 / mean)
	}
	return out
}

// crashesOf lists the crashed jobs of a stream, drawn again for the same reason.
func crashesOf(jobs int64, rate float64, seed int64) []int64 {
	rng := newPyRandom(seed)
	var out []int64
	for i := range jobs {
		if rng.random() < rate {
			out = append(out, i)
		}
	}
	return out
}

// failingWith returns the first of the candidates on which claim kind fails in mode, so a test
// states the kind of failure it wants rather than a seed someone once found by hand.
func failingWith(t *testing.T, kind ClaimKind, mode FailMode, candidates []ClaimsParams) ClaimsParams {
	t.Helper()
	for _, p := range candidates {
		c, err := claimAt(context.Background(), p, kind)
		if err != nil {
			t.Fatal(err)
		}
		if failModeOf(c) == mode {
			return p
		}
	}
	t.Fatalf("no candidate fails %s as %s", kind, mode)
	return ClaimsParams{}
}

func TestShrinkClaim(t *testing.T) {
	def := DefaultClaimsParams()
	with := func(f func(p *ClaimsParams)) ClaimsParams {
		p := def
		f(&p)
		return p
	}
	// A short stream on other duration seeds: some seed gives no more than one slow job in twenty.
	var fewSlow []ClaimsParams
	for seed := range int64(200) {
		fewSlow = append(fewSlow, with(func(p *ClaimsParams) { p.Jobs, p.LeaseSeed = 60, seed }))
	}
	tests := []struct {
		name       string
		kind       ClaimKind
		mode       FailMode
		candidates []ClaimsParams
	}{
		{"no crashes, no leak", ClaimSmallWindowLeaks, FailNoCrash, []ClaimsParams{with(func(p *ClaimsParams) { p.CrashRate = 0 })}},
		{"window longer than the stream", ClaimSmallWindowLeaks, FailAllCaught, []ClaimsParams{with(func(p *ClaimsParams) { p.Jobs = 300 })}},
		{"a job past 300 s", ClaimLongTimeoutReachesZero, FailOutlived300, []ClaimsParams{with(func(p *ClaimsParams) { p.Jobs = 2_000_000 })}},
		{"no job past 60 s", ClaimLongTimeoutReachesZero, FailNonePast60, []ClaimsParams{with(func(p *ClaimsParams) { p.Jobs = 40 })}},
		{"too few slow jobs", ClaimShortTimeoutDoubles, FailTooFewSlow, fewSlow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := failingWith(t, tt.kind, tt.mode, tt.candidates)
			s, err := ShrinkClaim(context.Background(), p, tt.kind, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Failed || s.StoppedEarly || s.Mode != tt.mode || s.From != p {
				t.Fatalf("failed %v, stopped %v, mode %q, from %+v", s.Failed, s.StoppedEarly, s.Mode, s.From)
			}
			if s.Params.Jobs < 1 || s.Params.Jobs > p.Jobs {
				t.Errorf("shrunk to %d jobs from %d", s.Params.Jobs, p.Jobs)
			}
			if q := s.Params; with(func(o *ClaimsParams) { *o = q; o.Jobs = p.Jobs }) != p {
				t.Errorf("shrinking changed more than the job count: %+v from %+v", q, p)
			}
			// Still failing, the same way, measured afresh, and the claim reported is that one.
			again, err := claimAt(context.Background(), s.Params, tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			if failModeOf(again) != tt.mode || again != s.Claim {
				t.Errorf("at %+v the claim is %+v, reported %+v", s.Params, again, s.Claim)
			}
			// Minimal: one job fewer does not fail this way (or is no stream).
			if s.Params.Jobs > 1 {
				fewer := s.Params
				fewer.Jobs--
				c, err := claimAt(context.Background(), fewer, tt.kind)
				if err != nil {
					t.Fatal(err)
				}
				if failModeOf(c) == tt.mode {
					t.Errorf("%d jobs fail as %s too", fewer.Jobs, tt.mode)
				}
			}
			if s.Tried < 1 || (s.Fate == "" && s.Story == "") {
				t.Errorf("tried %d, fate %q, story %q", s.Tried, s.Fate, s.Story)
			}
			checkCulprits(t, s)
		})
	}
}

// checkCulprits checks the culprits against the stream drawn again: each named job really did what
// the mode says, and none that did is missing.
func checkCulprits(t *testing.T, s Shrunk) {
	t.Helper()
	p := s.Params
	if !slices.IsSorted(s.Culprits) {
		t.Errorf("culprits not in order: %v", s.Culprits)
	}
	var want []int64
	switch s.Mode {
	case FailOutlived300, FailTooFewSlow:
		over := 300.0
		if s.Mode == FailTooFewSlow {
			over = 5
		}
		for i, d := range durationsOf(p.Jobs, p.LeaseSeed) {
			if d > over {
				want = append(want, int64(i))
			}
		}
		if s.Mode == FailTooFewSlow && int64(len(want))*20 > p.Jobs {
			t.Errorf("%d of %d outlived 5 s: not too few", len(want), p.Jobs)
		}
	case FailAllCaught:
		want = crashesOf(p.Jobs, p.CrashRate, p.Seed)
		if len(want) == 0 {
			t.Error("all caught, but nothing crashed")
		}
	case FailNoCrash:
		if c := crashesOf(p.Jobs, p.CrashRate, p.Seed); len(c) > 0 {
			t.Errorf("no crash, but %v crashed", c)
		}
	}
	if !slices.Equal(s.Culprits, want) {
		t.Errorf("culprits %v, want %v", s.Culprits, want)
	}
	switch {
	case s.Mode.Absence() && s.Key != -1:
		t.Errorf("a failure by absence blames job %d", s.Key)
	case s.Mode == FailOutlived300:
		// The shortest stream ends on the job that broke the claim.
		if s.Key != p.Jobs-1 || !slices.Contains(s.Culprits, s.Key) || s.Story == "" {
			t.Errorf("key %d of %d jobs, culprits %v, story %q", s.Key, p.Jobs, s.Culprits, s.Story)
		}
	}
}

func TestShrinkHolds(t *testing.T) {
	p := DefaultClaimsParams()
	s, err := ShrinkClaim(context.Background(), p, ClaimSmallWindowLeaks, ShrinkBudget)
	if err != nil {
		t.Fatal(err)
	}
	if s.Failed || s.Params != p || s.Tried != 1 || len(s.Culprits) != 0 || !s.Claim.Holds {
		t.Errorf("a claim that holds was shrunk: %+v", s)
	}
	if _, err := ShrinkClaim(context.Background(), p, ClaimKind(0), ShrinkBudget); err == nil {
		t.Error("no error for a kind that is no claim")
	}
}

// TestShrinkStopsEarly cuts the search short by ctx and by budget: it must say so and still hand
// back a failing case, the best so far.
func TestShrinkStopsEarly(t *testing.T) {
	p := DefaultClaimsParams()
	p.Jobs = 2_000_000
	c, err := claimAt(context.Background(), p, ClaimLongTimeoutReachesZero)
	if err != nil {
		t.Fatal(err)
	}
	if c.Holds {
		t.Fatal("the claim holds; the test needs a failing one")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := ShrinkFrom(ctx, p, c, ShrinkBudget)
	// Only the caller's own run at p was measured: the search itself tried nothing.
	if !s.StoppedEarly || s.Params != p || s.Claim != c || s.Tried != 1 {
		t.Errorf("cancelled: stopped %v, params %+v, tried %d", s.StoppedEarly, s.Params, s.Tried)
	}
	if _, err := ShrinkClaim(ctx, p, ClaimLongTimeoutReachesZero, ShrinkBudget); err == nil {
		t.Error("ShrinkClaim measured a claim on a cancelled ctx")
	}

	s = ShrinkFrom(context.Background(), p, c, time.Nanosecond)
	if !s.StoppedEarly || s.Claim.Holds || s.Params.Jobs > p.Jobs {
		t.Errorf("out of budget: stopped %v, claim %+v, jobs %d", s.StoppedEarly, s.Claim, s.Params.Jobs)
	}
}

// TestClaimRedeliveriesAgree checks the traced window against the verifier's count, on full streams and
// on short prefixes whose last redeliveries arrive when the stream ends.
func TestClaimRedeliveriesAgree(t *testing.T) {
	for _, tt := range []struct {
		jobs             int64
		rate             float64
		window, maxDelay int64
	}{
		{20_000, 0.02, 1000, 2000}, {20_000, 0.02, 2000, 2000}, {17, 0.02, 1000, 2000},
		{500, 0.5, 3, 7}, {500, 1, 0, 1}, {3000, 0.3, 40, 100}, {1, 1, 1, 5},
	} {
		crashed, err := crashedJobs(context.Background(), tt.jobs, tt.rate, 13)
		if err != nil {
			t.Fatal(err)
		}
		want, err := claimWindowed(context.Background(), crashed, tt.window, tt.maxDelay, 17)
		if err != nil {
			t.Fatal(err)
		}
		trace, err := claimRedeliveries(context.Background(), crashed, tt.window, tt.maxDelay, 17)
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		for _, r := range trace {
			if r.escaped {
				got++
			}
			if r.landed >= 0 && r.landed != r.id+r.delay-1 {
				t.Errorf("%+v: job %d drawn %d later landed at %d", tt, r.id, r.delay, r.landed)
			}
		}
		if got != want || int64(len(trace)) != int64(len(crashesOf(tt.jobs, tt.rate, 13))) {
			t.Errorf("%+v: traced %d escapes of %d redeliveries, verifier counts %d", tt, got, len(trace), want)
		}
	}
}

// TestPrefixStream checks what the shrinker relies on: a shorter stream is the start of the longer
// one (crashes, delays and durations), except that redeliveries due past its end arrive at its end.
func TestPrefixStream(t *testing.T) {
	const long, short = 5000, 1200
	ctx := context.Background()
	lc, _ := crashedJobs(ctx, long, 0.05, 13)
	sc, _ := crashedJobs(ctx, short, 0.05, 13)
	if !slices.Equal(lc[:short], sc) {
		t.Fatal("the crashes of a prefix differ from the start of the stream")
	}
	lt, _ := claimRedeliveries(ctx, lc, 100, 400, 17)
	st, _ := claimRedeliveries(ctx, sc, 100, 400, 17)
	if len(st) == 0 || len(st) > len(lt) {
		t.Fatalf("%d redeliveries in the prefix, %d in the stream", len(st), len(lt))
	}
	ended := 0
	for i, r := range st {
		l := lt[i]
		if r.id != l.id || r.delay != l.delay {
			t.Fatalf("redelivery %d: prefix %+v, stream %+v", i, r, l)
		}
		if l.landed < short && r.landed != l.landed {
			t.Errorf("redelivery %d landed at %d in the prefix, %d in the stream", i, r.landed, l.landed)
		}
		if l.landed >= short {
			ended++
			if r.landed != -1 {
				t.Errorf("redelivery %d is due past the prefix but landed at %d", i, r.landed)
			}
		}
	}
	if ended == 0 {
		t.Error("no redelivery was due past the prefix: the test shows nothing about the end")
	}
	if !slices.Equal(durationsOf(long, 31)[:short], durationsOf(short, 31)) {
		t.Error("the durations of a prefix differ from the start of the stream")
	}
}
