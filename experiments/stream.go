package experiments

import (
	"context"
	"fmt"
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

// ctxEvery is how many jobs a loop runs between looks at its context: often enough that a
// cancelled request stops within a few milliseconds, rarely enough to cost nothing.
const ctxEvery = 1 << 16

// jobStream is the document's stream(): crashed[i] says whether job i's worker dies mid-job. It is
// drawn once per run and replayed by every design, so designs differ only in where the ack sits,
// never in which jobs crashed.
type jobStream struct {
	crashed []bool
	count   int64 // how many crashed
}

// drawStream draws job i's crash as Random(seed).random() < rate, in job order, as the document's
// stream() does; a different order would crash different jobs and break every table.
func drawStream(ctx context.Context, jobs int64, rate float64, seed int64) (jobStream, error) {
	rng := newPyRandom(seed)
	s := jobStream{crashed: make([]bool, jobs)}
	for i := range s.crashed {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return jobStream{}, err
			}
		}
		if rng.random() < rate {
			s.crashed[i] = true
			s.count++
		}
	}
	return s, nil
}

// Crashes returns the stream's crash marks, crashed[i] true when job i's worker dies mid-job: the
// live lab kills real workers on exactly these jobs, so that its measured counts can be set beside
// the model's for the same stream rather than for a stream that merely has the same rate. The
// slice is the caller's own.
func Crashes(ctx context.Context, jobs int64, rate float64, seed int64) ([]bool, error) {
	if jobs < 0 {
		return nil, fmt.Errorf("jobs: %d is negative", jobs)
	}
	s, err := drawStream(ctx, jobs, rate, seed)
	if err != nil {
		return nil, err
	}
	return s.crashed, nil
}

// sink counts applications per job, like the document's Sink: counting rather than recording
// presence is what lets one sink measure losses and duplicates alike.
type sink []uint8

func (s sink) apply(j int) { s[j]++ }

// stats returns the document's Sink.stats(N): jobs never applied, applied once, applied more than
// once. Every design here applies a job at most twice, so "more than once" is also the number of
// extra applications.
func (s sink) stats() (lost, once, dup int64) { return Tally(s) }

// Tally sorts jobs by how many times their effect was applied, applied[i] being job i's count:
// never (lost), once, or more than once (duplicated). The experiments count their sinks with it,
// and so does the live lab with the rows of its real database, so the two verdicts cannot drift.
func Tally[N ~uint8 | ~int | ~int64](applied []N) (lost, once, dup int64) {
	for _, n := range applied {
		switch {
		case n == 0:
			lost++
		case n == 1:
			once++
		default:
			dup++
		}
	}
	return lost, once, dup
}

// effects is how many times the effect was applied, over all jobs.
func (s sink) effects() int64 {
	var n int64
	for _, c := range s {
		n += int64(c)
	}
	return n
}

// Design names one of the assembly's four places for the ack and the dedup key. It is a string so
// that the JSON carries the name itself, and a type so that a misspelt name fails to compile
// instead of silently matching no row.
type Design string

// The assembly's designs, in the order Assembly reports them.
const (
	DesignAtMostOnce            Design = "at-most-once"            // ack, then work
	DesignAtLeastOnce           Design = "at-least-once"           // work, then ack
	DesignDedupNonTransactional Design = "dedup-non-transactional" // key and effect written apart
	DesignDedupTransactional    Design = "dedup-transactional"     // key and effect committed together
)

// Designs returns the assembly's designs in the order Assembly reports them; the slice is the
// caller's own.
func Designs() []Design {
	return []Design{DesignAtMostOnce, DesignAtLeastOnce, DesignDedupNonTransactional, DesignDedupTransactional}
}

// AssemblyRow is one design's outcome over the stream.
type AssemblyRow struct {
	Design      Design `json:"design"`
	Lost        int64  `json:"lost"`
	ExactlyOnce int64  `json:"exactly_once"`
	Duplicated  int64  `json:"duplicated"`
	Correct     bool   `json:"correct"`
	// Deliveries counts the times the queue handed a job to a worker, redeliveries included: every
	// job once, plus once more for each crashed job unless the ack came before the work. The dedup
	// designs have as many as at-least-once, which is block 3's point: they do not stop the second
	// delivery, only its effect.
	Deliveries int64 `json:"deliveries"`
	// Effects counts the applications of the effect at the sink, summed over jobs: what the
	// deliveries turned into.
	Effects int64 `json:"effects"`
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
	s, err := drawStream(ctx, p.Jobs, p.CrashRate, p.Seed)
	if err != nil {
		return AssemblyResult{}, err
	}
	res := AssemblyResult{Jobs: p.Jobs, Crashed: s.count}
	sinks := make(map[Design]sink, 4)
	for kind, design := range Designs() {
		out := make(sink, p.Jobs)
		redelivered := int64(0)
		var seen []bool
		if kind >= 2 {
			seen = make([]bool, p.Jobs)
		}
		// dedupApply is block 3's DedupSink.apply: the check and the effect in one place.
		dedupApply := func(j int) {
			if seen[j] {
				return
			}
			seen[j] = true
			out.apply(j)
		}
		for j, crashed := range s.crashed {
			if j%ctxEvery == 0 {
				if err := ctx.Err(); err != nil {
					return AssemblyResult{}, err
				}
			}
			switch kind { // the design's index in Designs(): a string compare per job would cost more than the job
			case 0: // at-most-once
				// ack first: a crash loses the job, and nothing records that it did
				if !crashed {
					out.apply(j)
				}
			case 1: // at-least-once
				// work first: a crash before the ack means a redelivery that does it again
				out.apply(j)
				if crashed {
					redelivered++
					out.apply(j)
				}
			case 2: // dedup, non-transactional
				dedupApply(j)
				if crashed {
					redelivered++
					seen[j] = false // the key was a separate write, and the crash lost it
					dedupApply(j)
				}
			case 3: // dedup, transactional
				dedupApply(j)
				if crashed {
					redelivered++
					dedupApply(j) // key and effect committed together: the redelivery is a no-op
				}
			}
		}
		lost, once, dup := out.stats()
		res.Rows = append(res.Rows, AssemblyRow{Design: design, Lost: lost, ExactlyOnce: once, Duplicated: dup,
			Correct: lost == 0 && dup == 0, Deliveries: p.Jobs + redelivered, Effects: out.effects()})
		sinks[design] = out
	}
	// Compare the two sets job by job rather than trusting that both equal the crash set: that
	// they do is the finding, so it has to be measured.
	amo, alo := sinks[DesignAtMostOnce], sinks[DesignAtLeastOnce]
	res.SameSet = true
	for j := range amo {
		if (amo[j] == 0) != (alo[j] > 1) {
			res.SameSet = false
			break
		}
	}
	return res, nil
}

func assemblyExperiment() *Experiment {
	return define("assembly", "Designs on one stream",
		"Lost, exactly-once and duplicated jobs for ack-before-work, ack-after-work, and dedup with the key outside or inside the effect's transaction.",
		streamFields, DefaultStreamParams, Assembly, streamCost, lower("jobs")).
		memory(streamMemory).counts(NamedRows, assemblyCounts).traced(assemblyTracer()).
		answers(Question{"q1", "/blocks/1", "jobs lost"}, answerLost).
		answers(Question{"q2", "/blocks/2", "jobs duplicated"}, answerDuplicated).
		answers(Question{"q3", "/assembly", "duplicates caught"}, answerCaught).
		headline(headlineAssembly).build()
}

// KeyKind names what a dedup key is built from. Only a key that stays the same across a job's
// attempts can recognise a redelivery; the other two differ on every attempt by construction.
type KeyKind string

// The dedup keys Keys compares, in the order it reports them.
const (
	KeyJobID          KeyKind = "job-id"           // the same on every attempt
	KeyJobIDAttempt   KeyKind = "job-id+attempt"   // changes with each attempt
	KeyUUIDPerAttempt KeyKind = "uuid-per-attempt" // fresh on each attempt
)

// KeyKinds returns the dedup keys in the order Keys reports them; the slice is the caller's own.
func KeyKinds() []KeyKind { return []KeyKind{KeyJobID, KeyJobIDAttempt, KeyUUIDPerAttempt} }

// KeyRow is how many duplicates one choice of dedup key lets through.
type KeyRow struct {
	Key        KeyKind `json:"key"`
	Duplicated int64   `json:"duplicated"`
	// Deliveries counts every attempt the sink saw, the same for every key; Effects counts the
	// attempts the key let through to the effect. See AssemblyRow.
	Deliveries int64 `json:"deliveries"`
	Effects    int64 `json:"effects"`
}

// KeysResult compares dedup keys: job-id, job-id+attempt, uuid-per-attempt (block 3).
type KeysResult struct {
	Jobs    int64    `json:"jobs"`
	Crashed int64    `json:"crashed"`
	Rows    []KeyRow `json:"rows"`
}

// Keys dedups the at-least-once stream with three keys; only a key stable across attempts works.
func Keys(ctx context.Context, p StreamParams) (KeysResult, error) {
	s, err := drawStream(ctx, p.Jobs, p.CrashRate, p.Seed)
	if err != nil {
		return KeysResult{}, err
	}
	res := KeysResult{Jobs: p.Jobs, Crashed: s.count}
	type keyFn struct {
		name  KeyKind
		space int64 // how many distinct keys the function can produce on this stream
		key   func(jid, attempt int, next *int) int
	}
	keys := []keyFn{
		{KeyJobID, p.Jobs, func(j, _ int, _ *int) int { return j }},
		{KeyJobIDAttempt, 2 * p.Jobs, func(j, a int, _ *int) int { return 2*j + a }},
		// A uuid4 minted per attempt never repeats, so a counter that never repeats has the same
		// effect on a dedup set; no real randomness is needed to show that it catches nothing.
		{KeyUUIDPerAttempt, p.Jobs + s.count, func(_, _ int, next *int) int { *next++; return *next - 1 }},
	}
	for _, k := range keys {
		out := make(sink, p.Jobs)
		seen := make([]bool, k.space)
		next := 0
		var deliveries int64
		for j, crashed := range s.crashed {
			if j%ctxEvery == 0 {
				if err := ctx.Err(); err != nil {
					return KeysResult{}, err
				}
			}
			attempts := 1
			if crashed {
				attempts = 2
			}
			for a := range attempts {
				deliveries++
				key := k.key(j, a, &next)
				if seen[key] {
					continue
				}
				seen[key] = true
				out.apply(j)
			}
		}
		_, _, dup := out.stats()
		res.Rows = append(res.Rows, KeyRow{Key: k.name, Duplicated: dup, Deliveries: deliveries, Effects: out.effects()})
	}
	return res, nil
}

func keysExperiment() *Experiment {
	return define("keys", "Which dedup key",
		"Duplicates that escape when the dedup key is the job id, the job id plus the attempt number, or a fresh id per attempt.",
		streamFields, DefaultStreamParams, Keys, streamCost, lower("jobs")).
		memory(keysMemory).counts(NamedRows, keysCounts).traced(keysTracer()).
		headline(headlineKeys).build()
}

// Order names when the dedup key is written relative to the effect: the crash between the two
// writes is what separates the orders, so the name says which write it finds done.
type Order string

// The orderings Orderings compares, in the order it reports them.
const (
	OrderKeyThenEffect  Order = "key-then-effect" // a crash between marks a job done that never ran
	OrderEffectThenKey  Order = "effect-then-key" // a crash between lets the redelivery run it again
	OrderOneTransaction Order = "one-transaction" // both writes or neither
)

// Orders returns the orderings in the order Orderings reports them; the slice is the caller's own.
func Orders() []Order { return []Order{OrderKeyThenEffect, OrderEffectThenKey, OrderOneTransaction} }

// OrderingRow is the outcome of one ordering of the dedup write and the effect.
type OrderingRow struct {
	Order      Order `json:"order"`
	Lost       int64 `json:"lost"`
	Duplicated int64 `json:"duplicated"`
}

// OrderingsResult compares key-then-effect, effect-then-key and one-transaction (block 5).
type OrderingsResult struct {
	Jobs    int64         `json:"jobs"`
	Crashed int64         `json:"crashed"`
	Rows    []OrderingRow `json:"rows"`
}

// Orderings crashes between the dedup write and the effect in each order, then redelivers.
func Orderings(ctx context.Context, p StreamParams) (OrderingsResult, error) {
	s, err := drawStream(ctx, p.Jobs, p.CrashRate, p.Seed)
	if err != nil {
		return OrderingsResult{}, err
	}
	res := OrderingsResult{Jobs: p.Jobs, Crashed: s.count}
	for kind, order := range Orders() {
		out := make(sink, p.Jobs)
		dedup := make([]bool, p.Jobs)
		for j, crashed := range s.crashed {
			if j%ctxEvery == 0 {
				if err := ctx.Err(); err != nil {
					return OrderingsResult{}, err
				}
			}
			if dedup[j] {
				continue
			}
			switch kind {
			case 0: // key, then effect
				dedup[j] = true
				if crashed {
					continue // crash after the key, before the effect: marked done, never ran
				}
				out.apply(j)
			case 1: // effect, then key
				out.apply(j)
				if crashed {
					continue // crash after the effect, before the key: the redelivery redoes it
				}
				dedup[j] = true
			default:
				if !crashed { // both or neither
					out.apply(j)
					dedup[j] = true
				}
			}
		}
		// The redeliveries, after the first pass, as the document's second loop does them.
		for j, crashed := range s.crashed {
			if j%ctxEvery == 0 {
				if err := ctx.Err(); err != nil {
					return OrderingsResult{}, err
				}
			}
			if crashed && !dedup[j] {
				out.apply(j)
			}
		}
		lost, _, dup := out.stats()
		res.Rows = append(res.Rows, OrderingRow{Order: order, Lost: lost, Duplicated: dup})
	}
	return res, nil
}

func orderingsExperiment() *Experiment {
	return define("orderings", "Key and effect: which order",
		"Lost and duplicated jobs when the dedup key is written before the effect, after it, or in the same transaction.",
		streamFields, DefaultStreamParams, Orderings, streamCost, lower("jobs")).
		memory(streamMemory).counts(NamedRows, orderingsCounts).traced(orderingsTracer()).
		headline(headlineOrderings).build()
}

// streamCost is linear in jobs: drawing the stream and three or four passes over it, measured at
// about 90 ns a job on the 2-core machine at its worst (a 50% crash rate, where every branch on a
// crash is a coin toss for the predictor). A unit is about 4 ns there; see MaxCost.
func streamCost(p StreamParams) int64 { return p.Jobs * 24 }
