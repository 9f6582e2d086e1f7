package experiments

import (
	"slices"
	"sync"
)

// catalog builds every experiment once: each definition checks its spec against its struct by
// reflection, work that must not be repeated on every request that looks an experiment up.
var catalog = sync.OnceValue(func() []*Experiment {
	return []*Experiment{
		assemblyExperiment(),
		crashSweepExperiment(),
		keysExperiment(),
		windowExperiment(),
		windowGridExperiment(),
		windowTimeExperiment(),
		orderingsExperiment(),
		leaseExperiment(),
		claimsExperiment(),
		scaleExperiment(),
		outboxExperiment(),
	}
})

// All returns every experiment, in the order the notebook teaches them. The experiments are shared
// and must be treated as read-only; the slice is the caller's own.
func All() []*Experiment { return slices.Clone(catalog()) }

// Lookup returns the named experiment.
func Lookup(name string) (*Experiment, bool) {
	for _, e := range catalog() {
		if e.Name == name {
			return e, true
		}
	}
	return nil, false
}

// The fields several experiments share: one definition each, so a range is the same everywhere.
// The stream's four are marked Shared: a page's first form sets them for the experiments below it.
var (
	fieldJobs = Field{Name: "jobs", Label: "Jobs", Help: "How many jobs the stream holds; job i is numbered i.",
		Kind: KindInt, MinInt: 1, MaxInt: 10_000_000, Shared: true}
	fieldCrashRate = Field{Name: "crash_rate", Label: "Crash rate", Help: "Chance that the worker holding a job dies mid-job (0.02 is 2%).",
		Kind: KindFloat, Min: 0, Max: 1, Shared: true}
	fieldSeed = Field{Name: "seed", Label: "Stream seed", Help: "Seed of the job stream; 13 reproduces the document.",
		Kind: KindInt, MinInt: 0, MaxInt: 1<<63 - 1, Shared: true}
	fieldDelaySeed = Field{Name: "delay_seed", Label: "Delay seed", Help: "Seed of the redelivery delays; 17 reproduces the document.",
		Kind: KindInt, MinInt: 0, MaxInt: 1<<63 - 1, Shared: true}
)
