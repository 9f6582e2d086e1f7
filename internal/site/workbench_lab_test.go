package site

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// workbenchLabForm is the workbench's form as "Run on the real lab" posts it: the check's own
// fields (a short stream, so the check is quick) and the lab control's.
func workbenchLabForm(t *testing.T, tmpl string, point, jobs string) url.Values {
	return url.Values{"source": {template(t, tmpl)}, "template": {tmpl}, "jobs": {"2000"}, "crash_rate": {"0.05"}, "seed": {"13"},
		"world": {"consumer"}, "lab_point": {point}, "lab_jobs": {jobs}}
}

// TestWorkbenchRunOnLab presses Run on the real lab under ack-after-work's result: the run starts
// on the lab's workers, its box polls the lab's progress, and at the end the lab's table sets the
// real counts (lost, duplicated, exactly once, deliveries killed at the crash point) beside the
// workbench's model for the same handler, stream and crash point, replayed in the check's child
// at the redeliveries the run made, and they agree. No worker or file outlives the run.
func TestWorkbenchRunOnLab(t *testing.T) {
	s, w, tmp := newLabServer(t, testConfig())
	b := newBrowser(t, s)
	page := b.get("/workbench")
	for _, want := range []string{`id="wb-lab"`, `name="lab_point" form="wb-form"`, `<option value="1" selected>`, `formaction="/workbench/lab#wb-lab"`,
		`name="lab_jobs" form="wb-form" value="2000"`, "Run on the real lab"} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the workbench's result lacks %q", want)
		}
	}
	start := time.Now()
	r := b.send("POST", "/workbench/lab", workbenchLabForm(t, "ack-after-work", "1", "400"), true)
	if r.status != http.StatusOK || !strings.Contains(r.body, `id="lab-status"`) || !strings.Contains(r.body, `hx-get="/lab/progress"`) ||
		strings.Contains(r.body, "<h1>") || !strings.Contains(r.body, `data-whose="yours"`) || !strings.Contains(r.body, ">Cancel</button>") {
		t.Fatalf("Run on the real lab (htmx): %d\n%s", r.status, r.body)
	}
	if !strings.Contains(r.body, "your handler, on 400 jobs with 3 worker processes; crash rate 0.05, stream seed 13; crash point 1; confirmed acks.") {
		t.Errorf("the box does not state the run's values:\n%s", r.body)
	}
	box, _ := waitLab(t, b, start)
	took := time.Since(start)
	if !strings.Contains(box, "Finished: your handler on 400 jobs.") {
		t.Fatalf("the run did not finish: %s", box)
	}
	rows := realRE.FindAllStringSubmatch(box, -1)
	if len(rows) != 4 {
		t.Fatalf("%d rows of counts, want lost, duplicated, exactly once and killed at the crash point: %s", len(rows), box)
	}
	for i, m := range rows {
		if m[1] != m[2] {
			t.Errorf("row %d: real %s, model %s", i, m[1], m[2])
		}
	}
	if rows[1][1] == "0" || rows[3][1] == "0" {
		t.Errorf("ack-after-work at its failing point duplicates nothing and kills no worker: %v", rows)
	}
	if strings.Contains(box, "Differs") || !strings.Contains(box, "The real counts are the model") || !strings.Contains(box, "<th scope=\"row\">Killed at the crash point</th>") ||
		!strings.Contains(box, "the workbench's check of the same handler, stream and crash point, replayed at the delays the lab measured") {
		t.Errorf("the final box does not show an agreeing table against the workbench's model: %s", box)
	}
	t.Logf("a 400-job handler run took %v from the press to the table", took)
	if left := w.Alive(); len(left) > 0 {
		t.Errorf("worker processes %v outlived the run", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the run left %v behind", left)
	}
	// Without script: the whole workbench, the check's result above the box.
	r = b.post("/workbench/lab", workbenchLabForm(t, "dedup-in-tx", "2", "100"))
	if r.status != http.StatusOK || !strings.Contains(r.body, "<h1>The workbench</h1>") || !strings.Contains(r.body, `id="lab-status"`) ||
		!strings.Contains(r.body, `<option value="2" selected>`) || !strings.Contains(r.body, `href="/lab#lab-status"`) {
		t.Fatalf("Run on the real lab without script: %d", r.status)
	}
	waitLab(t, b, time.Now())
}

// TestWorkbenchRunOnLabRefused: a handler the workbench refuses is refused at its line before
// any worker starts; values the lab cannot take are said beside their field; a second run while
// one is under way is a 409 that says when to try again; and LAB=off says so under the result.
func TestWorkbenchRunOnLabRefused(t *testing.T) {
	s, w, _ := newLabServer(t, testConfig())
	b := newBrowser(t, s)
	form := workbenchLabForm(t, "ack-after-work", "1", "300")
	form.Set("source", "def handle(job, queue, db, bus):\n    queue.ack()\n    oops.apply(job.id)\n")
	r := b.send("POST", "/workbench/lab", form, true)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `<li data-line="3" data-col="5">Line 3, column 5: `) ||
		r.header.Get("HX-Retarget") != "#wb-result" || strings.Contains(r.body, `id="lab-status"`) {
		t.Errorf("a handler with a mistake: %d %v\n%s", r.status, r.header, r.body)
	}
	r = b.post("/workbench/lab", form)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `<li data-line="3" data-col="5">Line 3, column 5: `) || !strings.Contains(r.body, "oops.apply(job.id)") {
		t.Errorf("a handler with a mistake, without script: %d", r.status)
	}
	if n := len(w.Alive()) + w.Started(); n != 0 || s.lab.Runner().Current() != nil {
		t.Fatalf("a refused handler started %d workers", n)
	}
	form = workbenchLabForm(t, "ack-after-work", "1", "90000")
	r = b.send("POST", "/workbench/lab", form, true)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `id="wb-lab-jobs-error"`) || !strings.Contains(r.body, `value="90000"`) {
		t.Errorf("too many jobs for the lab: %d\n%s", r.status, r.body)
	}
	// One run at a time: another browser's press is refused while the first runs.
	form = workbenchLabForm(t, "ack-after-work", "1", "5000")
	if r := b.send("POST", "/workbench/lab", form, true); r.status != http.StatusOK {
		t.Fatalf("the first run: %d %s", r.status, r.body)
	}
	other := newBrowser(t, s)
	r = other.send("POST", "/workbench/lab", workbenchLabForm(t, "dedup-in-tx", "1", "100"), true)
	if r.status != http.StatusConflict || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, `id="wb-lab-notice"`) ||
		!strings.Contains(r.body, "someone else&#39;s run is under way") || !strings.Contains(r.body, "in about") {
		t.Errorf("a second run while one is under way: %d %v\n%s", r.status, r.header, r.body)
	}
	// Only the owner's box has Cancel; its Cancel, from the box, answers the box, cancelled.
	run := s.lab.Runner().Current()
	r = b.send("POST", "/lab/cancel", url.Values{"run": {run.ID}}, true)
	if r.status != http.StatusOK || !strings.Contains(r.body, "Cancelled: every worker process was killed") {
		t.Errorf("Cancel from the box: %d\n%s", r.status, r.body)
	}
	if left := w.Alive(); len(left) > 0 {
		t.Errorf("worker processes %v outlived the cancel", left)
	}

	cfg := testConfig()
	cfg.LabOff = true
	off := newTestServer(t, cfg)
	page := do(t, off, http.MethodGet, "/workbench", nil)
	if !strings.Contains(page.body, `id="wb-lab-off"`) || strings.Contains(page.body, `id="wb-lab-run"`) {
		t.Error("with LAB=off the result does not say the lab is off")
	}
	r = post(t, off, "/workbench/lab", workbenchLabForm(t, "ack-after-work", "1", "100"))
	if r.status != http.StatusForbidden {
		t.Errorf("Run on the real lab with LAB=off: %d", r.status)
	}
}
