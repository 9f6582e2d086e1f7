package experiments

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// EventKind names one thing that happens to a job in a traced run. The kinds form one vocabulary
// shared by every experiment, so that a reader (or a program) who has learnt "redelivered" in the
// window's timeline reads it the same way in the orderings' or the lease's.
type EventKind string

// The event vocabulary. Each kind is a fact about one job (or one event, for the outbox) at one
// step of its run; the Detail of an Event says it in a sentence with the run's own numbers.
const (
	// EventDelivered: the queue hands the job to a worker for the first time (attempt 1).
	EventDelivered EventKind = "delivered"
	// EventCrashed: the worker holding the job dies; the detail says between which two writes.
	EventCrashed EventKind = "crashed"
	// EventAcked: the worker tells the queue the job is done, so it is never handed out again.
	EventAcked EventKind = "acked"
	// EventApplied: the job's effect reaches the sink (the row is written, the mail is sent).
	EventApplied EventKind = "applied"
	// EventRedeliveryScheduled: the queue, having no ack, will hand the job out again later.
	EventRedeliveryScheduled EventKind = "redelivery_scheduled"
	// EventRedelivered: the queue hands the job out again (attempt 2).
	EventRedelivered EventKind = "redelivered"
	// EventDedupHit: the dedup check finds the job's key, so the attempt changes nothing.
	EventDedupHit EventKind = "dedup_hit"
	// EventDedupMiss: the dedup check does not find the key, so the attempt goes ahead.
	EventDedupMiss EventKind = "dedup_miss"
	// EventKeyWritten: the job's dedup key is recorded (in a window, a set or a table).
	EventKeyWritten EventKind = "key_written"
	// EventKeyLost: a key written apart from the effect did not survive the crash.
	EventKeyLost EventKind = "key_lost"
	// EventEvicted: a bounded dedup window forgets the job's key to make room for another id.
	EventEvicted EventKind = "evicted"
	// EventStarted: a worker takes the job under a lease (the lease experiment's step 0).
	EventStarted EventKind = "started"
	// EventRenewed: a heartbeat arrives in time and pushes the lease's expiry forward.
	EventRenewed EventKind = "renewed"
	// EventHeartbeatLost: a heartbeat is sent but never arrives.
	EventHeartbeatLost EventKind = "heartbeat_lost"
	// EventHeartbeatLate: a heartbeat arrives after the lease already expired; it renews nothing.
	EventHeartbeatLate EventKind = "heartbeat_late"
	// EventLeaseExpired: the lease runs out while the job may still be running.
	EventLeaseExpired EventKind = "lease_expired"
	// EventFinished: one execution of the job ends.
	EventFinished EventKind = "finished"
	// EventCommitted: the producer's database transaction commits.
	EventCommitted EventKind = "committed"
	// EventPublished: an event is handed to the broker.
	EventPublished EventKind = "published"
	// EventMarkedSent: the outbox relay records that a row's event went out.
	EventMarkedSent EventKind = "marked_sent"
)

// EventKinds returns the whole vocabulary, in the order the constants are documented; the slice is
// the caller's own.
func EventKinds() []EventKind {
	return []EventKind{EventDelivered, EventCrashed, EventAcked, EventApplied, EventRedeliveryScheduled,
		EventRedelivered, EventDedupHit, EventDedupMiss, EventKeyWritten, EventKeyLost, EventEvicted,
		EventStarted, EventRenewed, EventHeartbeatLost, EventHeartbeatLate, EventLeaseExpired,
		EventFinished, EventCommitted, EventPublished, EventMarkedSent}
}

// Event is one step of a job's life in a run: when (in the trace's StepUnit), what, and a sentence.
type Event struct {
	Step   float64   `json:"step"`
	Kind   EventKind `json:"kind"`
	Detail string    `json:"detail"`
}

// Trace is the life of one job at one point of an experiment's chart. Outcome is what happened to
// it there, one of the experiment's Outcomes or a word for the jobs no count lists (exactly_once,
// delivered_once, once); StepUnit says what a Step counts: "job" where steps are positions in the
// stream, "s" for the lease's seconds, "step" for the outbox's producer and relay steps.
type Trace struct {
	ID       int64   `json:"id"`
	Outcome  string  `json:"outcome"`
	Point    string  `json:"point"`
	At       Point   `json:"-"` // the point's values, as Count.At
	StepUnit string  `json:"step_unit"`
	Events   []Event `json:"events"`
}

// JobList is every job with one outcome at one point, in id order; Total is len(IDs), given so
// that a reader of the first lines of a long answer knows how long it is.
type JobList struct {
	Outcome string  `json:"outcome"`
	Point   string  `json:"point"`
	At      Point   `json:"-"` // the point's values, as Count.At
	Total   int64   `json:"total"`
	IDs     []int64 `json:"ids"`
}

// tracer is what makes one experiment traceable. Runs are replayed by code of its own, apart from
// the experiment's counting loops, so that those stay as fast as they are; the tests hold the two
// to the same numbers.
type tracer struct {
	// params is the Params type the functions take: the definition that registers the tracer
	// checks it against its own.
	params reflect.Type
	unit   string
	// outcomes are the names Jobs accepts; the first ones are count names of Counts.
	outcomes []string
	// points are a run's chart points as Counts makes them, in the result's order.
	points func(p any) []pointAt
	// ids is how many job ids a run has: they are 0..ids-1.
	ids func(p any) int64
	// classify replays the run at the point with index pt and calls found for every job with
	// the outcome, in id order.
	classify func(ctx context.Context, p any, pt int, outcome string, found func(id int64)) error
	// trace replays the run at pt for one job; outcome picks the view where it matters.
	trace func(ctx context.Context, p any, pt int, outcome string, id int64) (string, []Event, error)
}

// typedTracer builds a tracer from functions on the experiment's own Params type.
func typedTracer[P any](unit string, outcomes []string, points func(P) []pointAt, ids func(P) int64,
	classify func(context.Context, P, int, string, func(int64)) error,
	trace func(context.Context, P, int, string, int64) (string, []Event, error)) *tracer {
	return &tracer{
		params: reflect.TypeFor[P](), unit: unit, outcomes: outcomes,
		points: func(p any) []pointAt { return points(p.(P)) },
		ids:    func(p any) int64 { return ids(p.(P)) },
		classify: func(ctx context.Context, p any, pt int, o string, found func(int64)) error {
			return classify(ctx, p.(P), pt, o, found)
		},
		trace: func(ctx context.Context, p any, pt int, o string, id int64) (string, []Event, error) {
			return trace(ctx, p.(P), pt, o, id)
		},
	}
}

// Traceable reports whether the experiment can list the jobs behind its counts and trace them.
func (e *Experiment) Traceable() bool { return e.tracer != nil }

// NoJobsReason says why an experiment that is not Traceable has no jobs to list.
func (e *Experiment) NoJobsReason() string {
	return e.Name + " has no per-job outcomes: " + e.noJobs
}

// Outcomes returns the outcomes Jobs accepts, count names first (nil when not Traceable).
func (e *Experiment) Outcomes() []string {
	if t := e.tracer; t != nil {
		return slices.Clone(t.outcomes)
	}
	return nil
}

// Points returns the chart points of a run on params, as Counts names them; Jobs and Trace take
// one of them (nil when not Traceable).
func (e *Experiment) Points(params any) []string {
	if t := e.tracer; t != nil {
		return labels(t.points(params))
	}
	return nil
}

// labels are the labels of points.
func labels(points []pointAt) []string {
	out := make([]string, len(points))
	for i, p := range points {
		out[i] = p.label
	}
	return out
}

// StepUnit says what the steps of the experiment's traces count ("" when not Traceable).
func (e *Experiment) StepUnit() string {
	if t := e.tracer; t != nil {
		return t.unit
	}
	return ""
}

// pick checks the outcome and the point, returning the point's index. An empty point is the
// first point, so that a run with one point needs none.
func (e *Experiment) pick(params any, outcome, point string, outcomeRequired bool) (*tracer, int, pointAt, error) {
	t := e.tracer
	if t == nil {
		return nil, 0, pointAt{}, FieldErrors{{Field: "outcome", Message: e.NoJobsReason()}}
	}
	var errs FieldErrors
	if outcome == "" && outcomeRequired {
		errs = append(errs, FieldError{"outcome", "is missing; it must be one of " + strings.Join(t.outcomes, ", ")})
	} else if outcome != "" && !slices.Contains(t.outcomes, outcome) {
		errs = append(errs, FieldError{"outcome", fmt.Sprintf("%q is not an outcome of %s; it must be one of %s",
			Clip(outcome, 40), e.Name, strings.Join(t.outcomes, ", "))})
	}
	points := labels(t.points(params))
	pt := 0
	if point != "" {
		pt = slices.Index(points, point)
		if pt < 0 {
			errs = append(errs, FieldError{"point", fmt.Sprintf("%q is not a point of this run; it must be one of %s",
				Clip(point, 40), strings.Join(points, ", "))})
		}
	}
	if len(errs) > 0 {
		return nil, 0, pointAt{}, errs
	}
	if len(points) == 0 {
		return nil, 0, pointAt{}, FieldErrors{{Field: "point", Message: "this run has no points to trace"}}
	}
	return t, pt, t.points(params)[pt], nil
}

// Jobs lists every job with the outcome at the point (the first point when point is ""), in id
// order, replaying the run on params (from Parse or Defaults). A bad outcome or point is a
// FieldErrors naming the field and the values it accepts.
func (e *Experiment) Jobs(ctx context.Context, params any, outcome, point string) (JobList, error) {
	t, pt, at, err := e.pick(params, outcome, point, true)
	if err != nil {
		return JobList{}, err
	}
	list := JobList{Outcome: outcome, Point: at.label, At: at.Point, IDs: []int64{}}
	if err := t.classify(ctx, params, pt, outcome, func(id int64) { list.IDs = append(list.IDs, id) }); err != nil {
		return JobList{}, fmt.Errorf("%s jobs at %s: %w", e.Name, at.label, err)
	}
	list.Total = int64(len(list.IDs))
	return list, nil
}

// Trace replays the run on params for job id (its text, as a URL or a flag carries it) at the
// point (the first when ""). outcome may be "", or one of Outcomes: where the experiment's counts
// at a point are different designs or policies over the same jobs (crash-sweep, lease), it picks
// the one whose story is told; elsewhere it changes nothing. Bad input is a FieldErrors naming
// id, outcome or point.
func (e *Experiment) Trace(ctx context.Context, params any, point, id, outcome string) (Trace, error) {
	t, pt, at, err := e.pick(params, outcome, point, false)
	if err != nil {
		return Trace{}, err
	}
	n := t.ids(params)
	j, perr := strconv.ParseInt(strings.TrimSpace(id), 10, 64)
	if perr != nil || j < 0 || j >= n {
		return Trace{}, FieldErrors{{Field: "id", Message: fmt.Sprintf("%q is not a job of this run; it must be a whole number from 0 to %s",
			Clip(id, 24), Thousands(n-1))}}
	}
	got, events, err := t.trace(ctx, params, pt, outcome, j)
	if err != nil {
		return Trace{}, fmt.Errorf("%s trace of job %d at %s: %w", e.Name, j, at.label, err)
	}
	return Trace{ID: j, Outcome: got, Point: at.label, At: at.Point, StepUnit: t.unit, Events: events}, nil
}

// IDCount is how many job ids a run on params has (0 when not Traceable): ids run from 0 to
// IDCount-1.
func (e *Experiment) IDCount(params any) int64 {
	if t := e.tracer; t != nil {
		return t.ids(params)
	}
	return 0
}

// recorder collects one job's events. Stream designs build their details from fixed sentences, so
// classifying a whole stream through the same code as a trace costs no allocation per job.
type recorder struct {
	events []Event
}

func (r *recorder) add(step float64, kind EventKind, detail string) {
	r.events = append(r.events, Event{Step: step, Kind: kind, Detail: detail})
}

// applied counts the job's applications so far: the outcome of a stream design is read off it.
func (r *recorder) applied() int {
	n := 0
	for _, e := range r.events {
		if e.Kind == EventApplied {
			n++
		}
	}
	return n
}

// byApplications names the outcome of a job applied n times.
func byApplications(n int) string {
	switch n {
	case 0:
		return "lost"
	case 1:
		return "exactly_once"
	}
	return "duplicated"
}

// cancelled looks at the context every ctxEvery jobs of a replay loop, as the runs do.
func cancelled(ctx context.Context, i int64) error {
	if i%ctxEvery == 0 {
		return ctx.Err()
	}
	return nil
}
