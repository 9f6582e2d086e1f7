package experiments

import (
	"context"
	"errors"
)

// OutboxParams describe a producer that must change a row and publish an event about it. Each step
// (database commit, publish, relay mark-sent) crashes the process with probability CrashRate, drawn
// from Random(Seed); a crashed producer request is not retried by its caller, a crashed relay resumes.
type OutboxParams struct {
	Events    int64   `json:"events"`
	CrashRate float64 `json:"crash_rate"`
	Seed      int64   `json:"seed"`
}

// DefaultOutboxParams: 20,000 events, 2% crashes per step, seed 13, matching the hands-on stream.
func DefaultOutboxParams() OutboxParams { return OutboxParams{Events: 20_000, CrashRate: 0.02, Seed: 13} }

// OutboxRow is one producer design with one consumer.
type OutboxRow struct {
	Design        string `json:"design"`
	ConsumerDedup bool   `json:"consumer_dedup"`
	// Lost counts committed rows whose event was never published.
	Lost int64 `json:"lost"`
	// Phantom counts events published for a row that never committed.
	Phantom int64 `json:"phantom"`
	// DuplicateApplications counts consumer applications beyond the first, per event.
	DuplicateApplications int64 `json:"duplicate_applications"`
}

// OutboxResult compares dual write (both orders) and the outbox, with and without consumer dedup.
type OutboxResult struct {
	Events int64       `json:"events"`
	Rows   []OutboxRow `json:"rows"`
}

// Outbox simulates the producer designs and the consumer.
func Outbox(ctx context.Context, p OutboxParams) (OutboxResult, error) {
	return OutboxResult{}, errors.New("not implemented")
}

func outboxExperiment() *Experiment {
	return define("outbox", "Dual write versus outbox",
		"Lost events, phantom events and duplicate applications for a dual write in either order and for a transactional outbox with a relay.",
		[]Field{
			{Name: "events", Label: "Events", Help: "How many business changes the producer makes.", Kind: KindInt, MinInt: 1, MaxInt: 10_000_000},
			{Name: "crash_rate", Label: "Crash rate per step", Help: "Chance of a crash at each step of the producer or relay (0.02 is 2%).", Kind: KindFloat, Min: 0, Max: 0.5},
			fieldSeed,
		},
		DefaultOutboxParams, Outbox, func(p OutboxParams) (int64, string) { return p.Events * 12, "events" })
}
