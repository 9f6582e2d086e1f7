package site

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"effectivelyonce/internal/sitetest"
	"effectivelyonce/internal/web/labweb"
	"effectivelyonce/lab"
)

// newLabServer is a test server whose lab runs on workers the test can see, in a scratch
// directory the test can look into.
func newLabServer(t *testing.T, cfg Config) (*Server, *sitetest.Workers, string) {
	t.Helper()
	s := newTestServer(t, cfg)
	w := &sitetest.Workers{}
	s.lab.Runner().Command = w.Command
	s.lab.Runner().ScratchDir = t.TempDir()
	return s, w, s.lab.Runner().ScratchDir
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
	// A run that died with a site killed earlier left its directory: the sweep after this run
	// removes it (see the final check of the scratch directory).
	if err := os.Mkdir(filepath.Join(tmp, "lab-run-0000000dead0"), 0o700); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	form := smallLabForm("100", lab.AckAfterWork, lab.DedupInTx)
	form.Set("seed", "21")
	r := b.post("/lab/runs", form)
	if r.status != http.StatusSeeOther {
		t.Fatalf("Run: %d %s", r.status, r.body)
	}
	// The page the reader is sent to holds the run's values in its address, and so in its form.
	permalink := r.header.Get("Location")
	if permalink != "/lab?crash_rate=0.05&design=ack-after-work&design=dedup-in-tx&dup_window=1&jobs=100&lease_seed=31&lease_timeout=5&seed=21&workers=2#lab-status" {
		t.Errorf("Run sent the reader to %q", permalink)
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
	// The page drawn afresh shows the same results to any reader, with every value the run used,
	// and polls no more.
	p := newBrowser(t, s).get("/lab")
	if !strings.Contains(p.body, "Finished: 2 designs") || strings.Contains(p.body, `hx-trigger="every 300ms"`) {
		t.Error("the page after the run does not show its results, or still polls")
	}
	if !strings.Contains(p.body, "Someone else&#39;s run</strong>, with Ack after work and Dedup key in the same transaction, on 100 jobs with 2 worker processes; crash rate 0.05, stream seed 21; confirmed acks.") {
		t.Error("a fresh visitor is not shown the finished run's values")
	}
	for _, caption := range []string{"Ack after work: 100 jobs, 2 workers, crash rate 0.05, stream seed 21; ", "Dedup key in the same transaction: 100 jobs, 2 workers, crash rate 0.05, stream seed 21; "} {
		if !strings.Contains(p.body, caption) {
			t.Errorf("no table caption %q", caption)
		}
	}
	// The permalink's page keeps the run's values in the form, for its owner and anyone else.
	for _, br := range []*browser{b, newBrowser(t, s)} {
		page := br.get(strings.TrimSuffix(permalink, "#lab-status")).body
		for field, v := range map[string]string{"jobs": "100", "workers": "2", "seed": "21", "crash_rate": "0.05"} {
			if !strings.Contains(page, `name="`+field+`" value="`+v+`"`) {
				t.Errorf("the permalink's form lost %s=%s", field, v)
			}
		}
		for _, d := range lab.Designs() {
			checked := strings.Contains(page, `value="`+string(d)+`" checked`)
			if want := d == lab.AckAfterWork || d == lab.DedupInTx; checked != want {
				t.Errorf("the permalink's form: %s checked %v, want %v", d, checked, want)
			}
		}
	}
	if left := w.Alive(); len(left) > 0 {
		t.Errorf("worker processes %v outlived the run", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the run left %v behind", left)
	}
}

// TestLabOneRunAtATimeAndCancel starts a long run from one browser and looks at it from another:
// the other sees the run in progress (someone else's, with its values) on a fresh /lab, may not
// start a second run nor cancel this one, and is told when it can start its own; only the
// browser that started the run sees Cancel, and its Cancel kills every worker and removes the
// files.
func TestLabOneRunAtATimeAndCancel(t *testing.T) {
	s, w, tmp := newLabServer(t, testConfig())
	b := newBrowser(t, s)
	r := b.post("/lab/runs", smallLabForm("5000", lab.AckAfterWork))
	if r.status != http.StatusSeeOther {
		t.Fatalf("Run: %d", r.status)
	}
	if b.cookies[labweb.OwnerCookie] == "" {
		t.Fatal("Run set no owner cookie")
	}
	settings := "Ack after work, on 5,000 jobs with 2 worker processes; crash rate 0.05, stream seed 13; confirmed acks"

	other := newBrowser(t, s)
	fresh := other.get("/lab")
	if !strings.Contains(fresh.body, `data-whose="others"`) || !strings.Contains(fresh.body, `data-running="true"`) ||
		!strings.Contains(fresh.body, "Someone else&#39;s run</strong>, with "+settings+".") {
		t.Errorf("a fresh visitor's /lab does not show someone else's run in progress with its values")
	}
	if strings.Contains(fresh.body, `action="/lab/cancel"`) {
		t.Error("a fresh visitor is offered Cancel for someone else's run")
	}
	if !regexp.MustCompile(`you can start your own run when this one ends, in about \d+ (s|min)\.`).MatchString(fresh.body) {
		t.Error("a fresh visitor is not told when they can start their own run")
	}
	if !strings.Contains(fresh.body, `href="/lab?crash_rate=0.05&amp;design=ack-after-work&amp;dup_window=1&amp;jobs=5000&amp;lease_seed=31&amp;lease_timeout=5&amp;seed=13&amp;workers=2#lab">Put these values in the form</a>`) {
		t.Error("a fresh visitor has no link that puts the run's values in the form")
	}
	second := other.post("/lab/runs", smallLabForm("100", lab.DedupInTx))
	if second.status != http.StatusConflict || !strings.Contains(second.body, "someone else&#39;s run is under way") || second.header.Get("Retry-After") == "" {
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
	// The run id is public (it is in every progress box), so it must not be enough to cancel.
	for name, br := range map[string]*browser{"another browser": other, "a browser with no cookie": newBrowser(t, s)} {
		r := br.post("/lab/cancel", url.Values{"run": {id}})
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "only the browser that started it can cancel it") {
			t.Errorf("Cancel from %s: %d", name, r.status)
		}
		if st := s.lab.Runner().Status(s.site(""), ""); st == nil || !st.Running {
			t.Fatalf("Cancel from %s stopped the run", name)
		}
	}
	own := b.send("GET", "/lab/progress", nil, true).body
	if !strings.Contains(own, `data-whose="yours"`) || !strings.Contains(own, "<strong>Your run</strong>") || !strings.Contains(own, `action="/lab/cancel"`) {
		t.Error("the browser that started the run is not shown it as its own, with Cancel")
	}
	r = b.post("/lab/cancel", url.Values{"run": {id}})
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/lab?") {
		t.Fatalf("Cancel: %d to %q", r.status, r.header.Get("Location"))
	}
	box := b.send("GET", "/lab/progress", nil, true).body
	if !strings.Contains(box, "Cancelled") || strings.Contains(box, "every 300ms") {
		t.Errorf("after Cancel: %s", box)
	}
	if left := w.Alive(); len(left) > 0 {
		t.Errorf("worker processes %v outlived the cancel", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the cancelled run left %v behind", left)
	}
	// The next run is accepted, from anyone.
	if r := other.post("/lab/runs", smallLabForm("50", lab.DedupInTx)); r.status != http.StatusSeeOther {
		t.Errorf("the run after a cancel: %d", r.status)
	}
	waitLab(t, other, time.Now())
}

// TestLabRunsPerHour checks the hourly allowance of runs per client address: a refused form and a
// run refused as busy cost nothing, the run over the allowance is a 429 that says when, with the
// form kept, and another address still runs.
func TestLabRunsPerHour(t *testing.T) {
	cfg := testConfig()
	cfg.LabRunsPerHour = 2
	s, _, _ := newLabServer(t, cfg)
	b := newBrowser(t, s)
	if r := b.post("/lab/runs", smallLabForm("lots", lab.DedupInTx)); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("a wrong form: %d", r.status)
	}
	for i := range 2 {
		if r := b.post("/lab/runs", smallLabForm("20", lab.DedupInTx)); r.status != http.StatusSeeOther {
			t.Fatalf("run %d of the allowance: %d", i+1, r.status)
		}
		if i == 0 {
			if r := newBrowser(t, s).post("/lab/runs", smallLabForm("20", lab.DedupInTx)); r.status != http.StatusConflict {
				t.Fatalf("a Run while busy: %d", r.status)
			}
		}
		waitLab(t, b, time.Now())
	}
	r := b.post("/lab/runs", smallLabForm("30", lab.DedupInTx))
	// Two an hour: the next one is due half an hour after the first, less the time the test took.
	retry, _ := strconv.Atoi(r.header.Get("Retry-After"))
	if r.status != http.StatusTooManyRequests || !strings.Contains(r.body, "your address has started 2 lab runs in the last hour") ||
		!regexp.MustCompile(`next in about \d+ min\.`).MatchString(r.body) || retry < 60 || retry > 1800 || !strings.Contains(r.body, `value="30"`) {
		t.Errorf("the run over the allowance: %d, Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	// Another address has its own allowance.
	req := httptest.NewRequest("POST", "/lab/runs", strings.NewReader(smallLabForm("20", lab.DedupInTx).Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.RemoteAddr = "198.51.100.7:4000"
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Errorf("a run from another address: %d", rec.Code)
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
	if s.lab.Runner().Status(s.site(""), "") != nil {
		t.Error("a run started with LAB=off")
	}
}

// TestLabBadValuesNameTheirField sends a form with several wrong values at once: the page names
// every one (jobs 9,000 with workers 0 used to flag only jobs), each beside its field and in one
// summary, in the words an experiment's form uses, and keeps what was typed.
func TestLabBadValuesNameTheirField(t *testing.T) {
	cfg := testConfig()
	cfg.LabMaxJobs = 1000
	s := newTestServer(t, cfg)
	b := newBrowser(t, s)
	form := url.Values{"jobs": {"9,000"}, "workers": {"0"}, "crash_rate": {"lots"}, "seed": {"1.5"}, "lease_seed": {"31"}, "lease_timeout": {"5"}}
	r := b.post("/lab/runs", form)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("a form with five wrong values: %d", r.status)
	}
	want := map[string]string{
		"design":     "Designs: none is chosen; it must be at least one design",
		"jobs":       "Jobs: 9,000 is out of range; it must be a whole number from 1 to 1,000",
		"workers":    "Workers: 0 is out of range; it must be a whole number from 1 to 8",
		"crash_rate": `Crash rate: &#34;lots&#34; is not a number; it must be a number from 0 to 1`,
		"seed":       "Stream seed: 1.5 is not a whole number; it must be a whole number from 0 to 9,223,372,036,854,775,807",
	}
	for field, msg := range want {
		id := "lab-" + strings.ReplaceAll(field, "_", "-")
		if !strings.Contains(r.body, `id="`+id+`-error">`+msg+`</p>`) {
			t.Errorf("%s: no message %q beside the field", field, msg)
		}
		if field != "design" && !strings.Contains(r.body, `id="`+id+`" name="`+field+`" value="`+html.EscapeString(form.Get(field))+`"`) {
			t.Errorf("%s: the value typed was not kept", field)
		}
	}
	summary := regexp.MustCompile(`(?s)<div class="problem" id="lab-refused" role="alert"><p><strong>Nothing was run.</strong> The form keeps everything you typed. 5 values need fixing:</p><ul class="refused">(.*?)</ul>`).FindStringSubmatch(r.body)
	if summary == nil {
		t.Fatalf("no summary of the five refused values: %s", r.body)
	}
	items := regexp.MustCompile(`<li><a href="#([a-z-]+)">`).FindAllStringSubmatch(summary[1], -1)
	var order []string
	for _, m := range items {
		order = append(order, m[1])
	}
	if strings.Join(order, " ") != "lab-design-ack-before-work lab-jobs lab-workers lab-crash-rate lab-seed" {
		t.Errorf("the summary lists %v, want every refused value in the form's order", order)
	}
	if s.lab.Runner().Status(s.site(""), "") != nil {
		t.Error("a refused form started a run")
	}
}

// TestLabConfig checks the lab's settings: defaults, the environment, and errors naming them.
func TestLabConfig(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	c, err := LoadConfig(nil, getenv, nil)
	if err != nil || c.LabOff || c.LabMaxJobs != lab.MaxJobs || c.LabNATSURL != "" {
		t.Fatalf("defaults: %v %+v", err, c)
	}
	if c.LabRunsPerHour != 30 {
		t.Errorf("default lab runs per hour %d, want 30", c.LabRunsPerHour)
	}
	env["LAB"], env["LAB_MAX_JOBS"], env["LAB_NATS_URL"], env["LAB_RUNS_PER_HOUR"] = "off", "300", "nats://127.0.0.1:4222", "12"
	if c, err = LoadConfig(nil, getenv, nil); err != nil || !c.LabOff || c.LabMaxJobs != 300 || c.LabNATSURL != "nats://127.0.0.1:4222" || c.LabRunsPerHour != 12 {
		t.Errorf("from the environment: %v %+v", err, c)
	}
	if c, err = LoadConfig([]string{"-lab-runs-per-hour", "5"}, getenv, nil); err != nil || c.LabRunsPerHour != 5 {
		t.Errorf("the flag over the environment: %v, %d", err, c.LabRunsPerHour)
	}
	for _, bad := range [][]string{{"-lab", "maybe"}, {"-lab-max-jobs", "0"}, {"-lab-max-jobs", "5001"}, {"-lab-nats-url", "http://x"}, {"-lab-runs-per-hour", "0"}} {
		if _, err := LoadConfig(bad, func(string) string { return "" }, nil); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(bad[0], "-")) {
			t.Errorf("%v: %v, want an error naming %s", bad, err, bad[0])
		}
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

// TestLabPublishRetryRunSaysWhatRuns runs the publisher's retry alone from the page: its box says
// what happens (one producer, no worker, the rate as lost publish acks, no acks of workers), and
// ends with one design, in the singular.
func TestLabPublishRetryRunSaysWhatRuns(t *testing.T) {
	s, _, _ := newLabServer(t, testConfig())
	b := newBrowser(t, s)
	if r := b.post("/lab/runs", smallLabForm("100", lab.PublishRetry)); r.status != http.StatusSeeOther {
		t.Fatalf("Run: %d %s", r.status, r.body)
	}
	box, _ := waitLab(t, b, time.Now())
	if !strings.Contains(box, "Finished: 1 design on 100 jobs.") {
		t.Errorf("the run ends with: %s", box)
	}
	if !strings.Contains(box, "with Publisher retries into the broker&#39;s dedup window, on 100 jobs; publish acks lost at rate 0.05, stream seed 13; dedup window 1 s.") ||
		strings.Contains(box, "worker process") || strings.Contains(box, "confirmed acks") {
		t.Errorf("the box does not say what ran: %s", box)
	}
}
