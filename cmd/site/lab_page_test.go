package main

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"effectivelyonce/lab"
)

// labWorkers starts the test binary as the lab's worker and remembers every process it started,
// so that a test can check that none is left.
type labWorkers struct {
	mu   sync.Mutex
	cmds []*exec.Cmd
}

func testLabWorkers(t testing.TB) *labWorkers { return &labWorkers{} }

func (w *labWorkers) command(ctx context.Context) *exec.Cmd {
	cmd := siteLabWorker(ctx) // this test binary as "lab-worker": TestMain runs it as the worker
	w.mu.Lock()
	w.cmds = append(w.cmds, cmd)
	w.mu.Unlock()
	return cmd
}

// alive lists the worker processes still running: a pid that answers signal 0 and still leads
// its own process group (a reused pid would belong to another group).
func (w *labWorkers) alive() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for _, c := range w.cmds {
		if c.Process == nil {
			continue
		}
		pid := c.Process.Pid
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			if pgid, _ := syscall.Getpgid(pid); pgid == pid {
				out = append(out, pid)
			}
		}
	}
	return out
}

// newLabServer is a test server whose lab runs on workers the test can see, in a scratch
// directory the test can look into.
func newLabServer(t *testing.T, cfg config) (*server, *labWorkers, string) {
	t.Helper()
	s := newTestServer(t, cfg)
	w := testLabWorkers(t)
	s.lab.command = w.command
	s.lab.tempDir = t.TempDir()
	return s, w, s.lab.tempDir
}

// labForm is the lab's form with small values, designs as given.
func smallLabForm(jobs string, designs ...lab.Design) url.Values {
	v := url.Values{"jobs": {jobs}, "workers": {"2"}, "crash_rate": {"0.05"}, "seed": {"13"}}
	for _, d := range designs {
		v.Add("design", string(d))
	}
	return v
}

var (
	doneRE = regexp.MustCompile(`data-count="done">([\d,]+) of`)
	realRE = regexp.MustCompile(`<td class="num" data-real>([\d,]+)</td><td class="num" data-model>([\d,]+)</td>`)
)

// waitLab polls the progress box as the page does until the run has ended, and returns the last
// box and the time the first box showing a job done came back.
func waitLab(t *testing.T, b *browser, start time.Time) (box string, firstDone time.Duration) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		r := b.send("GET", "/lab/progress", nil, true)
		if r.status != http.StatusOK {
			t.Fatalf("progress: %d %s", r.status, r.body)
		}
		if m := doneRE.FindStringSubmatch(r.body); firstDone == 0 && m != nil && m[1] != "0" {
			firstDone = time.Since(start)
		}
		if !strings.Contains(r.body, `hx-trigger="every 300ms"`) {
			return r.body, firstDone
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the lab run did not end within two minutes")
	return "", 0
}

func TestLabRunMatchesTheModel(t *testing.T) {
	s, w, tmp := newLabServer(t, testConfig())
	b := newBrowser(t, s)
	page := b.get("/lab")
	if page.status != http.StatusOK || !strings.Contains(page.body, `action="/lab/runs"`) || strings.Contains(page.body, `id="lab-status"`) {
		t.Fatalf("the lab page before any run: %d, form %v", page.status, strings.Contains(page.body, `action="/lab/runs"`))
	}
	for _, d := range lab.Designs() {
		if !strings.Contains(page.body, `value="`+string(d)+`" checked`) {
			t.Errorf("design %s is not offered, checked", d)
		}
	}
	start := time.Now()
	r := b.post("/lab/runs", smallLabForm("100", lab.AckAfterWork, lab.DedupInTx))
	if r.status != http.StatusSeeOther {
		t.Fatalf("Run: %d %s", r.status, r.body)
	}
	first := b.send("GET", "/lab/progress", nil, true)
	firstBox := time.Since(start)
	if !strings.Contains(first.body, "Running design 1 of 2") {
		t.Errorf("the first progress box: %s", first.body)
	}
	box, firstDone := waitLab(t, b, start)
	t.Logf("first progress box %v after Run, first job done shown %v after Run, run over after %v", firstBox, firstDone, time.Since(start))
	if !strings.Contains(box, "Finished: 2 designs") {
		t.Fatalf("the run did not finish: %s", box)
	}
	rows := realRE.FindAllStringSubmatch(box, -1)
	if len(rows) != 6 {
		t.Fatalf("%d rows of counts, want 3 per design: %s", len(rows), box)
	}
	for _, m := range rows {
		if m[1] != m[2] {
			t.Errorf("real %s, model %s", m[1], m[2])
		}
	}
	if strings.Contains(box, "Differs") || strings.Count(box, "The real counts are the model") != 2 || !strings.Contains(box, "killed with SIGKILL") {
		t.Errorf("the final box does not show two agreeing tables with their log: %s", box)
	}
	// The page drawn afresh shows the same results to any reader, and polls no more.
	if p := newBrowser(t, s).get("/lab"); !strings.Contains(p.body, "Finished: 2 designs") || strings.Contains(p.body, `hx-trigger="every 300ms"`) {
		t.Error("the page after the run does not show its results, or still polls")
	}
	if left := w.alive(); len(left) > 0 {
		t.Errorf("worker processes %v outlived the run", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the run left %v behind", left)
	}
}

func TestLabOneRunAtATimeAndCancel(t *testing.T) {
	s, w, tmp := newLabServer(t, testConfig())
	b := newBrowser(t, s)
	if r := b.post("/lab/runs", smallLabForm("5000", lab.AckAfterWork)); r.status != http.StatusSeeOther {
		t.Fatalf("Run: %d", r.status)
	}
	second := newBrowser(t, s).post("/lab/runs", smallLabForm("100", lab.DedupInTx))
	if second.status != http.StatusConflict || !strings.Contains(second.body, "another lab run is under way") || second.header.Get("Retry-After") == "" {
		t.Errorf("a second Run: %d, Retry-After %q", second.status, second.header.Get("Retry-After"))
	}
	if !strings.Contains(second.body, `value="100"`) {
		t.Error("the refused form did not keep its values")
	}
	// Cancel once work is under way and a worker has been killed.
	deadline := time.Now().Add(time.Minute)
	var id string
	for time.Now().Before(deadline) {
		box := b.send("GET", "/lab/progress", nil, true).body
		id = regexp.MustCompile(`data-run="([0-9a-f]+)"`).FindStringSubmatch(box)[1]
		if m := regexp.MustCompile(`data-count="killed">([\d,]+)<`).FindStringSubmatch(box); m != nil && m[1] != "0" {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := b.post("/lab/cancel", url.Values{"run": {id}}); r.status != http.StatusSeeOther {
		t.Fatalf("Cancel: %d", r.status)
	}
	box := b.send("GET", "/lab/progress", nil, true).body
	if !strings.Contains(box, "Cancelled") || strings.Contains(box, "every 300ms") {
		t.Errorf("after Cancel: %s", box)
	}
	if left := w.alive(); len(left) > 0 {
		t.Errorf("worker processes %v outlived the cancel", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the cancelled run left %v behind", left)
	}
	// The next run is accepted.
	if r := b.post("/lab/runs", smallLabForm("50", lab.DedupInTx)); r.status != http.StatusSeeOther {
		t.Errorf("the run after a cancel: %d", r.status)
	}
	waitLab(t, b, time.Now())
}

func TestLabOff(t *testing.T) {
	cfg := testConfig()
	cfg.LabOff = true
	s := newTestServer(t, cfg)
	b := newBrowser(t, s)
	page := b.get("/lab")
	if page.status != http.StatusOK || !strings.Contains(page.body, "turned off on this instance") || strings.Contains(page.body, `action="/lab/runs"`) {
		t.Errorf("the page with LAB=off: %d, offers a form: %v", page.status, strings.Contains(page.body, `action="/lab/runs"`))
	}
	if r := b.post("/lab/runs", smallLabForm("100", lab.DedupInTx)); r.status != http.StatusForbidden || !strings.Contains(r.body, "turned off") {
		t.Errorf("Run with LAB=off: %d", r.status)
	}
	if s.lab.status(s.site("")) != nil {
		t.Error("a run started with LAB=off")
	}
}

func TestLabBadValuesNameTheirField(t *testing.T) {
	cfg := testConfig()
	cfg.LabMaxJobs = 1000
	s := newTestServer(t, cfg)
	b := newBrowser(t, s)
	for field, form := range map[string]url.Values{
		"jobs":       smallLabForm("1001", lab.DedupInTx),
		"workers":    {"design": {"dedup-in-tx"}, "jobs": {"100"}, "workers": {"9"}, "crash_rate": {"0.05"}, "seed": {"1"}},
		"crash_rate": {"design": {"dedup-in-tx"}, "jobs": {"100"}, "workers": {"2"}, "crash_rate": {"lots"}, "seed": {"1"}},
		"seed":       {"design": {"dedup-in-tx"}, "jobs": {"100"}, "workers": {"2"}, "crash_rate": {"0.05"}, "seed": {"1.5"}},
		"design":     smallLabForm("100"),
	} {
		r := b.post("/lab/runs", form)
		id := "lab-" + strings.ReplaceAll(field, "_", "-")
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `id="`+id+`-error"`) {
			t.Errorf("%s: %d, no message with id %s-error", field, r.status, id)
		}
		if field != "design" && !strings.Contains(r.body, `id="`+id+`" name="`+field+`" value="`+form.Get(field)+`"`) {
			t.Errorf("%s: the value typed was not kept", field)
		}
	}
	if s.lab.status(s.site("")) != nil {
		t.Error("a refused form started a run")
	}
}

// TestLabConfig checks the lab's settings: defaults, the environment, and errors naming them.
func TestLabConfig(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	c, err := loadConfig(nil, getenv, nil)
	if err != nil || c.LabOff || c.LabMaxJobs != lab.MaxJobs || c.LabNATSURL != "" {
		t.Fatalf("defaults: %v %+v", err, c)
	}
	env["LAB"], env["LAB_MAX_JOBS"], env["LAB_NATS_URL"] = "off", "300", "nats://127.0.0.1:4222"
	if c, err = loadConfig(nil, getenv, nil); err != nil || !c.LabOff || c.LabMaxJobs != 300 || c.LabNATSURL != "nats://127.0.0.1:4222" {
		t.Errorf("from the environment: %v %+v", err, c)
	}
	for _, bad := range [][]string{{"-lab", "maybe"}, {"-lab-max-jobs", "0"}, {"-lab-max-jobs", "5001"}, {"-lab-nats-url", "http://x"}} {
		if _, err := loadConfig(bad, func(string) string { return "" }, nil); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(bad[0], "-")) {
			t.Errorf("%v: %v, want an error naming %s", bad, err, bad[0])
		}
	}
}

// TestLabRunNobodyWatchesIsCancelled checks the lab's answer to a reader who closes the tab: a
// run whose progress nobody asks for is cancelled, its workers killed, instead of running on.
func TestLabRunNobodyWatchesIsCancelled(t *testing.T) {
	s := newTestServer(t, testConfig())
	w := testLabWorkers(t)
	s.lab.command = w.command
	s.lab.unwatched = 400 * time.Millisecond
	if _, err := s.lab.start(labParams{Designs: []lab.Design{lab.AckAfterWork}, Jobs: 5000, Workers: 2, CrashRate: 0.05, Seed: 13}); err != nil {
		t.Fatal(err)
	}
	s.lab.mu.Lock()
	run := s.lab.cur
	s.lab.mu.Unlock()
	select {
	case <-run.done:
	case <-time.After(30 * time.Second):
		t.Fatal("an unwatched run was not cancelled")
	}
	s.lab.mu.Lock()
	ended, abandoned := run.ended, run.abandoned
	s.lab.mu.Unlock()
	if !abandoned || !strings.Contains(ended, "nobody had watched") {
		t.Errorf("ended %q (abandoned %v), want it cancelled for want of a reader", ended, abandoned)
	}
	if alive := w.alive(); len(alive) > 0 {
		t.Errorf("workers %v outlived the cancelled run", alive)
	}
}

// TestLabFireAndForgetCheckboxIsKept checks that a refused form keeps the fire-and-forget acks
// checkbox as the reader left it, and that the page first shows it unchecked.
func TestLabFireAndForgetCheckboxIsKept(t *testing.T) {
	s := newTestServer(t, testConfig())
	b := newBrowser(t, s)
	box := regexp.MustCompile(`<input type="checkbox" name="fire_and_forget" value="on"( checked)?>`)
	if m := box.FindStringSubmatch(b.get("/lab").body); m == nil || m[1] != "" {
		t.Fatalf("the first page's checkbox: %q", m)
	}
	form := smallLabForm("lots", lab.AckAfterWork)
	form.Set("fire_and_forget", "on")
	r := b.post("/lab/runs", form)
	if m := box.FindStringSubmatch(r.body); r.status != http.StatusUnprocessableEntity || m == nil || m[1] == "" {
		t.Errorf("a refused form: %d, checkbox %q", r.status, m)
	}
}
