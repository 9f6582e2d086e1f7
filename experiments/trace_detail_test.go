package experiments

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// workOf reads the work duration a lease trace's opening sentence states.
var workOf = regexp.MustCompile(`whose work lasts ([0-9.]+) s`)

// TestLeaseDetailsAgreeWithSteps reads the numbers a lease timeline's sentences state and holds
// them to its event steps, for every policy, with and without heartbeat loss: no execution
// finishes before its work is done, "still busy" is said only when the work outlasts the expiry,
// and worker 2's finish is its start (the expiry) plus the same work. A story that says a job's
// work lasts 4.769 s and then that its worker is still busy at 30 s fails here.
func TestLeaseDetailsAgreeWithSteps(t *testing.T) {
	e, _ := Lookup("lease")
	ctx := context.Background()
	for _, q := range []map[string][]string{
		nil,
		{"jobs": {"300"}, "heartbeat_loss": {"0.4"}, "timeouts": {"2,5,30"}},
		{"jobs": {"400"}, "heartbeat_loss": {"0.2"}, "slow_fraction": {"0.3"}, "loss_seed": {"5"}},
	} {
		p, err := e.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, point := range e.Points(p) {
			for _, outcome := range leaseOutcomes {
				list, err := e.Jobs(ctx, p, outcome, point)
				if err != nil {
					t.Fatal(err)
				}
				for _, id := range sample(list.IDs, 6) {
					checkLeaseStory(t, mustTrace(t, e, p, point, id, outcome), outcome)
				}
			}
		}
	}
}

func checkLeaseStory(t *testing.T, tr Trace, outcome string) {
	t.Helper()
	fail := func(why string) { t.Fatalf("job %d (%s at %s s): %s: %+v", tr.ID, outcome, tr.Point, why, tr.Events) }
	m := workOf.FindStringSubmatch(tr.Events[0].Detail)
	if m == nil {
		fail("the opening sentence states no work duration")
	}
	work, _ := strconv.ParseFloat(m[1], 64)
	const ms = 0.0005 // the sentences round to the millisecond
	expiry := -1.0
	for _, ev := range tr.Events {
		if ev.Kind == EventLeaseExpired {
			expiry = ev.Step
			busy := strings.Contains(ev.Detail, "still busy")
			if busy != (work > ev.Step) {
				fail("the expiry says the worker is still busy exactly when its work lasts past it")
			}
		}
	}
	for _, ev := range tr.Events {
		if ev.Kind != EventFinished {
			continue
		}
		if ev.Step+ms < work {
			fail("an execution finishes before its work is done")
		}
		if !strings.Contains(ev.Detail, seconds(ev.Step)+" s") {
			fail("a finish does not say the time it is drawn at")
		}
		if strings.HasPrefix(ev.Detail, "Worker 2") && (expiry < 0 || abs(ev.Step-(expiry+work)) > ms) {
			fail("worker 2 starts at the expiry and finishes the same work later")
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// stepNumber reads "at step 1,085" out of a sentence.
var stepNumber = regexp.MustCompile(`at step ([0-9,]+)`)

// TestWindowDelayToldOnce checks that a crashed job's scheduled redelivery names one gap and one
// step, that the step is where the redelivery is drawn, and that the gap is that step minus the
// job's own: one delay, one story, not three numbers to reconcile.
func TestWindowDelayToldOnce(t *testing.T) {
	w, _ := Lookup("window")
	p := w.Defaults()
	for _, outcome := range []string{"escaped", "caught"} {
		list, err := w.Jobs(context.Background(), p, outcome, "1000")
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range sample(list.IDs, 8) {
			tr := mustTrace(t, w, p, "1000", id, outcome)
			sched, re := tr.Events[first(tr.Events, EventRedeliveryScheduled)], tr.Events[first(tr.Events, EventRedelivered)]
			m := stepNumber.FindStringSubmatch(sched.Detail)
			if m == nil || m[1] != Thousands(int64(re.Step)) {
				t.Fatalf("job %d: %q names no step, or not the redelivery's %v", id, sched.Detail, re.Step)
			}
			if gap := Thousands(int64(re.Step) - id); int64(re.Step) < p.(WindowParams).Jobs && !strings.Contains(sched.Detail, gap+" jobs later") {
				t.Fatalf("job %d: %q does not say it comes back %s jobs later", id, sched.Detail, gap)
			}
			if strings.Contains(sched.Detail, "delay of") || strings.Contains(re.Detail, "jobs after") {
				t.Fatalf("job %d tells its delay with a second number: %q / %q", id, sched.Detail, re.Detail)
			}
		}
	}
}
