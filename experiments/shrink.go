package experiments

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// ShrinkBudget is how long a search for a smaller failing case may take: long enough to bisect a
// stream of millions of jobs, short enough to run inside the request that shows the failure.
const ShrinkBudget = 2 * time.Second

// FailMode says how a claim failed. A smaller stream counts as a smaller case of the same failure
// only if it fails the same way: otherwise every lease claim would shrink to one job that outlives
// nothing, a failure of another kind, and the job that broke the claim would be lost on the way
// (property testers call this slipping to a different bug).
type FailMode string

// The ways the nine claims fail.
const (
	FailNoCrash     FailMode = "no-crash"     // small window: nothing crashed, so nothing came back
	FailAllCaught   FailMode = "all-caught"   // small window: jobs crashed, and the window caught every repeat
	FailEscaped     FailMode = "escaped"      // full window: a repeat got past a window as long as the max delay
	FailTooFewSlow  FailMode = "too-few-slow" // short timeout: no more than one job in twenty outlived 5 s
	FailOutlived300 FailMode = "outlived-300" // long timeout: a job outlived even 300 s
	FailNonePast60  FailMode = "none-past-60" // long timeout: no job outlived 60 s, so zero came free
	FailBroken      FailMode = "broken"       // a law of the mechanism failed: the code, not the inputs
)

// Absence reports whether the mode is a failure by something not happening (nothing escaped, too
// few slow jobs), rather than one caused by a job; such a failure has no job to blame.
func (m FailMode) Absence() bool {
	return m == FailNoCrash || m == FailAllCaught || m == FailTooFewSlow || m == FailNonePast60
}

// failModeOf says how c failed, or "" when it holds.
func failModeOf(c Claim) FailMode {
	if c.Holds {
		return ""
	}
	switch c.Kind {
	case ClaimSmallWindowLeaks:
		if c.Crashes == 0 {
			return FailNoCrash
		}
		return FailAllCaught
	case ClaimFullWindowLeaksNone:
		return FailEscaped
	case ClaimShortTimeoutDoubles:
		return FailTooFewSlow
	case ClaimLongTimeoutReachesZero:
		if c.Doubles300 > 0 {
			return FailOutlived300
		}
		return FailNonePast60
	}
	return FailBroken
}

// Shrunk is the smallest failing case ShrinkClaim found for one claim.
type Shrunk struct {
	Kind ClaimKind `json:"kind"`
	// Failed is false when the claim holds at From: there is nothing to shrink, and Params is From.
	Failed bool `json:"failed"`
	// From is the input; Params the smallest failing case, which differs from it only in Jobs.
	From   ClaimsParams `json:"from"`
	Params ClaimsParams `json:"params"`
	// Claim is the claim as Claims measured it at Params: still failing, and in the same Mode.
	Claim Claim    `json:"claim"`
	Mode  FailMode `json:"mode,omitempty"`
	// Culprits are the ids of the jobs that break the claim at Params, ascending: for a failure
	// caused by jobs, those jobs (outlived 300 s, escaped the window); for one by absence, the jobs
	// the missing event was owed by (the crashed jobs whose repeat was caught, the few slow jobs),
	// possibly none. Fate says what happened to them, in words.
	Culprits []int64 `json:"culprits"`
	Fate     string  `json:"fate,omitempty"`
	// Key is the earliest job that matters, for a failure caused by a job: the one the shrunk stream
	// ends on, or whose repeat it ends on. It is -1 for a failure by absence. Story tells its life.
	Key   int64  `json:"key"`
	Story string `json:"story,omitempty"`
	// Tried counts the candidate streams measured, the input's own run included.
	Tried int `json:"tried"`
	// StoppedEarly is set when the budget ran out or ctx ended before the search did: Params is
	// then the smallest failing case found so far, not necessarily the smallest there is.
	StoppedEarly bool `json:"stopped_early"`
	// Elapsed is how long the search took, for the command line's report.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// ShrinkClaim looks for the smallest stream that still fails claim kind, when it fails at p, the
// way a shrinking property-based tester hunts for the smallest input that still breaks a property.
// It measures the claim at p first; ShrinkFrom does the rest. A budget of zero or less means no
// limit but ctx's own. The error is set only when nothing could be measured at all (ctx ended
// before the claim at p was known, or kind is none of the nine); the Shrunk then has StoppedEarly.
func ShrinkClaim(ctx context.Context, p ClaimsParams, kind ClaimKind, budget time.Duration) (Shrunk, error) {
	start := time.Now()
	if !kind.valid() {
		return Shrunk{}, fmt.Errorf("shrink: claim kind %d is none of the nine", int(kind))
	}
	sctx, cancel := withBudget(ctx, budget)
	defer cancel()
	c, err := claimAt(sctx, p, kind)
	if err != nil {
		return Shrunk{Kind: kind, From: p, Params: p, Key: -1, StoppedEarly: true, Elapsed: time.Since(start)}, err
	}
	s := shrink(ctx, sctx, p, c, budget)
	s.Tried++
	s.Elapsed = time.Since(start)
	return s, nil
}

// ShrinkFrom is ShrinkClaim for a caller that has already measured the claim at p (the verify page
// has, to draw its table), which saves the most expensive run of the search.
//
// The search shortens the stream, keeping its seeds: a stream of n jobs is the first n jobs of the
// longer one, since the crash of job i, the delay drawn for each crash (drawn in job order) and the
// duration of job i never depend on how many jobs follow. What does depend on it is the end: a
// redelivery due after the last job is delivered when the stream ends, in queue order, so the last
// repeats of a prefix come back sooner than they would in the longer stream. A prefix is therefore
// a stream of its own, and the search never infers its outcome from the longer run: every candidate
// is measured again with Claims, and the culprits are traced at the shrunk length.
//
// It gallops up from one job (1, 2, 4, ...) until a length fails the same way, then bisects between
// the last length that passed and the first that failed. Failure need not be monotone in the length
// (the share of slow jobs wanders; a prefix ends its redeliveries early), so the bisection keeps
// both ends measured rather than assumed: the case it returns was itself measured failing, and one
// job fewer was measured passing (or is no stream at all). Where failure is monotone that is the
// smallest failing length; where it is not, it is a smallest one locally, and the gallop from one
// job makes it the earliest among the lengths tried.
func ShrinkFrom(ctx context.Context, p ClaimsParams, c Claim, budget time.Duration) Shrunk {
	start := time.Now()
	sctx, cancel := withBudget(ctx, budget)
	defer cancel()
	s := shrink(ctx, sctx, p, c, budget)
	if s.Failed {
		s.Tried++ // the caller's run at p is a measured candidate too, as ShrinkClaim counts it
	}
	s.Elapsed = time.Since(start)
	return s
}

// shrink is the search, bounded by sctx (ctx with the budget); ctx alone bounds the trace of the
// culprits after it.
func shrink(ctx, sctx context.Context, p ClaimsParams, c Claim, budget time.Duration) Shrunk {
	s := Shrunk{Kind: c.Kind, From: p, Params: p, Claim: c, Key: -1}
	if c.Holds {
		return s
	}
	s.Failed, s.Mode = true, failModeOf(c)

	best, bestClaim := p.Jobs, c
	// try measures the first n jobs and reports whether they fail the same way.
	try := func(n int64) (bool, error) {
		q := p
		q.Jobs = n
		got, err := claimAt(sctx, q, c.Kind)
		if err != nil {
			return false, err
		}
		s.Tried++
		if failModeOf(got) != s.Mode {
			return false, nil
		}
		if n < best {
			best, bestClaim = n, got
		}
		return true, nil
	}
	lo, hi := int64(0), p.Jobs // lo passes (0 jobs is no stream), hi fails
	var err error
	for n := int64(1); n < hi && err == nil; n *= 2 {
		var fails bool
		if fails, err = try(n); err == nil {
			if fails {
				hi = n
				break
			}
			lo = n
		}
	}
	for hi-lo > 1 && err == nil {
		mid := lo + (hi-lo)/2
		var fails bool
		if fails, err = try(mid); err == nil {
			if fails {
				hi = mid
			} else {
				lo = mid
			}
		}
	}
	s.StoppedEarly = err != nil
	s.Params.Jobs, s.Claim = best, bestClaim

	// The trace of the culprits is one more pass at the shrunk length. A reader who left needs
	// none; a search that spent its budget still gets a short grace, so it can say which jobs.
	if ctx.Err() != nil {
		return s
	}
	tctx, tcancel := context.WithCancel(ctx)
	if budget > 0 {
		tctx, tcancel = context.WithTimeout(ctx, max(time.Until(deadlineOr(sctx, time.Now())), budget/4))
	}
	defer tcancel()
	if err := s.trace(tctx); err != nil {
		s.StoppedEarly = true
	}
	return s
}

// withBudget bounds ctx by budget, when there is one.
func withBudget(ctx context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	if budget <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, budget)
}

// deadlineOr is ctx's deadline, or t when it has none.
func deadlineOr(ctx context.Context, t time.Time) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return t
}

// claimAt runs the verifier at p and returns the claim of the kind asked for.
func claimAt(ctx context.Context, p ClaimsParams, kind ClaimKind) (Claim, error) {
	res, err := Claims(ctx, p)
	if err != nil {
		return Claim{}, err
	}
	for _, c := range res.Claims {
		if c.Kind == kind {
			return c, nil
		}
	}
	return Claim{}, errors.New("shrink: the verifier reported no claim of kind " + kind.String())
}

// trace fills in the culprits at the shrunk parameters, with what happened to them.
func (s *Shrunk) trace(ctx context.Context) error {
	p := s.Params
	switch s.Mode {
	case FailNoCrash:
		s.Fate = fmt.Sprintf("Nothing crashed in a stream of %s, so no job came back for a window to miss.", counted(p.Jobs, "job", "jobs", Thousands))
		return nil
	case FailTooFewSlow, FailOutlived300, FailNonePast60:
		over := 5.0
		if s.Mode != FailTooFewSlow {
			over = 300
			if s.Mode == FailNonePast60 {
				over = 60
			}
		}
		slow, err := slowJobs(ctx, p.Jobs, p.LeaseSeed, over)
		if err != nil {
			return err
		}
		for _, j := range slow {
			s.Culprits = append(s.Culprits, j.id)
		}
		switch s.Mode {
		case FailTooFewSlow:
			s.Fate = fmt.Sprintf("Only %s of %s outlived the 5 s timeout; the claim needs more than one in twenty.",
				counted(int64(len(slow)), "job", "jobs", Thousands), counted(p.Jobs, "job", "jobs", Thousands))
		case FailNonePast60:
			s.Fate = fmt.Sprintf("No job in a stream of %s ran past 60 s, so even that timeout ran none twice.", counted(p.Jobs, "job", "jobs", Thousands))
		default:
			if len(slow) > 1 {
				s.Fate = "Each ran past the 300 s timeout, so its lease expired while it worked and a second worker ran it too."
			}
			last := slow[len(slow)-1]
			s.Key = last.id
			s.Story = fmt.Sprintf("Job %d ran for %s s, past the 300 s lease, so a second worker took it while the first still worked.", last.id, FormatFloat(roundTo(last.secs, 1)))
		}
		return nil
	case FailAllCaught, FailEscaped:
		window := p.MaxDelay / 2
		if s.Kind == ClaimFullWindowLeaksNone {
			window = p.MaxDelay
		}
		crashed, err := crashedJobs(ctx, p.Jobs, p.CrashRate, p.Seed)
		if err != nil {
			return err
		}
		t, err := claimRedeliveries(ctx, crashed, window, p.MaxDelay, p.DelaySeed)
		if err != nil {
			return err
		}
		if s.Mode == FailAllCaught {
			for _, r := range t {
				s.Culprits = append(s.Culprits, r.id)
			}
			s.Fate = fmt.Sprintf("Each crashed and came back while its id was still among the last %s applied, so the window caught every repeat.", counted(window, "id", "ids", Thousands))
			return nil
		}
		var first *redelivery
		for i, r := range t {
			if r.escaped {
				s.Culprits = append(s.Culprits, r.id)
				if first == nil || r.seq < first.seq {
					first = &t[i]
				}
			}
		}
		s.Fate = fmt.Sprintf("Each crashed and came back after its id had left a window of %s, so it was applied twice.", counted(window, "id", "ids", Thousands))
		if first != nil {
			s.Key = first.id
			when := fmt.Sprintf("at job %d", first.landed)
			if first.landed < 0 {
				when = "when the stream ended"
			}
			s.Story = fmt.Sprintf("Job %d crashed; its redelivery, drawn %s later, came back %s, after its id had left the window, and was applied a second time.",
				first.id, counted(first.delay, "job", "jobs", Thousands), when)
		}
		return nil
	}
	// A law broke: the claim counts every crashed job, and which of them the code mishandled is
	// for the code's own tests to say.
	if s.Kind != ClaimHeartbeatDecouples {
		crashed, err := crashedJobs(ctx, p.Jobs, p.CrashRate, p.Seed)
		if err != nil {
			return err
		}
		for i, c := range crashed {
			if c {
				s.Culprits = append(s.Culprits, int64(i))
			}
		}
		s.Fate = "These crashed; the claim holds for any stream, so its failure on them points at the code."
	}
	s.Key = p.Jobs - 1
	s.Story = fmt.Sprintf("The claim holds for a stream of %s and fails once job %d joins it.", counted(p.Jobs-1, "job", "jobs", Thousands), p.Jobs-1)
	return nil
}

// roundTo rounds x to d decimals, for a duration a person reads.
func roundTo(x float64, d int) float64 {
	m := 1.0
	for range d {
		m *= 10
	}
	return float64(int64(x*m+0.5)) / m
}

// crashedJobs draws the verifier's stream, which is every experiment's stream (drawStream): job i
// crashes iff its draw falls below the crash rate.
func crashedJobs(ctx context.Context, jobs int64, rate float64, seed int64) ([]bool, error) {
	s, err := drawStream(ctx, jobs, rate, seed)
	return s.crashed, err
}

// slowJob is a job that outlived a timeout, with its duration.
type slowJob struct {
	id   int64
	secs float64
}

// slowJobs draws the verifier's durations, the lease experiment's at its document mix (95% with
// mean 2 s, 5% with mean 40 s, as claimLeases draws them), and returns the jobs that ran longer
// than over seconds.
func slowJobs(ctx context.Context, jobs, seed int64, over float64) ([]slowJob, error) {
	mix := DefaultLeaseParams()
	rng := newPyRandom(seed)
	var out []slowJob
	for i := int64(0); i < jobs; i++ {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if work := drawWork(rng, mix); work > over {
			out = append(out, slowJob{i, work})
		}
	}
	return out, nil
}

// redelivery is one crashed job's second delivery as claimRedeliveries saw it.
type redelivery struct {
	id, seq int64
	// delay is the draw, in jobs; landed the job after which it came back, -1 if the stream ended
	// first and delivered it then.
	delay, landed int64
	escaped       bool
}

// claimRedeliveries replays claimWindowed, the same queue order and a window of the same size, and
// says of every redelivery when it landed and whether it got past the window. Its window is the
// experiments' DedupWindow rather than the verifier's own, so the test that checks the two agree
// also holds the shared window to the verifier's count; the verifier's count carries no tracing.
func claimRedeliveries(ctx context.Context, crashed []bool, window, maxDelay, seed int64) ([]redelivery, error) {
	rng := newPyRandom(seed)
	win := NewDedupWindow(window, len(crashed))
	apply := win.Remember
	if window == 0 {
		// A window of no ids forgets each id as it enters, so every repeat gets past it; the
		// DedupWindow of capacity 0 is the one that forgets nothing.
		apply = func(int32) bool { return true }
	}
	var out []redelivery
	var q redeliveryHeap
	for jid, c := range crashed {
		if jid%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		apply(int32(jid))
		if c {
			d := rng.randint(1, maxDelay)
			fire := uint64(int64(jid) + d - 1)
			q.push(fire<<seqBits | uint64(len(out)))
			out = append(out, redelivery{id: int64(jid), seq: int64(len(out)), delay: d, landed: -1})
		}
		for len(q) > 0 && q[0]>>seqBits <= uint64(jid) {
			r := &out[q.pop()&(1<<seqBits-1)]
			r.landed, r.escaped = int64(jid), apply(int32(r.id))
		}
	}
	rest := []uint64(q)
	slices.SortFunc(rest, func(a, b uint64) int { return cmp.Compare(a&(1<<seqBits-1), b&(1<<seqBits-1)) })
	for _, e := range rest {
		r := &out[e&(1<<seqBits-1)]
		r.escaped = apply(int32(r.id))
	}
	return out, nil
}
