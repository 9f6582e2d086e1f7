package experiments

import (
	"context"
	"errors"
)

// StreamParams describe the job stream every crash experiment replays: Jobs jobs, each crashing its
// worker with probability CrashRate, drawn from Random(Seed) in job order.
type StreamParams struct {
	Jobs      int64   `json:"jobs"`
	CrashRate float64 `json:"crash_rate"`
	Seed      int64   `json:"seed"`
}

// DefaultStreamParams are the first document's: 20,000 jobs, 2% crashes, seed 13.
func DefaultStreamParams() StreamParams { return StreamParams{Jobs: 20_000, CrashRate: 0.02, Seed: 13} }

var streamFields = []Field{fieldJobs, fieldCrashRate, fieldSeed}

// AssemblyRow is one design's outcome over the stream.
type AssemblyRow struct {
	Design      string `json:"design"`
	Lost        int64  `json:"lost"`
	ExactlyOnce int64  `json:"exactly_once"`
	Duplicated  int64  `json:"duplicated"`
	Correct     bool   `json:"correct"`
}

// AssemblyResult compares the four designs on one stream.
type AssemblyResult struct {
	Jobs    int64         `json:"jobs"`
	Crashed int64         `json:"crashed"`
	Rows    []AssemblyRow `json:"rows"`
	// SameSet reports whether the jobs at-most-once lost are exactly the jobs at-least-once
	// duplicated (block 2's "try it yourself").
	SameSet bool `json:"same_set"`
}

// Assembly runs at-most-once, at-least-once, non-transactional dedup and transactional dedup over
// the same stream (blocks 1, 2, 3 and 5, and the document's assembly).
func Assembly(ctx context.Context, p StreamParams) (AssemblyResult, error) {
	return AssemblyResult{}, errors.New("not implemented")
}

func assemblyExperiment() *Experiment {
	return define("assembly", "Four designs on one stream",
		"Lost, exactly-once and duplicated jobs for ack-before-work, ack-after-work, and dedup with the key outside or inside the effect's transaction.",
		streamFields, DefaultStreamParams, Assembly, streamCost)
}

// KeyRow is how many duplicates one choice of dedup key lets through.
type KeyRow struct {
	Key        string `json:"key"`
	Duplicated int64  `json:"duplicated"`
}

// KeysResult compares dedup keys: job-id, job-id+attempt, uuid-per-attempt (block 3).
type KeysResult struct {
	Jobs    int64    `json:"jobs"`
	Crashed int64    `json:"crashed"`
	Rows    []KeyRow `json:"rows"`
}

// Keys dedups the at-least-once stream with three keys; only a key stable across attempts works.
func Keys(ctx context.Context, p StreamParams) (KeysResult, error) {
	return KeysResult{}, errors.New("not implemented")
}

func keysExperiment() *Experiment {
	return define("keys", "Which dedup key",
		"Duplicates that escape when the dedup key is the job id, the job id plus the attempt number, or a fresh id per attempt.",
		streamFields, DefaultStreamParams, Keys, streamCost)
}

// OrderingRow is the outcome of one ordering of the dedup write and the effect.
type OrderingRow struct {
	Order      string `json:"order"`
	Lost       int64  `json:"lost"`
	Duplicated int64  `json:"duplicated"`
}

// OrderingsResult compares key-then-effect, effect-then-key and one-transaction (block 5).
type OrderingsResult struct {
	Jobs    int64         `json:"jobs"`
	Crashed int64         `json:"crashed"`
	Rows    []OrderingRow `json:"rows"`
}

// Orderings crashes between the dedup write and the effect in each order, then redelivers.
func Orderings(ctx context.Context, p StreamParams) (OrderingsResult, error) {
	return OrderingsResult{}, errors.New("not implemented")
}

func orderingsExperiment() *Experiment {
	return define("orderings", "Key and effect: which order",
		"Lost and duplicated jobs when the dedup key is written before the effect, after it, or in the same transaction.",
		streamFields, DefaultStreamParams, Orderings, streamCost)
}

// streamCost counts one unit per job per design; the stream experiments are linear in jobs.
func streamCost(p StreamParams) (int64, string) { return p.Jobs * 8, "jobs" }
