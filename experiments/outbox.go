package experiments

import "context"

// OutboxParams describe a producer that must change a row and publish an event about it. Each step
// (database commit, publish, relay mark-sent) crashes the process with probability CrashRate, drawn
// from Random(Seed); a crashed producer request is not retried by its caller, a crashed relay resumes.
type OutboxParams struct {
	Events    int64   `json:"events"`
	CrashRate float64 `json:"crash_rate"`
	Seed      int64   `json:"seed"`
}

// DefaultOutboxParams are 20,000 events, 2% crashes per step and seed 13, matching the hands-on
// stream; the documents publish no numbers for this experiment, so nothing here is fitted.
func DefaultOutboxParams() OutboxParams {
	return OutboxParams{Events: 20_000, CrashRate: 0.02, Seed: 13}
}

// OutboxDesign names how a producer gets a row change and its event out: two separate writes in
// either order, or one transaction that a relay publishes from.
type OutboxDesign string

// The producer designs, in the order Outbox reports them.
const (
	DualWriteDBFirst      OutboxDesign = "dual-write-db-first"      // commit, then publish
	DualWritePublishFirst OutboxDesign = "dual-write-publish-first" // publish, then commit
	TransactionalOutbox   OutboxDesign = "outbox"                   // row and outbox row in one commit, then a relay
)

// OutboxDesigns returns the producer designs in the order Outbox reports them; the slice is the
// caller's own.
func OutboxDesigns() []OutboxDesign {
	return []OutboxDesign{DualWriteDBFirst, DualWritePublishFirst, TransactionalOutbox}
}

// OutboxRow is one producer design with one consumer.
type OutboxRow struct {
	Design        OutboxDesign `json:"design"`
	ConsumerDedup bool         `json:"consumer_dedup"`
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

// The producer designs as indexes into OutboxDesigns(): produce takes the index, because a string
// compare per event and row would cost more than the rest of the simulation.
const (
	designDBFirst = iota
	designPublishFirst
	designOutbox
)

// eventCrashes is where the crashes land for one event. Steps are numbered per design: the first
// is the producer's first write, the second its second write, or for the outbox (whose producer
// writes once) the relay's publish; after that the relay's mark-sent, which can crash repeatedly,
// each time making the resumed relay publish again.
type eventCrashes struct {
	first, second bool
	markSent      int // how many times the relay crashed between publishing and marking sent
}

// drawCrashes draws one event's crashes, in this order, from the experiment's one stream.
func drawCrashes(rng *pyRandom, rate float64) eventCrashes {
	c := eventCrashes{first: rng.random() < rate, second: rng.random() < rate}
	for rng.random() < rate {
		c.markSent++
	}
	return c
}

// produce returns, for one design and one event's crashes, whether the row committed and how many
// times the event was published.
func produce(design int, c eventCrashes) (committed bool, published int) {
	if c.first {
		return false, 0 // the first step never happened; the caller sees a failure, nothing leaks
	}
	switch design {
	case designDBFirst:
		// commit, then publish: a crash between leaves a committed row and no event
		if c.second {
			return true, 0
		}
		return true, 1
	case designPublishFirst:
		// publish, then commit: a crash between leaves an event about a row that does not exist
		return !c.second, 1
	default:
		// Row and outbox row commit in one transaction. The relay publishes, then marks the row
		// sent; a crash before the publish is simply resumed (c.second changes nothing), a crash
		// after it and before mark-sent makes the resumed relay publish again.
		return true, 1 + c.markSent
	}
}

// consumer applies deliveries; with dedup it commits the event id together with the effect, one
// transaction for both, so a repeat finds the id already there and is skipped.
type consumer struct {
	dedup bool
	seen  []uint64 // bitmap of event ids, dense 0..events-1
	extra int64    // applications beyond the first, summed over events
}

// deliver hands the consumer one event times times in a row; in this model an event's copies
// arrive together, so counting per call counts per event.
func (c *consumer) deliver(e int64, times int) {
	applied := 0
	for range times {
		if c.dedup {
			w, bit := e/64, uint64(1)<<(e%64)
			if c.seen[w]&bit != 0 {
				continue
			}
			c.seen[w] |= bit
		}
		applied++
	}
	if applied > 1 {
		c.extra += int64(applied - 1)
	}
}

// Outbox simulates the producer designs and the consumer.
//
// Crashes are drawn once per event and every design replays them: the k-th step of each design
// crashes on the same draws, so a difference between rows is the design's doing and never a
// different roll of the dice (the document's stream() rule, applied to producers).
func Outbox(ctx context.Context, p OutboxParams) (OutboxResult, error) {
	type row struct {
		design int
		OutboxRow
		consumer
	}
	var rows []*row
	for d, name := range OutboxDesigns() {
		for _, dedup := range []bool{false, true} {
			r := &row{design: d, OutboxRow: OutboxRow{Design: name, ConsumerDedup: dedup}, consumer: consumer{dedup: dedup}}
			if dedup {
				r.seen = make([]uint64, (p.Events+63)/64)
			}
			rows = append(rows, r)
		}
	}
	rng := newPyRandom(p.Seed)
	for e := int64(0); e < p.Events; e++ {
		if e%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return OutboxResult{}, err
			}
		}
		c := drawCrashes(rng, p.CrashRate)
		for _, r := range rows {
			committed, published := produce(r.design, c)
			if committed && published == 0 {
				r.Lost++
			}
			if !committed && published > 0 {
				r.Phantom++
			}
			r.deliver(e, published)
		}
	}
	res := OutboxResult{Events: p.Events}
	for _, r := range rows {
		r.DuplicateApplications = r.extra
		res.Rows = append(res.Rows, r.OutboxRow)
	}
	return res, nil
}

func outboxExperiment() *Experiment {
	return define("outbox", "Dual write versus outbox",
		"Lost events, phantom events and duplicate applications for a dual write in either order and for a transactional outbox with a relay.",
		[]Field{
			{Name: "events", Label: "Events", Help: "How many business changes the producer makes.", Kind: KindInt, MinInt: 1, MaxInt: 10_000_000},
			{Name: "crash_rate", Label: "Crash rate per step", Help: "Chance of a crash at each step of the producer or relay (0.02 is 2%).", Kind: KindFloat, Min: 0, Max: 0.5},
			fieldSeed,
		},
		DefaultOutboxParams, Outbox, outboxCost, lower("events")).
		memory(smallMemory).counts(NamedRows, outboxCounts).traced(outboxTracer()).
		headline(headlineOutbox).build()
}

// outboxCost is linear in events: three or more draws and six rows each, measured at up to 160 ns
// an event on the 2-core machine (at a 50% crash rate); a unit is about 4 ns, see MaxCost.
func outboxCost(p OutboxParams) int64 {
	return p.Events * 40
}
