package experiments

import (
	"context"
	"math"
)

// ScaleParams are the concept page's back-of-envelope inputs.
type ScaleParams struct {
	MessagesPerDay  float64 `json:"messages_per_day"`
	CrashWindowP    float64 `json:"crash_window_p"`
	ReplayDays      float64 `json:"replay_days"`
	BytesPerKey     float64 `json:"bytes_per_key"`
	RetryMultiplier float64 `json:"retry_multiplier"`
}

// DefaultScaleParams are the concept page's: 10^9 messages a day, p = 10^-6, 7 days, 64 bytes, 5x.
func DefaultScaleParams() ScaleParams {
	return ScaleParams{MessagesPerDay: 1e9, CrashWindowP: 1e-6, ReplayDays: 7, BytesPerKey: 64, RetryMultiplier: 5}
}

// ScaleResult is the arithmetic: duplicates a day, how often one lands, and the dedup store's size.
type ScaleResult struct {
	DuplicatesPerDay         float64 `json:"duplicates_per_day"`
	SecondsBetweenDuplicates float64 `json:"seconds_between_duplicates"`
	DedupKeys                float64 `json:"dedup_keys"`
	DedupStoreBytes          float64 `json:"dedup_store_bytes"`
	RetryPeakMultiplier      float64 `json:"retry_peak_multiplier"`
}

// Scale does the concept page's arithmetic. With no duplicates at all there is no interval
// between them; SecondsBetweenDuplicates is then 0 rather than +Inf, which JSON cannot carry, and
// a reader of the result should read 0 as "never".
func Scale(ctx context.Context, p ScaleParams) (ScaleResult, error) {
	if err := ctx.Err(); err != nil {
		return ScaleResult{}, err
	}
	dup := p.MessagesPerDay * p.CrashWindowP
	var between float64
	if dup > 0 {
		// A vanishing chance (5e-324 is a valid float) makes the interval overflow to +Inf, which
		// JSON cannot carry: the largest float says "longer than anything" and still encodes.
		between = min(86400/dup, math.MaxFloat64)
	}
	keys := p.MessagesPerDay * p.ReplayDays // every message of the replay window keeps its key
	return ScaleResult{
		DuplicatesPerDay:         dup,
		SecondsBetweenDuplicates: between,
		DedupKeys:                keys,
		DedupStoreBytes:          keys * p.BytesPerKey,
		// A naive retry policy sends every attempt while the downstream fails, so the peak is the
		// number of attempts per message.
		RetryPeakMultiplier: p.RetryMultiplier,
	}, nil
}

func scaleExperiment() *Experiment {
	return define("scale", "Duplicates at scale",
		"How many duplicates a day a crash window produces, how often one lands, and what a dedup store for the replay window weighs.",
		[]Field{
			{Name: "messages_per_day", Label: "Messages a day", Help: "Throughput of the pipeline.", Kind: KindFloat, Min: 1, Max: 1e15},
			{Name: "crash_window_p", Label: "Crash-window probability", Help: "Chance that a consumer dies between effect and ack, per message.", Kind: KindFloat, Min: 0, Max: 1},
			{Name: "replay_days", Label: "Replay window", Unit: "days", Help: "How far back a redelivery or a replay can reach.", Kind: KindFloat, Min: 0, Max: 36_500},
			{Name: "bytes_per_key", Label: "Bytes per key", Unit: "B", Help: "Storage for one dedup key with its index overhead.", Kind: KindFloat, Min: 1, Max: 1_000_000},
			{Name: "retry_multiplier", Label: "Retry multiplier", Unit: "x", Help: "Attempts per message under a naive retry policy while the downstream is failing.", Kind: KindFloat, Min: 1, Max: 1000},
		},
		DefaultScaleParams, Scale, func(ScaleParams) int64 { return 1 }). // arithmetic: no size to limit
		memory(smallMemory).counts(WholeRun, scaleCounts).untraced(notJobs).
		headline(headlineScale).build()
}
