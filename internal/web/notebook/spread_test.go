package notebook

import (
	"context"
	"strings"
	"testing"

	"effectivelyonce/internal/web"
)

// TestSpreadPollSwapsOnlyTheMeter: a poll of a running spread answers with the meter alone (so
// the Cancel beside it is never replaced under a press), and a poll of an ended one answers with
// the whole note box, retargeted over the box, which ends the polling.
func TestSpreadPollSwapsOnlyTheMeter(t *testing.T) {
	h, e := newTestNotebook(t)
	j := &spreadJob{n: 20, block: "exp-window", back: "/blocks/4?spread=20#exp-window"}
	j.stopped.Store(-1)
	j.done.Store(7)
	// Work that ignores its cancel for a moment, as a spread's workers do until they notice.
	release := make(chan struct{})
	task, _, err := h.spreads.tasks.Start("k", 0, nil, j, func(context.Context) (func(), error) { <-release; return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	defer close(release)
	hx := map[string]string{web.HXRequestHeader: "true"}

	r := do(t, e, "GET", "/spread/progress?id="+task.ID, hx)
	if r.status != 200 || !strings.Contains(r.body, `class="spread-meter"`) || !strings.Contains(r.body, "7 of 20 seeds") {
		t.Fatalf("poll of a running spread: status %d: %s", r.status, r.body)
	}
	if strings.Contains(r.body, "spread-cancel") || strings.Contains(r.body, `class="spread-progress`) || r.header.Get(web.HXRetargetHeader) != "" {
		t.Errorf("poll of a running spread swaps more than the meter (retarget %q): %s", r.header.Get(web.HXRetargetHeader), r.body)
	}

	c := do(t, e, "POST", "/spread/cancel?id="+task.ID, hx)
	if c.status != 200 || !strings.Contains(c.body, "Cancelled after 7 of 20 seeds") || strings.Contains(c.body, "hx-trigger") {
		t.Fatalf("cancel: status %d: %s", c.status, c.body)
	}
	j.done.Store(9) // a seed that finished under the press does not change the note
	r = do(t, e, "GET", "/spread/progress?id="+task.ID, hx)
	if !strings.Contains(r.body, "spread-note") || !strings.Contains(r.body, "Cancelled after 7 of 20 seeds") || strings.Contains(r.body, "hx-trigger") {
		t.Errorf("poll after cancel: %s", r.body)
	}
	if r.header.Get(web.HXRetargetHeader) != "closest .spread-progress" || r.header.Get(web.HXReswapHeader) != "outerHTML" {
		t.Errorf("poll after cancel retargets %q with %q, want the whole box", r.header.Get(web.HXRetargetHeader), r.header.Get(web.HXReswapHeader))
	}
}
