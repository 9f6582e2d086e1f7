package experiments

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
)

// LeaseParams describe block 6: job durations drawn from Random(Seed), mostly exponential with mean
// FastMeanS, a SlowFraction of them with mean SlowMeanS, against each visibility timeout.
// HeartbeatLoss is ours: each heartbeat is lost independently with that probability (drawn from
// Random(LossSeed)), and a lease lapses when the gap between successful renewals exceeds the timeout.
type LeaseParams struct {
	Jobs          int64     `json:"jobs"`
	Seed          int64     `json:"seed"`
	SlowFraction  float64   `json:"slow_fraction"`
	FastMeanS     float64   `json:"fast_mean_s"`
	SlowMeanS     float64   `json:"slow_mean_s"`
	Timeouts      []float64 `json:"timeouts"`
	HeartbeatLoss float64   `json:"heartbeat_loss"`
	LossSeed      int64     `json:"loss_seed"`
}

// DefaultLeaseParams are the document's: 20,000 jobs, 5% slow, means 2 s and 40 s, seed 31.
func DefaultLeaseParams() LeaseParams {
	return LeaseParams{Jobs: 20_000, Seed: 31, SlowFraction: 0.05, FastMeanS: 2, SlowMeanS: 40,
		Timeouts: []float64{5, 15, 30, 60, 300}, HeartbeatLoss: 0, LossSeed: 37}
}

// LeasePoint is the count of jobs executed twice at one timeout, for each renewal policy.
type LeasePoint struct {
	TimeoutS   float64 `json:"timeout_s"`
	NoRenewal  int64   `json:"no_renewal"`
	RenewThird int64   `json:"renew_third"`
	// RenewDouble is the document's "renew at 2t" column, kept as its simplification: when the
	// renewal interval exceeds the timeout it counts every job as run twice, whatever its length
	// (20,000 at every timeout at the defaults). Our walk reproduces it by reporting completion on
	// a heartbeat tick, so that even a short job holds its lease for a whole interval (see renewal).
	RenewDouble int64 `json:"renew_double"`
	// RenewDoubleReal is what a real queue does with the same too-slow renewal: the first heartbeat,
	// at 2t, comes after the lease expired at t, and a renewal of an expired lease is no renewal, so
	// the job runs twice only if it outlives the timeout, and its worker acks as soon as it ends.
	// It is counted job by job from the durations (see lateRenewalLapses), and comes out equal to
	// NoRenewal: a renewal slower than the lease buys nothing. Heartbeat loss cannot change it,
	// since no heartbeat arrives in time to be lost.
	RenewDoubleReal int64 `json:"renew_double_real"`
}

// LeaseResult is the double-execution curve.
type LeaseResult struct {
	Jobs     int64        `json:"jobs"`
	SlowestS float64      `json:"slowest_s"`
	Points   []LeasePoint `json:"points"`
}

// renewal is one heartbeat policy at one timeout.
//
// The document's renewal columns do not consult the job's duration: renewing every t/3 never
// doubles a job and renewing every 2t always does. Our model, which reproduces both at
// heartbeat_loss = 0 and gives loss a meaning:
//
//   - A job holds its lease for h = max(work, r), r the renewal interval: completion is reported on
//     a heartbeat tick, so every job holds its lease for at least one interval. That is what makes
//     renewing every 2t lapse for every job, short ones included, as the document counts.
//   - The lease is granted at 0 and expires at last_success + timeout.
//   - Heartbeats are sent at r, 2r, 3r, ... while k*r < h; each is lost with probability
//     heartbeat_loss, one draw of this policy's own Random(loss_seed) per heartbeat sent, in job
//     order, then heartbeat order. A worker whose lease has lapsed cannot tell, so it keeps sending
//     (c11's zombie), and those heartbeats are drawn too.
//   - A heartbeat arriving at or before the current expiry renews it to k*r + timeout; one arriving
//     after is too late. The job is executed twice iff its lease expires before h.
//
// "Arriving at or before expiry" is k*r <= last*r + t, that is k - last <= t/r. t/r is 3 or 1/2
// by definition, so the walk compares tick counts against cover = floor(t/r) instead of floats,
// where t/3*3 might round either side of t. Renewing at t/3 thus survives two lost heartbeats in a
// row and lapses on the third, the document's reason for t/3.
type renewal struct {
	timeout float64
	every   float64 // r
	cover   int64   // how many intervals past the last renewal a heartbeat still arrives in time
	rng     *pyRandom
}

// lapses walks one job's heartbeats and reports whether its lease expired before the job ended.
func (pl *renewal) lapses(ctx context.Context, work, loss float64) (bool, error) {
	r, t := pl.every, pl.timeout
	h := max(work, r)
	if loss == 0 {
		// Nothing is lost, so the walk has a closed form. If a heartbeat one interval after a
		// renewal is in time (cover >= 1), every heartbeat renews, and after the last one, at
		// K*r < h <= (K+1)*r, the lease runs to K*r + t >= (K+1)*r >= h: it never lapses, whatever
		// the job's length. If not (cover = 0), the first heartbeat is already late and the grant
		// alone ends at t < r <= h: it always lapses. The document's two columns, derived.
		return pl.cover == 0, nil
	}
	var last int64
	lapsed := false
	for k := int64(1); float64(k)*r < h; k++ {
		if k%(1<<20) == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		lost := pl.rng.random() < loss
		switch {
		case lapsed:
		case k-last > pl.cover:
			lapsed = true // arrives after the lease expired: another worker already has the job
		case !lost:
			last = k
		}
	}
	return lapsed || float64(last)*r+t < h, nil
}

// lateRenewalLapses reports whether a lease of timeout seconds, renewed every `every` seconds,
// expires before a job of work seconds ends, under a real queue's rules: a heartbeat renews the
// lease only if it arrives by the current expiry (a late one finds the job already handed to
// another worker), and the worker acks the moment the job ends rather than on a heartbeat tick.
// No heartbeat is lost here. With every > timeout the loop never renews, and the answer is
// work > timeout, the no-renewal rule.
func lateRenewalLapses(work, every, timeout float64) bool {
	expiry := timeout
	for k := 1.0; k*every < work && k*every <= expiry; k++ {
		expiry = k*every + timeout
	}
	return work > expiry
}

// Lease counts double executions per visibility timeout without renewal, renewing every timeout/3
// and renewing every 2*timeout, the last both as the document counts it and as a real queue would. Durations are drawn once, in job order, as the document's loop
// does: random() first to pick fast or slow, then expovariate; every timeout sees the same jobs.
func Lease(ctx context.Context, p LeaseParams) (LeaseResult, error) {
	n := len(p.Timeouts)
	res := LeaseResult{Jobs: p.Jobs, Points: make([]LeasePoint, n)}
	third, double := make([]renewal, n), make([]renewal, n)
	for i, t := range p.Timeouts {
		res.Points[i].TimeoutS = t
		third[i] = renewal{timeout: t, every: t / 3, cover: 3}
		double[i] = renewal{timeout: t, every: 2 * t, cover: 0}
		if p.HeartbeatLoss > 0 {
			// A fresh stream per timeout and policy: each column is what that policy alone would
			// see, whatever else was asked for.
			third[i].rng, double[i].rng = newPyRandom(p.LossSeed), newPyRandom(p.LossSeed)
		}
	}
	// Without loss a policy's outcome does not depend on the job (see renewal.lapses), so each
	// renewal column is 0 or every job, decided once per timeout; with loss every job is walked.
	walk := p.HeartbeatLoss > 0
	if !walk {
		for i := range res.Points {
			for _, c := range []struct {
				pl    *renewal
				count *int64
			}{{&third[i], &res.Points[i].RenewThird}, {&double[i], &res.Points[i].RenewDouble}} {
				if lapsed, _ := c.pl.lapses(ctx, 0, 0); lapsed {
					*c.count = p.Jobs
				}
			}
		}
	}
	rng := newPyRandom(p.Seed)
	for j := int64(0); j < p.Jobs; j++ {
		if j%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return LeaseResult{}, err
			}
		}
		work := drawWork(rng, p)
		res.SlowestS = max(res.SlowestS, work)
		for i := range res.Points {
			pt := &res.Points[i]
			if work > pt.TimeoutS {
				pt.NoRenewal++ // the lease must outlive the job
			}
			if lateRenewalLapses(work, 2*pt.TimeoutS, pt.TimeoutS) {
				pt.RenewDoubleReal++
			}
			if !walk {
				continue
			}
			lapsed, err := third[i].lapses(ctx, work, p.HeartbeatLoss)
			if err != nil {
				return LeaseResult{}, err
			}
			if lapsed {
				pt.RenewThird++
			}
			if lapsed, err = double[i].lapses(ctx, work, p.HeartbeatLoss); err != nil {
				return LeaseResult{}, err
			}
			if lapsed {
				pt.RenewDouble++
			}
		}
	}
	return res, nil
}

// drawWork draws the next job's duration as the document's loop does: random() first to pick fast
// or slow, then expovariate with lambd = 1/mean, as Python computes 1 / 2.0.
func drawWork(rng *pyRandom, p LeaseParams) float64 {
	if rng.random() > p.SlowFraction {
		return rng.expovariate(1 / p.FastMeanS)
	}
	return rng.expovariate(1 / p.SlowMeanS)
}

// LeaseDurations returns the durations, in model seconds, of jobs 0..p.Jobs-1 as Lease draws them
// from p.Seed, p.SlowFraction, p.FastMeanS and p.SlowMeanS (the other fields are not read): the
// live lab makes its workers sleep exactly these jobs, scaled, so that its doubled jobs can be set
// beside LeaseWithoutRenewal's on the same durations. The slice is the caller's own.
func LeaseDurations(ctx context.Context, p LeaseParams) ([]float64, error) {
	if p.Jobs < 0 {
		return nil, fmt.Errorf("jobs: %d is negative", p.Jobs)
	}
	work := make([]float64, p.Jobs)
	rng := newPyRandom(p.Seed)
	for j := range work {
		if j%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		work[j] = drawWork(rng, p)
	}
	return work, nil
}

func leaseExperiment() *Experiment {
	return define("lease", "Double executions versus visibility timeout",
		"Jobs executed twice because they outlived their lease, with no renewal, renewal every third of the timeout, and renewal slower than the timeout.",
		[]Field{
			{Name: "jobs", Label: "Jobs", Help: "How many job durations to draw.", Kind: KindInt, MinInt: 1, MaxInt: 10_000_000},
			{Name: "seed", Label: "Duration seed", Help: "Seed of the job durations; 31 reproduces the document.", Kind: KindInt, MinInt: 0, MaxInt: 1<<63 - 1},
			{Name: "slow_fraction", Label: "Slow fraction", Help: "Share of jobs drawn from the slow distribution (0.05 is 5%).", Kind: KindFloat, Min: 0, Max: 1},
			{Name: "fast_mean_s", Label: "Fast mean", Unit: "s", Help: "Mean duration of an ordinary job.", Kind: KindFloat, Min: 0.001, Max: 86_400},
			{Name: "slow_mean_s", Label: "Slow mean", Unit: "s", Help: "Mean duration of a slow job.", Kind: KindFloat, Min: 0.001, Max: 86_400},
			{Name: "timeouts", Label: "Visibility timeouts", Unit: "s", Help: "Lease lengths to try.", Kind: KindFloatList, Min: 0.001, Max: 86_400},
			{Name: "heartbeat_loss", Label: "Heartbeat loss", Help: "Chance that any one heartbeat is lost (0 reproduces the document).", Kind: KindFloat, Min: 0, Max: 0.99},
			{Name: "loss_seed", Label: "Loss seed", Help: "Seed of the heartbeat losses.", Kind: KindInt, MinInt: 0, MaxInt: 1<<63 - 1},
		},
		DefaultLeaseParams, Lease, leaseCost, lower("jobs"), raise("timeouts"), fewer("timeouts"),
		lower("slow_mean_s"), lower("fast_mean_s"), lower("slow_fraction")).
		memory(smallMemory).counts(Sweep, leaseCounts).traced(leaseTracer()).answers(Question{"q5", "/blocks/6", "jobs run twice"}, answerRunTwice).
		headline(headlineLease).build()
}

// leaseCost counts, in units of about 4 ns (see MaxCost): the duration draws (a random() and an
// expovariate, about 75 ns a job), a comparison per job and timeout and, when heartbeats can be
// lost, every heartbeat the walks will draw (about 20 ns each, plus 30 ns to start each walk). The heartbeat count depends on the durations,
// which are not drawn yet, so it is bounded from the means: the sum of n durations is at most
// n*mean + 8*sqrt(n)*sd except with negligible probability (8 standard deviations; for a single
// exponential job, e^-9), and a job sends fewer than h/r heartbeats, h <= work + r.
func leaseCost(p LeaseParams) int64 {
	n := float64(p.Jobs)
	c := n*19 + n*float64(len(p.Timeouts))
	if p.HeartbeatLoss == 0 {
		return clampCost(c)
	}
	sf := p.SlowFraction
	mean := (1-sf)*p.FastMeanS + sf*p.SlowMeanS
	second := (1-sf)*2*p.FastMeanS*p.FastMeanS + sf*2*p.SlowMeanS*p.SlowMeanS // E[w^2] of the mixture
	sd := math.Sqrt(max(0, second-mean*mean))
	work := n*mean + 8*math.Sqrt(n)*sd
	for _, t := range p.Timeouts {
		heartbeats := (work/(t/3) + n) + (work/(2*t) + n)
		c += heartbeats*5 + n*2*8
	}
	return clampCost(c)
}

// CrashSweepParams describe block 1's sweep: job i crashes iff (i*7919) % 100000 < rate*100000,
// a deterministic spread the document uses instead of a random stream.
type CrashSweepParams struct {
	Jobs       int64     `json:"jobs"`
	CrashRates []float64 `json:"crash_rates"`
}

// DefaultCrashSweepParams are the document's: 20,000 jobs at 0.1%, 1%, 5% and 20%.
func DefaultCrashSweepParams() CrashSweepParams {
	return CrashSweepParams{Jobs: 20_000, CrashRates: []float64{0.001, 0.01, 0.05, 0.2}}
}

// CrashSweepPoint is ack-before-work at one crash rate, with what ack-after-work would duplicate.
type CrashSweepPoint struct {
	CrashRate  float64 `json:"crash_rate"`
	Lost       int64   `json:"lost"`
	Duplicated int64   `json:"duplicated"`
	Errors     int64   `json:"errors"`
	// AckAfterDuplicated is what moving the ack after the work would duplicate on the same crashes.
	AckAfterDuplicated int64 `json:"ack_after_duplicated"`
}

// CrashSweepResult is the loss line: linear in the crash rate and silent at every point.
type CrashSweepResult struct {
	Jobs   int64             `json:"jobs"`
	Points []CrashSweepPoint `json:"points"`
}

// CrashSweep runs ack-before-work at each crash rate, with the document's deterministic crash
// pattern rather than a random stream.
//
// Job i crashes at a rate iff its residue (i*7919) % 100000 is below rate*100000, so a job that
// crashes at one rate crashes at every higher one. One pass over the jobs finds, for each job, the
// lowest rate at which it crashes (a binary search over the sorted thresholds); a running sum then
// gives every rate's count: the document's loop per rate, in one pass however many rates.
func CrashSweep(ctx context.Context, p CrashSweepParams) (CrashSweepResult, error) {
	// Python compares the int residue with the float rate*100000; a residue is below 2^53, so
	// converting it to float64 compares exactly as Python does.
	limits := make([]float64, len(p.CrashRates))
	for i, rate := range p.CrashRates {
		limits[i] = rate * 100000
	}
	order := make([]int, len(limits)) // rates by threshold, whatever order they were given in
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(limits[a], limits[b]) })
	sorted := make([]float64, len(order))
	for k, i := range order {
		sorted[k] = limits[i]
	}
	firstCrash := make([]int64, len(sorted)+1) // jobs whose lowest crashing threshold is sorted[k]
	for i := int64(0); i < p.Jobs; i++ {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return CrashSweepResult{}, err
			}
		}
		r := float64((i * 7919) % 100000)
		lo, hi := 0, len(sorted) // the first threshold above r
		for lo < hi {
			mid := (lo + hi) / 2
			if sorted[mid] > r {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		firstCrash[lo]++ // len(sorted) means it never crashes
	}
	res := CrashSweepResult{Jobs: p.Jobs, Points: make([]CrashSweepPoint, len(p.CrashRates))}
	var crashed int64
	for k, i := range order {
		crashed += firstCrash[k]
		res.Points[i] = CrashSweepPoint{
			CrashRate: p.CrashRates[i],
			// Ack first: each crash loses its job and raises nothing, and no path applies a job
			// twice, so Duplicated and Errors are 0 by construction, which is the finding.
			Lost: crashed,
			// Ack last: the same crashes each cause a redelivery and a second application.
			AckAfterDuplicated: crashed,
		}
	}
	return res, nil
}

func crashSweepExperiment() *Experiment {
	return define("crash-sweep", "Silent loss versus crash rate",
		"Jobs lost, duplicated and errors raised by ack-before-work at each crash rate.",
		[]Field{fieldJobs,
			{Name: "crash_rates", Label: "Crash rates", Help: "Crash rates to sweep (0.05 is 5%).", Kind: KindFloatList, Min: 0, Max: 1}},
		DefaultCrashSweepParams, CrashSweep, func(p CrashSweepParams) int64 {
			// one pass over the jobs, a residue and a binary search each: about 15 ns at 50 rates
			return p.Jobs * 4
		}, lower("jobs")).
		memory(smallMemory).counts(Sweep, crashSweepCounts).traced(crashSweepTracer()).
		headline(headlineCrashSweep).build()
}
