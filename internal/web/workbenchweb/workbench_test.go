package workbenchweb

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

// TestWorkbenchAPI checks POST /api/workbench/check: the answer's names, a code error with its
// line and column, a refused field named, and a handler over 16 KB.
func TestWorkbenchAPI(t *testing.T) {
	e := newTestEcho(t, 1000)
	r := postJSON(t, e, "/api/workbench/check", map[string]any{"source": template(t, "ack-after-work"), "params": map[string]any{"jobs": 2000, "crash_again": false}})
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
		r := postJSON(t, e, "/api/workbench/check", c.body)
		if r.status != c.status || !strings.Contains(r.body, c.want) || !strings.HasPrefix(r.body, `{"errors":[`) {
			t.Errorf("%s: %d %s, want %d with %s", c.name, r.status, r.body, c.status, c.want)
		}
	}
	r = postJSON(t, e, "/api/workbench/check", map[string]any{"source": "def handle(job, queue, db, bus):\n    queue.ack()\n    oops.apply(job.id)\n"})
	if !strings.Contains(r.body, `"line":3,"col":5`) {
		t.Errorf("a code error's place: %s", r.body)
	}
}

// TestWorkbenchShares checks Share: the form leads to the permanent URL, which checks the same
// handler at the same values; format=json answers the API's JSON; the API makes shares too; an
// unknown hash is a 404; and creating shares is limited per address.
func TestWorkbenchShares(t *testing.T) {
	e := newTestEcho(t, 3)
	src := template(t, "ack-after-work") + "# mine\n"
	r := post(e, "/workbench/share", url.Values{"source": {src}, "jobs": {"2000"}, "world": {"consumer"}})
	loc := r.header.Get("Location")
	if r.status != http.StatusSeeOther || !regexp.MustCompile(`^/workbench/s/[a-z2-7]{12}\?jobs=2000$`).MatchString(loc) {
		t.Fatalf("share: %d Location %q\n%s", r.status, loc, r.body)
	}
	r = get(e, loc)
	if r.status != http.StatusOK || !strings.Contains(r.body, "# mine") || !strings.Contains(r.body, `name="jobs" value="2000"`) ||
		!strings.Contains(r.body, "breaks at 1 of 3 crash points") || !strings.Contains(r.body, `class="permalink" href="`+strings.Split(loc, "?")[0]+`"`) {
		t.Fatalf("reopening the share: %d\n%s", r.status, r.body)
	}
	r = get(e, loc+"&format=json")
	var got struct {
		Verdict workbench.Verdict `json:"verdict"`
		Share   string            `json:"share"`
	}
	if r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &got) != nil || got.Verdict.Survives || got.Share != strings.Split(loc, "?")[0] {
		t.Fatalf("the share as JSON: %d %s", r.status, r.body)
	}
	r = postJSON(t, e, "/api/workbench/shares", map[string]any{"source": src})
	if r.status != http.StatusCreated || !strings.Contains(r.body, strings.Split(loc, "?")[0]) {
		t.Errorf("the same source through the API gets the same hash: %d %s", r.status, r.body)
	}
	for _, path := range []string{"/workbench/s/aaaaaaaaaaaa", "/workbench/s/NOT-A-HASH"} {
		if r := get(e, path); r.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, r.status)
		}
	}
	r = postJSON(t, e, "/api/workbench/shares", map[string]any{"source": strings.Repeat("x", 17<<10)})
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, `"field":"source"`) {
		t.Errorf("a share over 16 KB: %d %s", r.status, r.body)
	}
	for i := range 3 {
		r = postJSON(t, e, "/api/workbench/shares", map[string]any{"source": fmt.Sprintf("%s# %d\n", src, i)})
	}
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("the fourth share in an hour: %d %s, want 429 with Retry-After", r.status, r.body)
	}
	r = post(e, "/workbench/share", url.Values{"source": {src + "# again\n"}})
	if r.status != http.StatusTooManyRequests || !strings.Contains(r.body, "# again") || !strings.Contains(r.body, "Not shared.") {
		t.Errorf("a refused share keeps the handler on the page: %d", r.status)
	}
}

// TestWhichJobsForEveryCount: every count of every row, at surviving points too, asks for its
// jobs; the list comes back for htmx, in the whole page without script, and as CSV with every id.
func TestWhichJobsForEveryCount(t *testing.T) {
	e := newTestEcho(t, 1000)
	form := url.Values{"source": {template(t, "ack-after-work")}, "template": {"ack-after-work"}, "jobs": {"2000"}}
	r := post(e, "/workbench", form)
	for _, which := range []string{"0:exactly_once", "0:redelivered", "1:exactly_once", "1:duplicated", "1:redelivered", "2:exactly_once"} {
		if !strings.Contains(r.body, `name="which" value="`+which+`"`) {
			t.Errorf("the result has no which-jobs button for %s", which)
		}
	}
	// A count of 0 has no list, and neither do the deliveries where no job came twice (the crash
	// after the ack).
	for _, which := range []string{"0:lost", "0:duplicated", "2:redelivered"} {
		if strings.Contains(r.body, `value="`+which+`"`) {
			t.Errorf("%s asks for its jobs, and there are none", which)
		}
	}

	form.Set("which", "0:redelivered")
	req := httptest.NewRequest(http.MethodPost, "/workbench/jobs", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	r = send(e, req)
	if r.status != http.StatusOK || strings.Contains(r.body, "<h1>") || !strings.Contains(r.body, "Which jobs? 32 delivered more than once at crash point 0") ||
		!strings.Contains(r.body, `value="0:16"`) || !strings.Contains(r.body, `name="csv" value="0:redelivered"`) {
		t.Errorf("htmx which jobs at a point that survives: %d\n%s", r.status, r.body)
	}
	form.Set("which", "2:exactly_once")
	r = post(e, "/workbench/jobs", form)
	if r.status != http.StatusOK || !strings.Contains(r.body, "<h1>The workbench</h1>") || !strings.Contains(r.body, "Which jobs? 2,000 applied exactly once at crash point 2") ||
		!strings.Contains(r.body, "The first 50 by id") {
		t.Errorf("which jobs without script: %d", r.status)
	}
	// The list's panel and heading take ids of their own: the parameter jobs is wb-jobs already.
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(r.body, -1) {
		ids[m[1]]++
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q is given %d times in the page with a list open", id, n)
		}
	}

	form.Del("which")
	form.Set("csv", "1:duplicated")
	r = post(e, "/workbench/jobs", form)
	lines := strings.Split(strings.TrimRight(r.body, "\r\n"), "\r\n")
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(r.header.Get("Content-Disposition"), `attachment; filename="workbench-duplicated-1.csv"`) ||
		!strings.Contains(r.body, "# jobs=2000\r\n") || !strings.Contains(r.body, "# outcome=duplicated\r\n# point=1\r\n") ||
		lines[len(lines)-33] != "id" || lines[len(lines)-32] != "16" {
		t.Errorf("the CSV: %d %v\n%s", r.status, r.header, r.body)
	}
	form.Set("csv", "7:duplicated")
	if r = post(e, "/workbench/jobs", form); r.status != http.StatusBadRequest || !strings.Contains(r.body, "7 is not a crash point of this check") {
		t.Errorf("a point the check has not: %d %s", r.status, r.body)
	}
}

// TestJobsAPI: POST /api/workbench/jobs answers a count's jobs as JSON or CSV, and names what it
// refuses.
func TestJobsAPI(t *testing.T) {
	e := newTestEcho(t, 1000)
	src := template(t, "ack-after-work")
	body := map[string]any{"source": src, "params": map[string]any{"jobs": 2000}, "point": 1, "outcome": "duplicated"}
	r := postJSON(t, e, "/api/workbench/jobs", body)
	var got struct {
		Outcome string  `json:"outcome"`
		Point   int     `json:"point"`
		Total   int     `json:"total"`
		IDs     []int64 `json:"ids"`
	}
	if r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &got) != nil || got.Outcome != "duplicated" || got.Point != 1 || got.Total != 32 || got.IDs[0] != 16 {
		t.Fatalf("jobs: %d %s", r.status, r.body)
	}
	body["outcome"] = "exactly_once"
	r = postJSON(t, e, "/api/workbench/jobs?format=csv", body)
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") || strings.Count(r.body, "\r\n") != 20+1+1968 {
		t.Errorf("exactly once as CSV: %d, %d lines\n%.300s", r.status, strings.Count(r.body, "\r\n"), r.body)
	}
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"source": src, "point": 1, "outcome": "escaped"}, `"field":"outcome"`},
		{map[string]any{"source": src, "outcome": "lost"}, `"field":"point"`},
		{map[string]any{"source": src, "point": 9, "outcome": "lost"}, `9 is not a crash point of this check; its points are 0, 1, 2`},
	} {
		if r := postJSON(t, e, "/api/workbench/jobs", c.body); r.status != http.StatusBadRequest || !strings.Contains(r.body, c.want) {
			t.Errorf("%v: %d %s, want 400 with %s", c.body, r.status, r.body, c.want)
		}
	}
}

// TestSharedJobs: a share's URL with which=point:outcome answers the count's jobs as CSV, JSON or
// in the page, whose list links to its CSV.
func TestSharedJobs(t *testing.T) {
	e := newTestEcho(t, 1000)
	r := post(e, "/workbench/share", url.Values{"source": {template(t, "ack-after-work")}, "jobs": {"2000"}})
	loc := r.header.Get("Location")
	if r.status != http.StatusSeeOther {
		t.Fatalf("share: %d", r.status)
	}
	r = get(e, loc+"&which=1:duplicated&format=csv")
	if r.status != http.StatusOK || !strings.Contains(r.body, "\r\nid\r\n16\r\n") {
		t.Errorf("a share's CSV: %d %s", r.status, r.body)
	}
	r = get(e, loc+"&which=1:duplicated")
	if r.status != http.StatusOK || !strings.Contains(r.body, "Which jobs? 32 applied more than once at crash point 1") ||
		!strings.Contains(r.body, `href="`+html.EscapeString(loc+"&which=1%3Aduplicated&format=csv")+`"`) {
		t.Errorf("a share's list: %d\n%.2000s", r.status, r.body[strings.Index(r.body, "wb-which"):])
	}
	if r = get(e, loc+"&format=csv"); r.status != http.StatusBadRequest {
		t.Errorf("format=csv without which: %d", r.status)
	}
}

// TestEditInPlace: "Edit and check" loads the workbench's own form and result, without the page
// around them, for htmx; any other request gets the workbench's page.
func TestEditInPlace(t *testing.T) {
	e := newTestEcho(t, 1000)
	req := httptest.NewRequest(http.MethodGet, "/workbench/edit?template=window&key_window=1000&jobs=2000", nil)
	req.Header.Set("HX-Request", "true")
	r := send(e, req)
	for _, want := range []string{`id="wb-form"`, `data-editor="starlark"`, "key_window parameter", `name="key_window" value="1000"`,
		`id="wb-result"`, `data-editor-script="/static/lib/editor.min.js"`, `data-wb-close`, "Edit and check: Bounded dedup window",
		`href="/workbench?template=window&amp;key_window=1000"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the box lacks %q", want)
		}
	}
	if r.status != http.StatusOK || strings.Contains(r.body, "<h1>") || strings.Contains(r.body, "wb-ladder") {
		t.Errorf("in place: %d, a whole page or the ladder in it", r.status)
	}
	r = get(e, "/workbench/edit?template=window&key_window=1000&jobs=2000")
	if r.status != http.StatusOK || !strings.Contains(r.body, "<h1>The workbench</h1>") {
		t.Errorf("without htmx: %d", r.status)
	}
}

// TestProducerRow: the producer's world's row is named "as drawn", as site check names it, and
// counts failed requests where the consumer's counts lost jobs.
func TestProducerRow(t *testing.T) {
	e := newTestEcho(t, 1000)
	r := post(e, "/workbench", url.Values{"source": {template(t, "outbox")}, "world": {"producer"}, "jobs": {"2000"}})
	if r.status != http.StatusOK || !strings.Contains(r.body, `<tr data-point="as drawn" class="">`) || !strings.Contains(r.body, `<th scope="col" class="num">failed</th>`) ||
		!strings.Contains(r.body, `value="-1:failed"`) || strings.Contains(r.body, ">-1<") {
		t.Errorf("the producer's row: %d\n%s", r.status, r.body)
	}
}
