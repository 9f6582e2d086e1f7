package pages

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"effectivelyonce/lab"
)

// TestLabResultRowsHandler checks the table of a reader's handler run: workers killed and the
// event counts beside the workbench's, any row that differs (even one MatchesModel does not
// weigh) marking the whole table, and a handler that calls work() stating its lease tolerance
// with no block 6 to link to.
func TestLabResultRowsHandler(t *testing.T) {
	ev, mev := lab.EventCounts{Lost: 3}, lab.EventCounts{Lost: 3}
	r := lab.Result{Design: lab.DesignHandler, Jobs: 400, ExactlyOnce: 400, WorkersKilled: 20, CrashRate: 0.05, Seed: 13,
		Handler: &lab.HandlerResult{CrashPoint: 2, Label: "dies after `queue.ack()`", ModelExactlyOnce: 400, ModelCrashed: 20, Events: &ev, ModelEvents: &mev}}
	v := NewLabResult(r, Site{})
	var names []string
	for _, row := range v.Rows {
		names = append(names, row.Name)
	}
	if got := strings.Join(names, ","); got != "Lost,Duplicated,Exactly once,Workers killed,Events lost,Phantom events,Duplicated events" || !v.Matches || !v.Handler {
		t.Errorf("rows %s, matches %v", got, v.Matches)
	}
	r.WorkersKilled = 21
	if v := NewLabResult(r, Site{}); v.Matches || !v.Rows[3].Differs {
		t.Errorf("one worker killed more than the model's, and the table says %+v", v.Rows[3])
	}
	r.WorkersKilled, r.Handler.LeaseTime, r.Tolerance, r.Duplicated, r.ExactlyOnce = 20, true, 2, 1, 399
	v = NewLabResult(r, Site{})
	var buf bytes.Buffer
	if err := labResult(v).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if !v.Matches || !v.Rows[1].Within || !strings.Contains(buf.String(), "2 jobs end within 5 ms of their lease") || strings.Contains(buf.String(), "block 6") {
		t.Errorf("a work() handler within its tolerance: %+v\n%s", v.Rows, buf.String())
	}
}
