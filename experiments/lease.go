package experiments

import (
	"context"
	"errors"
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
	TimeoutS    float64 `json:"timeout_s"`
	NoRenewal   int64   `json:"no_renewal"`
	RenewThird  int64   `json:"renew_third"`
	RenewDouble int64   `json:"renew_double"`
}

// LeaseResult is the double-execution curve.
type LeaseResult struct {
	Jobs     int64        `json:"jobs"`
	SlowestS float64      `json:"slowest_s"`
	Points   []LeasePoint `json:"points"`
}

// Lease counts double executions per visibility timeout without renewal, renewing every timeout/3
// and renewing every 2*timeout.
func Lease(ctx context.Context, p LeaseParams) (LeaseResult, error) {
	return LeaseResult{}, errors.New("not implemented")
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
		DefaultLeaseParams, Lease, leaseCost)
}

func leaseCost(p LeaseParams) (int64, string) {
	return p.Jobs * int64(len(p.Timeouts)) * 4, "jobs"
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

// CrashSweep runs ack-before-work at each crash rate.
func CrashSweep(ctx context.Context, p CrashSweepParams) (CrashSweepResult, error) {
	return CrashSweepResult{}, errors.New("not implemented")
}

func crashSweepExperiment() *Experiment {
	return define("crash-sweep", "Silent loss versus crash rate",
		"Jobs lost, duplicated and errors raised by ack-before-work at each crash rate.",
		[]Field{fieldJobs,
			{Name: "crash_rates", Label: "Crash rates", Help: "Crash rates to sweep (0.05 is 5%).", Kind: KindFloatList, Min: 0, Max: 1}},
		DefaultCrashSweepParams, CrashSweep, func(p CrashSweepParams) (int64, string) {
			return p.Jobs * int64(len(p.CrashRates)) * 2, "jobs"
		})
}
