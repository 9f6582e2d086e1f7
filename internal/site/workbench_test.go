package site

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/workbench"
)

// post sends a form through the whole middleware stack.
func post(t *testing.T, s *Server, target string, form url.Values, header ...string) response {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

// postJSON sends a JSON body through the whole middleware stack.
func postJSON(t *testing.T, s *Server, target string, body any) response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

func template(t *testing.T, name string) string {
	t.Helper()
	tp, ok := workbench.LookupTemplate(name)
	if !ok {
		t.Fatalf("no template %s", name)
	}
	return tp.Source
}

// TestWorkbenchPage checks the page a reader opens: the introduction, the menu, the editor's
// textarea holding the first rung's handler, the parameter form, the ladder, and the first rung
// already checked, with its failing row, its sentence and its jobs.
func TestWorkbenchPage(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, http.MethodGet, "/workbench", nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET /workbench: %d\n%s", r.status, r.body)
	}
	for _, want := range []string{"<h1>The workbench</h1>", `data-editor="starlark"`, `id="wb-source" name="source"`,
		"def handle(job, queue, db, bus):", `data-template="dedup-in-tx"`, `aria-current="true">Ack after work`,
		`name="jobs" value="20000"`, `<select id="wb-world" name="world"`, "Make ack-after-work survive",
		"Find the key window that survives", "Add the event with an outbox", "breaks at 1 of 3 crash points",
		`<tr data-point="1" class="failing">`, "398", "Job 16 was applied twice", `value="1:16"`, "lib/editor.min.js",
		`href="/workbench?template=ack-after-work&amp;jobs=17&amp;crash_point=1&amp;only_crash=16"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	r = do(t, s, http.MethodGet, "/workbench?template=window&key_window=1000&jobs=2000", nil)
	if r.status != http.StatusOK || !strings.Contains(r.body, `name="key_window" value="1000"`) || !strings.Contains(r.body, `aria-current="true">Bounded dedup window`) {
		t.Errorf("a template with its parameters: %d", r.status)
	}
	r = do(t, s, http.MethodGet, "/workbench?jobs=lots", nil)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `value="lots"`) || !regexp.MustCompile(`class="error" id="wb-jobs-error">Jobs: `).MatchString(r.body) {
		t.Errorf("a refused field is said beside it, with the value kept: %d", r.status)
	}
}

// TestWorkbenchFormPost is Check without script: the form posts, the page comes back whole with
// the reader's handler, values and result; a mistake names its line and column in the list the
// editor marks from; htmx gets only the result and the parameters out of band.
func TestWorkbenchFormPost(t *testing.T) {
	s := newTestServer(t, testConfig())
	form := url.Values{"source": {template(t, "dedup-in-tx")}, "template": {"dedup-in-tx"}, "jobs": {"2000"}, "crash_rate": {"0.02"}, "world": {"consumer"}}
	r := post(t, s, "/workbench", form)
	if r.status != http.StatusOK || !strings.Contains(r.body, "<h1>The workbench</h1>") || !strings.Contains(r.body, "survives every crash point") ||
		!strings.Contains(r.body, `name="jobs" value="2000"`) {
		t.Fatalf("POST /workbench: %d\n%s", r.status, r.body)
	}
	form.Set("source", "def handle(job, queue, db, bus):\n    queue.ack()\n    oops.apply(job.id)\n")
	r = post(t, s, "/workbench", form)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `<li data-line="3" data-col="5">Line 3, column 5: `) ||
		!strings.Contains(r.body, "oops.apply(job.id)") {
		t.Errorf("a code error: %d\n%s", r.status, r.body)
	}
	form.Set("jobs", "-3")
	r = post(t, s, "/workbench", form, "HX-Request", "true", "HX-Target", "wb-result")
	if r.status != http.StatusUnprocessableEntity || strings.Contains(r.body, "<h1>") || !strings.Contains(r.body, `hx-swap-oob="outerHTML"`) ||
		!strings.Contains(r.body, `value="-3"`) || !strings.Contains(r.body, `id="wb-jobs-error"`) {
		t.Errorf("htmx Check with a refused field: %d\n%s", r.status, r.body)
	}
	form.Set("jobs", "40")
	form.Set("source", template(t, "ack-after-work"))
	form.Set("trace", "1:16")
	r = post(t, s, "/workbench/trace", form, "HX-Request", "true", "HX-Target", "wb-trace")
	if r.status != http.StatusOK || !strings.Contains(r.body, "Job 16: applied more than once when the worker dies after <code>db.apply(job.id)</code>") || strings.Contains(r.body, "wb-result") {
		t.Errorf("a job's timeline for htmx: %d\n%s", r.status, r.body)
	}
	r = post(t, s, "/workbench/trace", form)
	if r.status != http.StatusOK || !strings.Contains(r.body, "<h1>The workbench</h1>") || !strings.Contains(r.body, `id="job-workbench-16-title"`) {
		t.Errorf("a job's timeline without script: %d", r.status)
	}
}

// TestEditAndCheckLinks checks that each block page and the assembly lead to the workbench with
// their designs chosen.
func TestEditAndCheckLinks(t *testing.T) {
	s := newTestServer(t, testConfig())
	for path, want := range map[string]string{
		"/blocks/1": "/workbench?template=ack-before-work", "/blocks/3": "/workbench?template=key-uuid",
		"/blocks/4": "/workbench?template=window&amp;key_window=1000", "/blocks/6": "/workbench?template=lease-heartbeat",
		"/assembly": "/workbench?template=dedup-outside-tx",
	} {
		r := do(t, s, http.MethodGet, path, nil)
		if r.status != http.StatusOK || !strings.Contains(r.body, `<div class="edit-check">`) || !strings.Contains(r.body, `href="`+want) {
			t.Errorf("%s: %d, no Edit and check link to %s", path, r.status, want)
		}
	}
}

// BenchmarkWorkbenchAPICheck is one uncached check through the whole stack, child process
// included, at 2,000 and at the default 20,000 jobs (the targets: under 150 ms and 1 s).
func BenchmarkWorkbenchAPICheck(b *testing.B) {
	cfg := testConfig()
	cfg.RatePerSec, cfg.RateBurst = 1e6, 1e6
	s := newTestServer(b, cfg)
	tp, _ := workbench.LookupTemplate("dedup-in-tx")
	for _, jobs := range []int{2000, 20000} {
		b.Run(fmt.Sprint(jobs), func(b *testing.B) {
			for i := range b.N {
				body := fmt.Sprintf(`{"source":%q,"params":{"jobs":%d}}`, tp.Source+fmt.Sprintf("# %d\n", i), jobs)
				req := httptest.NewRequest(http.MethodPost, "/api/workbench/check", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				s.echo.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%d %s", rec.Code, rec.Body.String())
				}
			}
		})
	}
}

// TestSmallestCaseLinkReproducesIt: "Check just this case" from a template the reader changed
// carries every value that differs from the template's own, which the page lays underneath, so
// a value set back to its default stays set (the dual write posted in the consumer's world used
// to reopen in the producer's), and it checks exactly the case: one crash, that many jobs.
func TestSmallestCaseLinkReproducesIt(t *testing.T) {
	s := newTestServer(t, testConfig())
	form := url.Values{"source": {template(t, "dual-write-db-first")}, "template": {"dual-write-db-first"}, "world": {"consumer"}, "jobs": {"2000"}}
	r := post(t, s, "/workbench", form)
	m := regexp.MustCompile(`<a href="([^"]+)">Check just this case</a>`).FindStringSubmatch(r.body)
	if r.status != http.StatusOK || m == nil {
		t.Fatalf("POST: %d, no link to the smallest case", r.status)
	}
	link := html.UnescapeString(m[1])
	if !strings.Contains(link, "world=consumer") || !strings.Contains(link, "only_crash=") {
		t.Errorf("the link %s does not carry world=consumer and the one crash", link)
	}
	r = do(t, s, http.MethodGet, link, nil)
	if r.status != http.StatusOK || !strings.Contains(r.body, `<option value="consumer" selected>`) || !strings.Contains(r.body, "breaks at 1 of 1 crash points") {
		t.Errorf("GET %s: %d, not the consumer's world or not the one failing point", link, r.status)
	}
	if n := strings.Count(r.body, `<tr data-point=`); n != 1 {
		t.Errorf("the case has %d rows, want its one crash point", n)
	}
}

// TestWorkbenchTakesLongHandlers runs through the whole stack what a reader meets who pastes far
// more than a handler may have: the site's 64 KB body limit does not answer the workbench's posts
// first, so a 250 KB paste gets the workbench's refusal naming the source and its size, with the
// code kept, from Check, a timeline, "which jobs?", Run on the lab, Share and the API; past the
// workbench's own 1 MB the refusal still names the source and the size. Every other route keeps
// the site's limit.
func TestWorkbenchTakesLongHandlers(t *testing.T) {
	s := newTestServer(t, testConfig())
	var b strings.Builder
	b.WriteString(template(t, "ack-after-work"))
	for b.Len() < 250<<10 {
		b.WriteString("# pasted by mistake, line after line of it\n")
	}
	b.WriteString("# the end of the paste\n")
	form := url.Values{"source": {b.String()}, "template": {"ack-after-work"}, "jobs": {"5000"}, "trace": {"1:16"}, "which": {"1:duplicated"}, "lab_point": {"1"}}
	size := regexp.MustCompile(`is 25\d,\d{3} bytes long; (the|a shared handler may have at most) (limit is )?16,384 \(16 KB\)`)
	for _, path := range []string{"/workbench", "/workbench/trace", "/workbench/jobs", "/workbench/lab", "/workbench/share"} {
		r := post(t, s, path, form)
		if r.status != http.StatusUnprocessableEntity || !size.MatchString(r.body) || !strings.Contains(r.body, "# the end of the paste") ||
			!strings.Contains(r.body, `name="jobs" value="5000"`) {
			t.Errorf("%s without script: %d, not the workbench's refusal with the code and values kept\n%.400s", path, r.status, r.body)
		}
		r = post(t, s, path, form, "HX-Request", "true")
		if r.status != http.StatusUnprocessableEntity || !size.MatchString(r.body) || strings.Contains(r.body, "<h1>") || strings.Contains(r.body, `class="wb-verdict`) {
			t.Errorf("%s with htmx: %d\n%.400s", path, r.status, r.body)
		}
	}
	r := postJSON(t, s, "/api/workbench/check", map[string]any{"source": b.String()})
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `"field":"source"`) || !size.MatchString(r.body) {
		t.Errorf("the API: %d %.300s", r.status, r.body)
	}

	for b.Len() < 1100<<10 {
		b.WriteString("# pasted by mistake, line after line of it\n")
	}
	form.Set("source", b.String())
	r = post(t, s, "/workbench", form)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "the form sent is 1,") || !strings.Contains(r.body, "go back to the page you sent them from") {
		t.Errorf("past 1 MB without script: %d", r.status)
	}
	r = post(t, s, "/workbench", form, "HX-Request", "true")
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "The editor still holds it") {
		t.Errorf("past 1 MB with htmx: %d", r.status)
	}
	r = postJSON(t, s, "/api/workbench/shares", map[string]any{"source": b.String()})
	if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.body, `"field":"source"`) {
		t.Errorf("past 1 MB, the API: %d %.300s", r.status, r.body)
	}

	// The site's limit still holds elsewhere: the lab's form takes 64 KB.
	r = post(t, s, "/lab/runs", url.Values{"jobs": {strings.Repeat("9", 70<<10)}})
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("a 70 KB post to the lab: %d, want the site's 413", r.status)
	}
}

// TestWorkbenchPageAfterShare: the share's page opens at the status that gives its link (the
// fragment carries over the redirect, with script or without), the page's introduction names no
// stream length of its own, and the table's caption names the run's.
func TestWorkbenchPageAfterShare(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := post(t, s, "/workbench/share", url.Values{"source": {template(t, "ack-after-work") + "# shared\n"}, "jobs": {"5000"}})
	loc, frag, _ := strings.Cut(r.header.Get("Location"), "#")
	if r.status != http.StatusSeeOther || frag != "wb-share-status" {
		t.Fatalf("Share: %d %q", r.status, r.header.Get("Location"))
	}
	r = do(t, s, http.MethodGet, loc, nil)
	if r.status != http.StatusOK || !strings.Contains(r.body, `id="wb-share-status" role="status" tabindex="-1"><strong>Shared:</strong>`) ||
		!strings.Contains(r.body, "One row per crash point, on 5,000 jobs") {
		t.Errorf("the share's page: %d", r.status)
	}
	if strings.Contains(r.body, "20,000 jobs") {
		t.Error("the share's page, run on 5,000 jobs, speaks of 20,000")
	}
	if !strings.Contains(r.body, `formaction="/workbench/share#wb-share-status"`) || !strings.Contains(r.body, `formaction="/workbench/trace#wb-trace"`) {
		t.Error("without script Share or a timeline would open the page at its top")
	}
}
