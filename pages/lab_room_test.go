package pages

import (
	"strings"
	"testing"
)

// TestLabInRoom checks the lab box in a study room: whose run it says (the host's to members, the
// host's own to the host, even drawn without the owner's cookie), who can cancel it, that the
// room's words ride in the progress address, and the bar's summary line: how far, then how it
// ended.
func TestLabInRoom(t *testing.T) {
	draw := func(s LabStatus) string {
		var b strings.Builder
		if err := LabAnswer(s).Render(t.Context(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	run := LabStatus{ID: "run-1", Running: true, ProgressURL: "/lab/progress?every=1s", CancelURL: "/lab/cancel", Count: 2, Index: 2, Jobs: 300, Done: 150, Left: "4 s"}
	for _, c := range []struct {
		name  string
		s     LabStatus
		wants []string
	}{
		{"outside a room", run, []string{"Someone else&#39;s run", "Only the browser that started it"}},
		{"a member's bar", LabInRoom(run, false, true), []string{"The host&#39;s run", "Only the host can cancel it.", "room=member", "bar=1",
			`hx-target="previous .roombar-lab-state"`, "design 2 of 2, 150 of 300 jobs", `<progress max="1000" value="750"`}},
		{"the host, from another browser", LabInRoom(run, true, false), []string{"<strong>Your run</strong>", "room=host"}},
	} {
		got := draw(c.s)
		for _, w := range c.wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s: the box lacks %q:\n%s", c.name, w, got)
			}
		}
	}
	ended := LabInRoom(run, false, true)
	ended.Running, ended.Ended = false, "Cancelled: every worker process was killed and the run's files removed."
	if got := labPartState(ended); got != "cancelled" {
		t.Errorf("the summary of a cancelled run says %q", got)
	}
	if got := draw(ended); strings.Contains(got, "hx-get") || !strings.Contains(got, "cancelled") {
		t.Errorf("the ended box still polls, or its summary line is not renewed: %s", got)
	}
}
