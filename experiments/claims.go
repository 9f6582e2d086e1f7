package experiments

import (
	"context"
	"errors"
)

// ClaimsParams are the verifier's inputs: the job stream, the redelivery delays and the lease seed.
// The verifier checks its windows at max_delay/2 and max_delay, and its timeouts at 5, 60 and 300 s.
type ClaimsParams struct {
	Jobs      int64   `json:"jobs"`
	CrashRate float64 `json:"crash_rate"`
	Seed      int64   `json:"seed"`
	MaxDelay  int64   `json:"max_delay"`
	DelaySeed int64   `json:"delay_seed"`
	LeaseSeed int64   `json:"lease_seed"`
}

// DefaultClaimsParams are the document's.
func DefaultClaimsParams() ClaimsParams {
	return ClaimsParams{Jobs: 20_000, CrashRate: 0.02, Seed: 13, MaxDelay: 2000, DelaySeed: 17, LeaseSeed: 31}
}

// Claim is one re-derived statement of the document.
type Claim struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Holds  bool   `json:"holds"`
	Detail string `json:"detail"`
}

// ClaimsResult is the verifier's report.
type ClaimsResult struct {
	Claims []Claim `json:"claims"`
	Passed int     `json:"passed"`
	Total  int     `json:"total"`
}

// Claims re-derives the document's nine claims with code independent of the other experiments.
func Claims(ctx context.Context, p ClaimsParams) (ClaimsResult, error) {
	return ClaimsResult{}, errors.New("not implemented")
}

func claimsExperiment() *Experiment {
	return define("claims", "The nine claims, re-derived",
		"Every claim of the hands-on page checked from scratch, on these parameters.",
		[]Field{fieldJobs, fieldCrashRate, fieldSeed, fieldMaxDelay, fieldDelaySeed,
			{Name: "lease_seed", Label: "Duration seed", Help: "Seed of the job durations; 31 reproduces the document.", Kind: KindInt, MinInt: 0, MaxInt: 1<<63 - 1}},
		DefaultClaimsParams, Claims, func(p ClaimsParams) (int64, string) { return p.Jobs * 40, "jobs" })
}
