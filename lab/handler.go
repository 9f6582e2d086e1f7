package lab

// The handler design: a reader's own handler, written for the workbench, on the real lab. The
// workers run it with the workbench's runtime (its parser, dialect and step limit), its operations
// bound to the real parts (handler_worker.go): queue.ack() is a confirmed JetStream ack, the lease
// is the consumer's ack wait and a renewal an in-progress signal, a transaction is one SQL
// transaction on the sink, remember an insert into the keys table that does nothing on conflict,
// and bus.publish and the outbox relay write to a second stream, which the run counts. The model
// beside it is the workbench's own check of the same handler, stream and crash point.

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"effectivelyonce/experiments"
	"effectivelyonce/workbench"
)

// HandlerConfig is what the handler design runs: a handler's source, and where its worker dies.
type HandlerConfig struct {
	Source string
	// CrashPoint is the row of the workbench's crash-point table for the handler: 0 dies before
	// anything, k right after the handler's k-th operation.
	CrashPoint int
	// CrashAgain lets the redelivery of a crashed job die at the same point once more.
	CrashAgain bool
	// KeyWindow keeps only the most recent keys in the keys table (0: every key).
	KeyWindow int64
	// DurationSeed draws work()'s job durations (31 gives block 6's own).
	DurationSeed int64
	// Model is the workbench's check of this handler at the run's stream and crash point, when the
	// caller has made it already: a reader's handler must be checked in the workbench's sandbox,
	// never in the site's own process. Nil checks it here, which only trusted handlers (the
	// templates, tests) may be.
	Model *workbench.Result
	// Check replays the model once the run is over, at the redeliveries the broker made (see
	// replay.go): a reader's handler's must be a sandbox's (workbench.Sandbox.CheckReplay). Nil
	// replays it here, which only a run whose Model is nil (a trusted handler) may do.
	Check func(ctx context.Context, src string, p workbench.Params, at []workbench.Redelivery) (workbench.Result, error)
}

// The names the command line gives the handler design's own values.
const (
	FieldHandler    = "handler"
	FieldCrashPoint = "crash_point"
	FieldCrashAgain = "crash_again"
	FieldKeyWindow  = "key_window"
)

// validateHandler refuses a handler the design cannot run, or one given to another design.
func (c Config) validateHandler() error {
	h := c.Handler
	switch {
	case c.Design == DesignHandler && (h == nil || strings.TrimSpace(h.Source) == ""):
		return &FieldError{FieldHandler, "the handler design needs a handler's source"}
	case c.Design != DesignHandler && h != nil:
		return &FieldError{FieldHandler, fmt.Sprintf("only the %s design runs a handler, not %s", DesignHandler, c.Design)}
	case h == nil:
		return nil
	case h.CrashPoint < 0 || h.CrashPoint > workbench.MaxPoints:
		return &FieldError{FieldCrashPoint, fmt.Sprintf("%d is out of range; it must be a whole number from 0 to %d", h.CrashPoint, workbench.MaxPoints)}
	case h.KeyWindow < 0:
		return &FieldError{FieldKeyWindow, fmt.Sprintf("%d is out of range; it must be 0 or more", h.KeyWindow)}
	case h.DurationSeed < 0:
		return outOfRange(FieldLeaseSeed, strconv.FormatInt(h.DurationSeed, 10))
	}
	return nil
}

// CheckParams is the workbench check that is the handler design's model: the run's stream (jobs,
// crash rate, seed), its crash point, key window and lease, the other parameters at the
// workbench's defaults. A caller that checks the handler in a sandbox checks it with these.
func (c Config) CheckParams() workbench.Params {
	p := workbench.DefaultParams()
	p.Jobs, p.CrashRate, p.Seed = c.Jobs, c.CrashRate, c.Seed
	p.LeaseTimeout = c.LeaseTimeout
	if p.LeaseTimeout == 0 {
		p.LeaseTimeout = DefaultLeaseTimeout
	}
	if h := c.Handler; h != nil {
		p.KeyWindow, p.CrashPoint, p.CrashAgain, p.DurationSeed = h.KeyWindow, int64(h.CrashPoint), h.CrashAgain, h.DurationSeed
	}
	return p
}

// handlerModel is the workbench's result for the run: the caller's, which must be of the same
// parameters, or a check made here. A handler the workbench refuses is refused with its error.
func handlerModel(ctx context.Context, c Config) (workbench.Point, bool, error) {
	want := c.CheckParams()
	m := c.Handler.Model
	if m == nil {
		res, err := workbench.Check(ctx, c.Handler.Source, want)
		if err != nil {
			return workbench.Point{}, false, err
		}
		m = &res
	}
	if m.Params != want || len(m.Points) != 1 || m.Points[0].CrashPoint != c.Handler.CrashPoint {
		return workbench.Point{}, false, &FieldError{FieldHandler, "the model given was checked with other parameters than the run's"}
	}
	return m.Points[0], m.LeaseTime, nil
}

// HandlerResult is what a handler run reports beyond a design's counts.
type HandlerResult struct {
	CrashPoint int    `json:"crash_point"`
	Label      string `json:"label"`
	// LeaseTime says the handler calls work(): its duplicates may stray from the model's by the
	// result's Tolerance, the jobs that end within a few milliseconds of their lease.
	LeaseTime        bool  `json:"lease_time"`
	ModelExactlyOnce int64 `json:"model_exactly_once"`
	// ModelCrashed is how many deliveries the model's workers died in: the workers it kills.
	ModelCrashed int64 `json:"model_crashed"`
	// Events and ModelEvents are the event counts, real and modelled, for a handler that publishes
	// (bus.publish or tx.outbox); nil for one that does not.
	Events      *EventCounts `json:"events,omitempty"`
	ModelEvents *EventCounts `json:"model_events,omitempty"`
	// Replayed says the model counts are the workbench's check replayed at the redeliveries the
	// real broker made (a handler out of lease time), not at the workbench's drawn delays; Drawn
	// are the drawn delays' counts, the model the workbench showed before the run.
	Replayed bool         `json:"replayed"`
	Drawn    *DrawnCounts `json:"drawn,omitempty"`
	// NearEdge counts the jobs with a redelivery near the key window's edge, whose verdict the
	// lab does not claim (part of the result's Tolerance); 0 without a key window.
	NearEdge int64 `json:"near_edge"`
}

// DrawnCounts are a handler's model counts at the workbench's own delays.
type DrawnCounts struct {
	Lost        int64 `json:"lost"`
	Duplicated  int64 `json:"duplicated"`
	ExactlyOnce int64 `json:"exactly_once"`
}

// EventCounts are the second system's counts, per job as the workbench keeps them: a committed
// effect no event announced (lost), an event for an effect that never committed (phantom), a job
// whose event arrived more than once (duplicated), and the extra copies.
type EventCounts struct {
	Lost       int64 `json:"lost"`
	Phantom    int64 `json:"phantom"`
	Duplicated int64 `json:"duplicated"`
	Extra      int64 `json:"extra"`
}

// HandlerError is a reader's handler that failed inside a worker: a limit it ran into there (the
// step limit, memory) or a mistake the model's run never met. The run ends with it at once, in the
// workbench's words.
type HandlerError struct {
	Worker int
	Code   workbench.CodeError
}

// Error names the worker and gives the workbench's message, line first.
func (e *HandlerError) Error() string {
	return fmt.Sprintf("lab: the handler failed in worker %d: %s", e.Worker, e.Code.Error())
}

// handlerFailed starts the line a worker writes to its stderr when the handler failed in it,
// followed by the CodeError as JSON: how the supervisor learns the reader's message.
const handlerFailed = "lab worker: the handler failed: "

// handlerFailure reads a handler's failure from what a worker wrote to stderr, or nil.
func handlerFailure(worker int, stderr string) *HandlerError {
	if i := strings.LastIndex(stderr, handlerFailed); i >= 0 {
		line, _, _ := strings.Cut(stderr[i+len(handlerFailed):], "\n")
		var ce workbench.CodeError
		if json.Unmarshal([]byte(line), &ce) == nil && ce.Msg != "" {
			return &HandlerError{Worker: worker, Code: ce}
		}
	}
	if ce := workbench.MemoryFailure(stderr); ce != nil {
		return &HandlerError{Worker: worker, Code: *ce}
	}
	return nil
}

// prepareHandler checks the handler (the workbench's model, before any process starts) and sets
// what the run takes from it: lease time, the model's counts, the tolerance and the sample.
func prepareHandler(ctx context.Context, cfg *Config, res *Result) error {
	pt, leaseTime, err := handlerModel(ctx, *cfg)
	if err != nil {
		return err
	}
	if cfg.Handler.Model != nil && cfg.Handler.Check == nil && !leaseTime {
		// A handler checked elsewhere is a reader's: its replay must not run in this process.
		return &FieldError{FieldHandler, "a handler whose model was checked in a sandbox needs a sandbox to replay it (HandlerConfig.Check)"}
	}
	cfg.leaseTime = leaseTime
	res.ModelLost, res.ModelDuplicated = pt.Lost, pt.Duplicated
	res.Handler = &HandlerResult{CrashPoint: pt.CrashPoint, Label: pt.Label, LeaseTime: leaseTime,
		ModelExactlyOnce: pt.ExactlyOnce, ModelCrashed: pt.Crashed}
	if pt.EventsLost != nil {
		res.Handler.ModelEvents = &EventCounts{Lost: *pt.EventsLost, Phantom: *pt.EventsPhantom, Duplicated: *pt.EventsDuplicated, Extra: *pt.ExtraEvents}
	}
	if leaseTime {
		work, err := experiments.LeaseDurations(ctx, leaseParams(cfg.Jobs, cfg.Handler.DurationSeed))
		if err != nil {
			return err
		}
		timeout := cfg.CheckParams().LeaseTimeout
		res.LeaseTimeout = timeout
		band := leaseJitter.Seconds() / ModelSecond.Seconds()
		for _, w := range work {
			if math.Abs(w-timeout) <= band {
				res.Tolerance++
			}
		}
	}
	return nil
}

// The environment a handler run adds for its workers (see worker.go's).
const (
	envHandler      = "LAB_WORKER_HANDLER" // the source, base64: an environment holds no NUL
	envCrashPoint   = "LAB_WORKER_CRASH_POINT"
	envCrashAgain   = "LAB_WORKER_CRASH_AGAIN"
	envKeyWindow    = "LAB_WORKER_KEY_WINDOW"
	envDurationSeed = "LAB_WORKER_DURATION_SEED"
	envLeaseTimeout = "LAB_WORKER_LEASE_TIMEOUT" // model seconds: queue.lease_timeout
	envLeaseTime    = "LAB_WORKER_LEASE_TIME"    // "1" for a handler that calls work()
	envEvents       = "LAB_WORKER_EVENTS"        // the second stream's subject
)

// handlerEnv is the handler design's share of a worker's environment.
func handlerEnv(cfg Config, b *broker) []string {
	h := cfg.Handler
	lt := "0"
	if cfg.leaseTime {
		lt = "1"
	}
	return []string{
		envHandler + "=" + encodeSource(h.Source),
		envCrashPoint + "=" + strconv.Itoa(h.CrashPoint),
		envCrashAgain + "=" + strconv.FormatBool(h.CrashAgain),
		envKeyWindow + "=" + strconv.FormatInt(h.KeyWindow, 10),
		envDurationSeed + "=" + strconv.FormatInt(h.DurationSeed, 10),
		envLeaseTimeout + "=" + strconv.FormatFloat(cfg.CheckParams().LeaseTimeout, 'g', -1, 64),
		envLeaseTime + "=" + lt,
		envEvents + "=" + b.events,
	}
}

// encodeSource and decodeSource carry a handler's source through a worker's environment.
func encodeSource(src string) string { return base64.StdEncoding.EncodeToString([]byte(src)) }

func decodeSource(env string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(env)
	return string(b), err
}

// relayEvery is how often the outbox relay looks for rows to publish.
const relayEvery = 20 * time.Millisecond

// relay is the outbox's relay, beside the workers rather than in them, as a real one runs: it
// publishes every committed row the sink holds unsent to the second stream, then marks it sent,
// until ctx ends. A row is published at least once; the lab's relay never dies between the two.
func relay(ctx context.Context, db *sql.DB, js jetstream.JetStream, subject string) error {
	t := time.NewTicker(relayEvery)
	defer t.Stop()
	for {
		if _, err := relayOnce(ctx, db, js, subject); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// relayOnce publishes the rows unsent now, and answers how many.
func relayOnce(ctx context.Context, db *sql.DB, js jetstream.JetStream, subject string) (int, error) {
	type row struct {
		id, job int64
		event   string
	}
	var todo []row
	rows, err := db.QueryContext(ctx, `SELECT id, job, event FROM outbox WHERE sent = 0 ORDER BY id`)
	if err != nil {
		return 0, relayErr(ctx, err)
	}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.job, &r.event); err != nil {
			rows.Close()
			return 0, err
		}
		todo = append(todo, r)
	}
	rows.Close() // before the writes: the sink's one connection
	if err := rows.Err(); err != nil {
		return 0, relayErr(ctx, err)
	}
	for _, r := range todo {
		if _, err := js.Publish(ctx, subject, eventPayload(r.job, r.event)); err != nil {
			return 0, relayErr(ctx, fmt.Errorf("lab: relay: publish row %d: %w", r.id, err))
		}
		if _, err := db.ExecContext(ctx, `UPDATE outbox SET sent = 1 WHERE id = $1`, r.id); err != nil {
			return 0, relayErr(ctx, fmt.Errorf("lab: relay: mark row %d sent: %w", r.id, err))
		}
	}
	return len(todo), nil
}

// relayErr is no error when the relay was stopped.
func relayErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// eventPayload is one event on the second stream: the job whose delivery published it (the
// workbench counts events per job), then the event as the handler wrote it.
func eventPayload(job int64, event string) []byte {
	return append(strconv.AppendInt(nil, job, 10), " "+event...)
}

// countEvents reads the second stream through, and answers how many events each job published.
func countEvents(ctx context.Context, js jetstream.JetStream, stream string, jobs int64) ([]int64, error) {
	published := make([]int64, jobs)
	st, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("lab: events: %w", err)
	}
	total := st.CachedInfo().State.Msgs
	if total == 0 {
		return published, nil
	}
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return nil, fmt.Errorf("lab: events: %w", err)
	}
	for got := uint64(0); got < total; {
		batch, err := cons.Fetch(int(min(total-got, 512)), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return nil, fmt.Errorf("lab: events: %w", err)
		}
		n := 0
		for msg := range batch.Messages() {
			n++
			head, _, _ := strings.Cut(string(msg.Data()), " ")
			j, err := strconv.ParseInt(head, 10, 64)
			if err != nil || j < 0 || j >= jobs {
				return nil, fmt.Errorf("lab: events: %q names no job of the run", msg.Data())
			}
			published[j]++
		}
		if err := batch.Error(); err != nil {
			return nil, fmt.Errorf("lab: events: %w", err)
		}
		if n == 0 {
			return nil, fmt.Errorf("lab: events: read %d of the stream's %d events", got, total)
		}
		got += uint64(n)
	}
	return published, nil
}

// tallyEvents counts the second system as the workbench does, from each job's effects and events.
func tallyEvents(applied, published []int64) EventCounts {
	var c EventCounts
	for j, a := range applied {
		pub := published[j]
		switch {
		case a > 0 && pub == 0:
			c.Lost++
		case a == 0 && pub > 0:
			c.Phantom++
		}
		if pub > 1 {
			c.Duplicated++
			c.Extra += pub - 1
		}
	}
	return c
}

// countHandler adds a handler run's own counts to res, once the workers are gone: the relay's last
// rows published, the second stream read through.
func countHandler(ctx context.Context, cfg Config, b *broker, db *sql.DB, res *Result) error {
	if res.Handler.ModelEvents == nil {
		return nil
	}
	for {
		n, err := relayOnce(ctx, db, b.js, b.events)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	applied, err := appliedPerJob(ctx, db, cfg.Jobs)
	if err != nil {
		return fmt.Errorf("lab: sink: %w", err)
	}
	published, err := countEvents(ctx, b.js, b.eventStream, cfg.Jobs)
	if err != nil {
		return err
	}
	ev := tallyEvents(applied, published)
	res.Handler.Events = &ev
	return nil
}
