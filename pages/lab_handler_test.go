package pages

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"effectivelyonce/lab"
)

// TestLabResultRowsHandler checks the table of a reader's handler run: the deliveries killed at
// the crash point and the event counts beside the workbench's, any row that differs marking the
// whole table (the lab's own verdict, which the command line's exit status reads too), and a
// handler that calls work() stating its lease tolerance with no block 6 to link to.
func TestLabResultRowsHandler(t *testing.T) {
	ev, mev := lab.EventCounts{Lost: 3}, lab.EventCounts{Lost: 3}
	r := lab.Result{Design: lab.DesignHandler, Jobs: 400, ExactlyOnce: 400, WorkersKilled: 20, KilledDeliveries: 20, CrashRate: 0.05, Seed: 13,
		Handler: &lab.HandlerResult{CrashPoint: 2, Label: "dies after `queue.ack()`", ModelExactlyOnce: 400, ModelCrashed: 20, Events: &ev, ModelEvents: &mev}}
	v := NewLabResult(r, Site{})
	var names []string
	for _, row := range v.Rows {
		names = append(names, row.Name)
	}
	if got := strings.Join(names, ","); got != "Lost,Duplicated,Exactly once,Killed at the crash point,Events lost,Phantom events,Duplicated events" || !v.Matches || !v.Handler {
		t.Errorf("rows %s, matches %v", got, v.Matches)
	}
	r.KilledDeliveries = 21
	if v := NewLabResult(r, Site{}); v.Matches || !v.Rows[3].Differs || r.MatchesModel() {
		t.Errorf("one delivery killed more than the model's, and the table says %+v", v.Rows[3])
	}
	r.KilledDeliveries, r.Handler.LeaseTime, r.Tolerance, r.Duplicated, r.ExactlyOnce = 20, true, 2, 1, 399
	v = NewLabResult(r, Site{})
	var buf bytes.Buffer
	if err := labResult(v).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if !v.Matches || !v.Rows[1].Within || !strings.Contains(buf.String(), "2 jobs end within 5 ms of their lease") || strings.Contains(buf.String(), "block 6") {
		t.Errorf("a work() handler within its tolerance: %+v\n%s", v.Rows, buf.String())
	}
	// A busy machine acked 3 deliveries past their lease: said apart from the lease's edge, and
	// the 3 extra duplicates they may make stay within the tolerance.
	r.SlowAcks, r.Tolerance, r.Duplicated, r.ExactlyOnce = 3, 5, 4, 396
	v = NewLabResult(r, Site{})
	buf.Reset()
	if err := labResult(v).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if !v.Matches || !strings.Contains(buf.String(), "3 deliveries were acked at or past the lease") || !strings.Contains(buf.String(), "2 jobs end within 5 ms of their lease") {
		t.Errorf("a run with slow acks: matches %v\n%s", v.Matches, buf.String())
	}
}

// TestLabResultReplayedHandler: a handler with a key window states that its model was replayed at
// the delays the lab measured, what the drawn delays said, and marks a row off by no more than its
// jobs near the window's edge as near that edge.
func TestLabResultReplayedHandler(t *testing.T) {
	r := lab.Result{Design: lab.DesignHandler, Jobs: 1000, Duplicated: 44, ExactlyOnce: 956, ModelDuplicated: 45, WorkersKilled: 47, KilledDeliveries: 47,
		Tolerance: 1, Handler: &lab.HandlerResult{CrashPoint: 4, ModelExactlyOnce: 955, ModelCrashed: 47, Replayed: true, NearEdge: 1,
			Drawn: &lab.DrawnCounts{Duplicated: 47, ExactlyOnce: 953}}}
	v := NewLabResult(r, Site{})
	var buf bytes.Buffer
	if err := labResult(v).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	for _, want := range []string{"replayed at the delays the lab measured", "the model said 0 lost and 47 duplicated",
		"Off by -1, near the key window&#39;s edge", "1 job was redelivered within a few deliveries of the key window"} {
		if !strings.Contains(html, want) {
			t.Errorf("the table lacks %q:\n%s", want, html)
		}
	}
	if !v.Matches || !v.Rows[1].Within {
		t.Errorf("within the window's edge, and the table says %+v", v.Rows)
	}
	r.Duplicated, r.ExactlyOnce = 43, 957
	if v := NewLabResult(r, Site{}); v.Matches || !v.Rows[1].Differs {
		t.Errorf("two off with one job near the edge, and the table says %+v", v.Rows)
	}
}
