package experiments

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// traceCases are the runs the trace tests replay: every traceable experiment at its defaults, and
// at small streams and other settings where every listed job can be traced.
var traceCases = []struct {
	experiment string
	query      map[string][]string
}{
	{"assembly", nil},
	{"assembly", map[string][]string{"jobs": {"500"}, "crash_rate": {"0.2"}, "seed": {"3"}}},
	{"keys", nil},
	{"keys", map[string][]string{"jobs": {"400"}, "crash_rate": {"0.3"}}},
	{"orderings", nil},
	{"orderings", map[string][]string{"jobs": {"300"}, "crash_rate": {"0.5"}, "seed": {"8"}}},
	{"crash-sweep", nil},
	{"crash-sweep", map[string][]string{"jobs": {"700"}, "crash_rates": {"0.3,0.01,0.5"}}},
	{"window", nil},
	{"window", map[string][]string{"jobs": {"600"}, "crash_rate": {"0.2"}, "max_delay": {"150"}, "windows": {"5,20,60,400"}}},
	{"window-grid", nil},
	{"window-grid", map[string][]string{"jobs": {"500"}, "crash_rate": {"0.25"}, "windows": {"10,50"}, "max_delays": {"30,900"}}},
	{"lease", nil},
	{"lease", map[string][]string{"jobs": {"300"}, "heartbeat_loss": {"0.4"}, "timeouts": {"2,5,30"}}},
	{"lease", map[string][]string{"jobs": {"400"}, "heartbeat_loss": {"0.2"}, "slow_fraction": {"0.3"}, "loss_seed": {"5"}}},
	{"outbox", nil},
	{"outbox", map[string][]string{"events": {"800"}, "crash_rate": {"0.3"}, "seed": {"4"}}},
}

// sample picks at most n ids spread over the list, first and last included: at the defaults a
// list can hold every job, and each trace replays the stream up to its job.
func sample(ids []int64, n int) []int64 {
	if len(ids) <= n {
		return ids
	}
	out := make([]int64, 0, n)
	for i := range n {
		out = append(out, ids[i*(len(ids)-1)/(n-1)])
	}
	return out
}

// TestJobsAgreeWithCounts lists the jobs behind every count of Counts that Outcomes names, at
// every point, and checks that there are as many as the run counted (for the outbox, that their
// extra applications add up to the count); then traces the listed jobs (all of them on small
// streams, a sample at the defaults) and checks that each trace has the listed outcome, is in
// step order and tells the story the outcome stands for.
func TestJobsAgreeWithCounts(t *testing.T) {
	ctx := context.Background()
	for _, tc := range traceCases {
		e, _ := Lookup(tc.experiment)
		name := tc.experiment
		if tc.query != nil {
			name += "/small"
		}
		t.Run(name, func(t *testing.T) {
			p, err := e.Parse(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Run(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			perTrace := 1 << 20
			if tc.query == nil {
				perTrace = 25
			}
			checked := 0
			for _, c := range e.Counts(res) {
				if !slices.Contains(e.Outcomes(), c.Name) {
					continue
				}
				list, err := e.Jobs(ctx, p, c.Name, c.Point)
				if err != nil {
					t.Fatalf("%s at %s: %v", c.Name, c.Point, err)
				}
				if list.Total != int64(len(list.IDs)) || !slices.IsSorted(list.IDs) {
					t.Fatalf("%s at %s: total %d for %d ids, sorted %v", c.Name, c.Point, list.Total, len(list.IDs), slices.IsSorted(list.IDs))
				}
				if c.Name == "duplicate_applications" {
					// Every listed event must be traced to add up its extra applications.
					extra := 0
					for _, id := range list.IDs {
						tr := mustTrace(t, e, p, c.Point, id, c.Name)
						extra += countKind(tr.Events, EventApplied) - 1
					}
					if float64(extra) != c.Value {
						t.Errorf("%s at %s: the listed events' extra applications add up to %d, the run counted %v", c.Name, c.Point, extra, c.Value)
					}
					checked += len(list.IDs)
					continue
				}
				if float64(list.Total) != c.Value {
					t.Errorf("%s at %s: %d jobs listed, the run counted %v", c.Name, c.Point, list.Total, c.Value)
				}
				for _, id := range sample(list.IDs, perTrace) {
					tr := mustTrace(t, e, p, c.Point, id, c.Name)
					explains(t, tr, c.Name)
					checked++
				}
			}
			if checked == 0 {
				t.Fatal("no job was traced: the case exercises nothing")
			}
		})
	}
}

// TestOutcomesPartitionJobs checks, for the outcomes beyond the counts (caught, delivered_once,
// exactly_once, once...), that the lists of an experiment whose outcomes are exclusive cover every
// job exactly once, and traces a sample of each.
func TestOutcomesPartitionJobs(t *testing.T) {
	ctx := context.Background()
	exclusive := map[string][]string{
		"assembly":  {"lost", "exactly_once", "duplicated"},
		"keys":      {"duplicated", "caught", "delivered_once"},
		"orderings": {"lost", "duplicated", "exactly_once"},
		"window":    windowOutcomes, "window-grid": windowOutcomes,
		"outbox": outboxOutcomes,
		"lease":  {"no_renewal", "once"},
	}
	for _, tc := range traceCases {
		outcomes, ok := exclusive[tc.experiment]
		if !ok || tc.query == nil {
			continue
		}
		e, _ := Lookup(tc.experiment)
		t.Run(tc.experiment, func(t *testing.T) {
			p, err := e.Parse(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			for _, point := range e.Points(p) {
				seen := make([]int, e.IDCount(p))
				for _, o := range outcomes {
					list, err := e.Jobs(ctx, p, o, point)
					if err != nil {
						t.Fatal(err)
					}
					for _, id := range list.IDs {
						seen[id]++
					}
					for _, id := range sample(list.IDs, 5) {
						explains(t, mustTrace(t, e, p, point, id, o), o)
					}
				}
				for id, n := range seen {
					if n != 1 {
						t.Fatalf("at %s job %d is listed under %d outcomes", point, id, n)
					}
				}
			}
		})
	}
}

func mustTrace(t *testing.T, e *Experiment, p any, point string, id int64, outcome string) Trace {
	t.Helper()
	tr, err := e.Trace(context.Background(), p, point, strconv.FormatInt(id, 10), outcome)
	if err != nil {
		t.Fatalf("trace of %d at %s: %v", id, point, err)
	}
	if tr.Outcome != outcome {
		t.Fatalf("%s job %d at %s is listed as %s, its trace says %s: %+v", e.Name, id, point, outcome, tr.Outcome, tr.Events)
	}
	if tr.ID != id || tr.Point != point || tr.StepUnit == "" {
		t.Fatalf("trace of %d at %s came back as %d at %s, unit %q", id, point, tr.ID, tr.Point, tr.StepUnit)
	}
	for i, ev := range tr.Events {
		if ev.Detail == "" || !slices.Contains(EventKinds(), ev.Kind) {
			t.Fatalf("job %d event %d: kind %q, detail %q", id, i, ev.Kind, ev.Detail)
		}
		if i > 0 && ev.Step < tr.Events[i-1].Step {
			t.Fatalf("job %d: events out of step order: %+v", id, tr.Events)
		}
	}
	return tr
}

func countKind(ev []Event, k EventKind) int {
	n := 0
	for _, e := range ev {
		if e.Kind == k {
			n++
		}
	}
	return n
}

// first returns the index of the first event of kind k, or -1.
func first(ev []Event, k EventKind) int {
	return slices.IndexFunc(ev, func(e Event) bool { return e.Kind == k })
}

// explains checks that a trace tells the story its outcome stands for.
func explains(t *testing.T, tr Trace, outcome string) {
	t.Helper()
	ev := tr.Events
	applied, finished := countKind(ev, EventApplied), countKind(ev, EventFinished)
	fail := func(why string) { t.Fatalf("job %d (%s at %s): %s: %+v", tr.ID, outcome, tr.Point, why, ev) }
	if first(ev, EventDelivered) != 0 && first(ev, EventStarted) != 0 && tr.StepUnit != "step" {
		fail("the story does not open with the first delivery")
	}
	switch outcome {
	case "escaped":
		ev1, re := first(ev, EventEvicted), first(ev, EventRedelivered)
		if ev1 < 0 || re < 0 || ev1 > re || applied != 2 || first(ev, EventCrashed) < 0 || first(ev, EventRedeliveryScheduled) < 0 {
			fail("an escaped job is delivered, crashes, is evicted, then redelivered and applied twice")
		}
		if countKind(ev[re:], EventDedupMiss) != 1 {
			fail("an escaped redelivery misses the window")
		}
	case "caught":
		re, hit := first(ev, EventRedelivered), first(ev, EventDedupHit)
		if re < 0 || hit < re || applied != 1 || (first(ev, EventEvicted) >= 0 && first(ev, EventEvicted) < re) {
			fail("a caught job is redelivered, found by the dedup check and applied once")
		}
	case "lost":
		if applied != 0 {
			fail("a lost job is never applied")
		}
		if tr.StepUnit == "step" && (first(ev, EventCommitted) < 0 || first(ev, EventPublished) >= 0) {
			fail("a lost event is committed and never published")
		}
	case "duplicated", "ack_after_duplicated":
		if applied != 2 || first(ev, EventCrashed) < 0 || first(ev, EventRedelivered) < first(ev, EventCrashed) {
			fail("a duplicated job crashes, is redelivered, and is applied twice")
		}
	case "exactly_once":
		if applied != 1 {
			fail("an exactly-once job is applied once")
		}
	case "delivered_once":
		if applied != 1 || first(ev, EventRedelivered) >= 0 || first(ev, EventCrashed) >= 0 {
			fail("a job delivered once is applied once and never crashes")
		}
	case "no_renewal", "renew_third", "renew_double", "renew_double_real":
		exp := first(ev, EventLeaseExpired)
		// The lease expires before worker 1 reports the job done: before its work ends, or, in the
		// document's renew-at-2t model, before the heartbeat tick that carries the report.
		reported := first(ev, EventFinished)
		if reported < exp && outcome == "renew_double" {
			reported = slices.IndexFunc(ev[exp:], func(e Event) bool { return e.Kind == EventHeartbeatLate }) + exp
		}
		if exp < 0 || finished != 2 || reported < exp || first(ev, EventRedelivered) < exp {
			fail("a doubled job's lease expires before it reports done, and it is executed twice")
		}
		if outcome == "renew_third" && first(ev, EventHeartbeatLost) < 0 {
			fail("renewing every third of the lease lapses only when heartbeats are lost")
		}
	case "once":
		if finished != 1 || first(ev, EventLeaseExpired) >= 0 {
			fail("a job run once finishes once, within its lease")
		}
	case "phantom":
		if first(ev, EventPublished) < 0 || first(ev, EventCommitted) >= 0 {
			fail("a phantom event is published for a row that never commits")
		}
	case "duplicate_applications":
		if applied < 2 || countKind(ev, EventPublished) < 2 {
			fail("an event applied more than once was published more than once")
		}
	case "failed_cleanly":
		if len(ev) != 1 || ev[0].Kind != EventCrashed {
			fail("an event whose first write crashed leaves nothing behind")
		}
	default:
		fail("no rule for this outcome")
	}
}

// TestTraceRefusesBadInput checks that a bad outcome, point or id is a FieldErrors naming the
// field and listing what it accepts, and that the verifier and the scale have no jobs.
func TestTraceRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	w, _ := Lookup("window")
	p := w.Defaults()
	cases := []struct {
		name, field, want string
		err               func() error
	}{
		{"outcome", "outcome", "escaped, caught", func() error { _, err := w.Jobs(ctx, p, "vanished", "1000"); return err }},
		{"no outcome", "outcome", "escaped", func() error { _, err := w.Jobs(ctx, p, "", "1000"); return err }},
		{"point", "point", "100, 500, 1000", func() error { _, err := w.Jobs(ctx, p, "escaped", "999"); return err }},
		{"id", "id", "19,999", func() error { _, err := w.Trace(ctx, p, "1000", "20000", ""); return err }},
		{"id text", "id", "0 to", func() error { _, err := w.Trace(ctx, p, "1000", "12a", ""); return err }},
	}
	for _, name := range []string{"claims", "scale"} {
		e, _ := Lookup(name)
		if e.Traceable() || e.Outcomes() != nil {
			t.Errorf("%s claims to be traceable", name)
		}
		cases = append(cases, struct {
			name, field, want string
			err               func() error
		}{name, "outcome", "no per-job outcomes", func() error { _, err := e.Jobs(ctx, e.Defaults(), "lost", ""); return err }})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var fe FieldErrors
			if err := c.err(); !errors.As(err, &fe) {
				t.Fatalf("got %v, want FieldErrors", err)
			}
			if msg := fe.For(c.field); msg == "" || !strings.Contains(msg, c.want) {
				t.Fatalf("error for %s is %q, want it to mention %q (all: %v)", c.field, msg, c.want, fe)
			}
		})
	}
}

// TestWindowTraceAtDefaults pins the first escaped job at window 1,000 to the story block 4
// tells: its delay comes from the delay seed, and its eviction happens between its first
// delivery and its redelivery.
func TestWindowTraceAtDefaults(t *testing.T) {
	w, _ := Lookup("window")
	p := w.Defaults()
	list, err := w.Jobs(context.Background(), p, "escaped", "1000")
	if err != nil || list.Total == 0 {
		t.Fatalf("no escaped jobs at window 1000: %v", err)
	}
	tr := mustTrace(t, w, p, "1000", list.IDs[0], "escaped")
	kinds := make([]EventKind, len(tr.Events))
	for i, e := range tr.Events {
		kinds[i] = e.Kind
	}
	want := []EventKind{EventDelivered, EventDedupMiss, EventApplied, EventKeyWritten, EventCrashed,
		EventRedeliveryScheduled, EventEvicted, EventRedelivered, EventDedupMiss, EventApplied, EventKeyWritten, EventAcked}
	if !slices.Equal(kinds, want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	ev, re := tr.Events[6], tr.Events[7]
	if ev.Step <= float64(tr.ID) || re.Step < ev.Step {
		t.Fatalf("evicted at %v and redelivered at %v for job %d", ev.Step, re.Step, tr.ID)
	}
}

// BenchmarkJobsWindow lists the escaped jobs at window 1,000 and traces the first, at the
// defaults: what one "which jobs?" click and one timeline cost the server.
func BenchmarkJobsWindow(b *testing.B) {
	w, _ := Lookup("window")
	p := w.Defaults()
	ctx := context.Background()
	for b.Loop() {
		list, err := w.Jobs(ctx, p, "escaped", "1000")
		if err != nil || list.Total == 0 {
			b.Fatal(err)
		}
		if _, err := w.Trace(ctx, p, "1000", strconv.FormatInt(list.IDs[0], 10), ""); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEveryJobCountIsTraceable checks that every experiment but the verifier and the scale can
// list its jobs, that its points are the points of its counts, and that every count that names
// jobs (lost, duplicated, escaped, a lease policy, phantom...) is one of its outcomes.
func TestEveryJobCountIsTraceable(t *testing.T) {
	// Errors raised count exceptions, which the crash sweep never raises, not jobs.
	notJobs := map[string]bool{"errors": true}
	for _, e := range All() {
		if e.Name == "claims" || e.Name == "scale" || e.Name == "window-time" {
			continue
		}
		if !e.Traceable() {
			t.Errorf("%s has job counts but no traces", e.Name)
			continue
		}
		res, err := e.Run(context.Background(), e.Defaults())
		if err != nil {
			t.Fatal(err)
		}
		points := e.Points(e.Defaults())
		for _, c := range e.Counts(res) {
			if !slices.Contains(points, c.Point) {
				t.Errorf("%s: count point %q is not among the trace points %v", e.Name, c.Point, points)
			}
			if !notJobs[c.Name] && !slices.Contains(e.Outcomes(), c.Name) {
				t.Errorf("%s: count %q has no outcome to list its jobs", e.Name, c.Name)
			}
		}
	}
}
