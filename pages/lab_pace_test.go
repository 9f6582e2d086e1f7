package pages

import (
	"strings"
	"testing"
	"time"
)

// TestLabPaced checks a progress box's pace: the lab's own (LabEvery) by default, a study room's
// slower one when paced, carried in the box's progress address so that the next poll's answer
// keeps it, never faster than the lab's; a box that asks at once (sent by a room's stream) asks
// on load too; and no polling once the run has ended.
func TestLabPaced(t *testing.T) {
	draw := func(s LabStatus) string {
		var b strings.Builder
		if err := LabProgress(s).Render(t.Context(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	run := LabStatus{ID: "run-1", Running: true, Yours: true, ProgressURL: "/base/lab/progress", CancelURL: "/base/lab/cancel", Count: 1}
	for _, c := range []struct {
		name        string
		s           LabStatus
		trigger, at string
	}{
		{"the lab's own", run, `hx-trigger="every 300ms"`, `hx-get="/base/lab/progress"`},
		{"a room's", LabPaced(run, time.Second), `hx-trigger="every 1000ms"`, `hx-get="/base/lab/progress?every=1s"`},
		{"too fast", LabPaced(run, 10*time.Millisecond), `hx-trigger="every 300ms"`, `hx-get="/base/lab/progress?every=300ms"`},
		{"paced twice", LabPaced(LabPaced(run, time.Second), 2*time.Second), `hx-trigger="every 2000ms"`, `hx-get="/base/lab/progress?every=2s"`},
		{"a stream's", func() LabStatus { s := LabPaced(run, time.Second); s.AskAtOnce = true; return s }(),
			`hx-trigger="load, every 1000ms"`, `hx-get="/base/lab/progress?every=1s"`},
	} {
		box := draw(c.s)
		if !strings.Contains(box, c.trigger) || !strings.Contains(box, c.at) {
			t.Errorf("%s pace: want %s and %s in\n%s", c.name, c.trigger, c.at, box)
		}
		if !strings.Contains(box, ">Cancel</button>") {
			t.Errorf("%s pace: the owner's box lost Cancel", c.name)
		}
	}
	ended := LabPaced(run, time.Second)
	ended.Running, ended.Ended = false, "Finished."
	if box := draw(ended); strings.Contains(box, "hx-trigger") {
		t.Errorf("an ended run's box still polls: %s", box)
	}
}
