package main

import (
	"encoding/json"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestFragmentDoesOnlyItsOwnWork: an htmx rerun of one experiment runs that experiment alone and
// answers with its own status, whatever the page's other forms hold.
func TestFragmentDoesOnlyItsOwnWork(t *testing.T) {
	s := newTestServer(t, testConfig())
	hxGrid := map[string]string{"HX-Request": "true", "HX-Target": "exp-window-grid"}
	r := do(t, s, "GET", "/blocks/4?max_delay=0&window-grid.windows=700", hxGrid)
	if r.status != 200 || !strings.Contains(r.body, `id="exp-window-grid"`) || strings.Contains(r.body, `id="exp-window"`) {
		t.Errorf("a valid grid fragment beside a refused window form: status %d, %.200s", r.status, r.body)
	}
	if !strings.Contains(r.body, `type="hidden" name="max_delay" value="0"`) {
		t.Error("the fragment's form must still carry the other form's values")
	}
	win, _ := experiments.Lookup("window")
	p, err := win.Parse(map[string][]string{"max_delay": {"1700"}})
	if err != nil {
		t.Fatal(err)
	}
	do(t, s, "GET", "/blocks/4?max_delay=1700&window-grid.windows=700", hxGrid)
	if _, ok := s.runner.cache.get(win.Key(p)); ok {
		t.Error("a grid fragment ran the window experiment as well")
	}
	do(t, s, "GET", "/blocks/4?max_delay=1700&window-grid.windows=700", nil)
	if _, ok := s.runner.cache.get(win.Key(p)); !ok {
		t.Error("the whole page did not run the window experiment")
	}
	tl := do(t, s, "GET", "/semantics?step=3", map[string]string{"HX-Request": "true", "HX-Target": "timeline"})
	if tl.status != 200 || !strings.HasPrefix(strings.TrimSpace(tl.body), `<section class="timeline"`) {
		t.Errorf("timeline fragment: status %d, %.100s", tl.status, tl.body)
	}
}

// TestStreamBelongsToThePage pins the rule for a page with several experiments: the stream's
// parameters are set in the first form only; a later experiment takes them from there, shows them
// instead of inputs of its own, ignores a prefixed copy, and is drawn again (out of band) when the
// first form is rerun, so the screen and the URL always agree.
func TestStreamBelongsToThePage(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, "GET", "/blocks/3?crash_rate=0.1&keys.crash_rate=0.3", nil)
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	if strings.Contains(r.body, `name="keys.crash_rate"`) {
		t.Error("the later form has an input of its own for the page's crash rate")
	}
	if !strings.Contains(r.body, `class="stream"`) || !strings.Contains(r.body, "<strong>0.1</strong>") {
		t.Error("the later experiment does not show the stream values it uses")
	}
	var got struct{ Result experiments.KeysResult }
	api := do(t, s, "GET", "/api/experiments/keys?crash_rate=0.1", nil)
	if err := json.Unmarshal([]byte(api.body), &got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.body, ">"+count(got.Result.Rows[1].Duplicated)+"</td>") {
		t.Errorf("keys table does not show the run at the page's crash_rate=0.1 (%d)", got.Result.Rows[1].Duplicated)
	}
	if strings.Contains(r.body, `type="hidden" name="keys.crash_rate"`) {
		t.Error("an inherited value was frozen into the first form")
	}
	// Block 5's outbox has its own crash-rate spec (per step, up to 0.5): nothing is shared.
	b5 := do(t, s, "GET", "/blocks/5?crash_rate=0.9", nil)
	if b5.status != 200 || !strings.Contains(b5.body, `name="outbox.crash_rate" value="0.02"`) {
		t.Errorf("outbox took a crash rate of another spec (status %d)", b5.status)
	}

	// Rerunning the first form redraws the experiments that use its stream, out of band.
	hx := map[string]string{"HX-Request": "true", "HX-Target": "exp-assembly"}
	frag := do(t, s, "GET", "/blocks/1?jobs=1000&crash-sweep.crash_rates=0.5", hx)
	if frag.status != 200 || !strings.Contains(frag.body, `id="exp-crash-sweep"`) || !strings.Contains(frag.body, `hx-swap-oob="outerHTML"`) {
		t.Fatalf("first-form fragment: status %d, no out-of-band crash sweep: %.300s", frag.status, frag.body)
	}
	if !strings.Contains(frag.body, "Ack before work, 1,000 jobs") {
		t.Error("the redrawn crash sweep does not use the first form's 1,000 jobs")
	}
	// ...and each block carries its own values for the next rerun of another form.
	if !strings.Contains(frag.body, `data-query="jobs=1000"`) || !strings.Contains(frag.body, `data-query="crash-sweep.crash_rates=0.5"`) {
		t.Errorf("blocks do not carry their own values in data-query: %.400s", frag.body)
	}
	// A rerun of the later form alone leaves the first alone.
	later := do(t, s, "GET", "/blocks/1?jobs=1000&crash-sweep.crash_rates=0.5", map[string]string{"HX-Request": "true", "HX-Target": "exp-crash-sweep"})
	if strings.Contains(later.body, `id="exp-assembly"`) {
		t.Error("a later form's rerun redrew the first")
	}
}
