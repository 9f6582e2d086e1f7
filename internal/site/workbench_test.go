package site

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/workbench"
)

// post sends a form through the whole middleware stack.
func post(t *testing.T, s *server, target string, form url.Values, header ...string) response {
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
func postJSON(t *testing.T, s *server, target string, body any) response {
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
		"Survive with a bounded key window", "Add the event with an outbox", "breaks at 1 of 3 crash points",
		`<tr data-point="1" class="failing">`, "398", "Job 16 was applied twice", `value="1:16"`, "lib/editor.min.js",
		`href="/workbench?template=ack-after-work&amp;jobs=17&amp;crash_point=1"`} {
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
	if r.status != http.StatusOK || !strings.Contains(r.body, "Job 16: duplicated at dies after") || strings.Contains(r.body, "wb-result") {
		t.Errorf("a job's timeline for htmx: %d\n%s", r.status, r.body)
	}
	r = post(t, s, "/workbench/trace", form)
	if r.status != http.StatusOK || !strings.Contains(r.body, "<h1>The workbench</h1>") || !strings.Contains(r.body, `id="job-workbench-16-title"`) {
		t.Errorf("a job's timeline without script: %d", r.status)
	}
}

// TestWorkbenchAPI checks POST /api/workbench/check: the answer's names, a code error with its
// line and column, a refused field named, and a handler over 16 KB.
func TestWorkbenchAPI(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := postJSON(t, s, "/api/workbench/check", map[string]any{"source": template(t, "ack-after-work"), "params": map[string]any{"jobs": 2000, "crash_again": false}})
	var got struct {
		Verdict  workbench.Verdict   `json:"verdict"`
		Points   []map[string]any    `json:"points"`
		Smallest *workbench.Smallest `json:"smallest"`
	}
	if r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &got) != nil {
		t.Fatalf("check: %d\n%s", r.status, r.body)
	}
	if got.Verdict.Survives || len(got.Points) != 3 || got.Smallest == nil {
		t.Fatalf("ack-after-work: %+v", got)
	}
	for _, k := range []string{"crash_point", "lost", "exactly_once", "duplicated", "deliveries"} {
		if _, ok := got.Points[1][k]; !ok {
			t.Errorf("a point lacks %q: %v", k, got.Points[1])
		}
	}
	if got.Points[1]["duplicated"].(float64) == 0 {
		t.Errorf("crash point 1 of ack-after-work duplicates nothing: %v", got.Points[1])
	}

	for _, c := range []struct {
		name   string
		body   map[string]any
		status int
		want   string
	}{
		{"code error", map[string]any{"source": "def handle(job, queue, db, bus):\n    queue.ack(\n"}, 422, `"field":"source"`},
		{"field", map[string]any{"source": template(t, "ack-after-work"), "params": map[string]any{"crash_rate": 7}}, 400, `"field":"crash_rate"`},
		{"unknown field", map[string]any{"source": template(t, "ack-after-work"), "params": map[string]any{"jobz": 7}}, 400, `"field":"jobz"`},
		{"over 16 KB", map[string]any{"source": "def handle(job, queue, db, bus):\n    pass\n" + strings.Repeat("#", 17<<10)}, 422, "16 KB"},
	} {
		r := postJSON(t, s, "/api/workbench/check", c.body)
		if r.status != c.status || !strings.Contains(r.body, c.want) || !strings.HasPrefix(r.body, `{"errors":[`) {
			t.Errorf("%s: %d %s, want %d with %s", c.name, r.status, r.body, c.status, c.want)
		}
	}
	r = postJSON(t, s, "/api/workbench/check", map[string]any{"source": "def handle(job, queue, db, bus):\n    queue.ack()\n    oops.apply(job.id)\n"})
	if !strings.Contains(r.body, `"line":3,"col":5`) {
		t.Errorf("a code error's place: %s", r.body)
	}
}

// TestWorkbenchShares checks Share: the form leads to the permanent URL, which checks the same
// handler at the same values; format=json answers the API's JSON; the API makes shares too; an
// unknown hash is a 404; and creating shares is limited per address.
func TestWorkbenchShares(t *testing.T) {
	cfg := testConfig()
	cfg.ShareCreatesPerHour = 3
	s := newTestServer(t, cfg)
	src := template(t, "ack-after-work") + "# mine\n"
	r := post(t, s, "/workbench/share", url.Values{"source": {src}, "jobs": {"2000"}, "world": {"consumer"}})
	loc := r.header.Get("Location")
	if r.status != http.StatusSeeOther || !regexp.MustCompile(`^/workbench/s/[a-z2-7]{12}\?jobs=2000$`).MatchString(loc) {
		t.Fatalf("share: %d Location %q\n%s", r.status, loc, r.body)
	}
	r = do(t, s, http.MethodGet, loc, nil)
	if r.status != http.StatusOK || !strings.Contains(r.body, "# mine") || !strings.Contains(r.body, `name="jobs" value="2000"`) ||
		!strings.Contains(r.body, "breaks at 1 of 3 crash points") || !strings.Contains(r.body, `class="permalink" href="`+strings.Split(loc, "?")[0]+`"`) {
		t.Fatalf("reopening the share: %d\n%s", r.status, r.body)
	}
	r = do(t, s, http.MethodGet, loc+"&format=json", nil)
	var got struct {
		Verdict workbench.Verdict `json:"verdict"`
		Share   string            `json:"share"`
	}
	if r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &got) != nil || got.Verdict.Survives || got.Share != strings.Split(loc, "?")[0] {
		t.Fatalf("the share as JSON: %d %s", r.status, r.body)
	}
	r = postJSON(t, s, "/api/workbench/shares", map[string]any{"source": src})
	if r.status != http.StatusCreated || !strings.Contains(r.body, strings.Split(loc, "?")[0]) {
		t.Errorf("the same source through the API gets the same hash: %d %s", r.status, r.body)
	}
	for _, path := range []string{"/workbench/s/aaaaaaaaaaaa", "/workbench/s/NOT-A-HASH"} {
		if r := do(t, s, http.MethodGet, path, nil); r.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, r.status)
		}
	}
	r = postJSON(t, s, "/api/workbench/shares", map[string]any{"source": strings.Repeat("x", 17<<10)})
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, `"field":"source"`) {
		t.Errorf("a share over 16 KB: %d %s", r.status, r.body)
	}
	for i := range 3 {
		r = postJSON(t, s, "/api/workbench/shares", map[string]any{"source": fmt.Sprintf("%s# %d\n", src, i)})
	}
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("the fourth share in an hour: %d %s, want 429 with Retry-After", r.status, r.body)
	}
	r = post(t, s, "/workbench/share", url.Values{"source": {src + "# again\n"}})
	if r.status != http.StatusTooManyRequests || !strings.Contains(r.body, "# again") || !strings.Contains(r.body, "Not shared.") {
		t.Errorf("a refused share keeps the handler on the page: %d", r.status)
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
		if r.status != http.StatusOK || !strings.Contains(r.body, `<p class="edit-check">`) || !strings.Contains(r.body, `href="`+want) {
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
