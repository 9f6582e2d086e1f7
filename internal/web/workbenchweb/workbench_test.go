package workbenchweb

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"effectivelyonce/lab"
	"effectivelyonce/pages"
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
	loc, frag, _ := strings.Cut(r.header.Get("Location"), "#")
	if r.status != http.StatusSeeOther || !regexp.MustCompile(`^/workbench/s/[a-z2-7]{12}\?jobs=2000$`).MatchString(loc) || frag != "wb-share-status" {
		t.Fatalf("share: %d Location %q\n%s", r.status, r.header.Get("Location"), r.body)
	}
	r = get(e, loc)
	if r.status != http.StatusOK || !strings.Contains(r.body, "# mine") || !strings.Contains(r.body, `name="jobs" value="2000"`) ||
		!strings.Contains(r.body, "breaks at 1 of 3 crash points") {
		t.Fatalf("reopening the share: %d\n%s", r.status, r.body)
	}
	// The page opens at the status under the buttons, which gives the link with its parameters.
	status := regexp.MustCompile(`(?s)<p class="wb-share-status shared" id="wb-share-status" role="status" tabindex="-1">(.*?)</p>`).FindStringSubmatch(r.body)
	if status == nil || !strings.Contains(status[1], "<strong>Shared:</strong>") || !strings.Contains(status[1], `href="`+html.EscapeString(loc)+`"`) ||
		!strings.Contains(status[1], `data-copy="`+html.EscapeString(loc)+`"`) {
		t.Errorf("the share's page has no status with its link %s: %v", loc, status)
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
	loc, _, _ := strings.Cut(r.header.Get("Location"), "#")
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

// TestShareSaysWhereItWent: Share from htmx answers HX-Redirect (a redirect would be followed
// inside the request and its page swapped in) to the share's page at the status that gives its
// link; a refused share from htmx is said in that status alone, the editor and result untouched.
func TestShareSaysWhereItWent(t *testing.T) {
	e := newTestEcho(t, 1)
	form := url.Values{"source": {template(t, "ack-after-work") + "# htmx\n"}, "jobs": {"5000"}}
	r := postForm(e, "/workbench/share", form, true)
	to := r.header.Get("HX-Redirect")
	if r.status != http.StatusNoContent || !regexp.MustCompile(`^/workbench/s/[a-z2-7]{12}\?jobs=5000#wb-share-status$`).MatchString(to) {
		t.Fatalf("htmx share: %d HX-Redirect %q", r.status, to)
	}
	page, _, _ := strings.Cut(to, "#")
	r = get(e, page)
	if !strings.Contains(r.body, `<strong>Shared:</strong> <a class="permalink" href="`+html.EscapeString(page)+`" data-absolute>`+html.EscapeString(page)+`</a>`) ||
		!strings.Contains(r.body, "One row per crash point, on 5,000 jobs:") {
		t.Errorf("the share's page does not give its link with jobs=5000 or count its jobs:\n%s", r.body)
	}
	form.Set("source", template(t, "ack-after-work")+"# htmx, once more\n")
	r = postForm(e, "/workbench/share", form, true)
	if r.status != http.StatusTooManyRequests || r.header.Get("HX-Redirect") != "" ||
		!regexp.MustCompile(`^<p class="wb-share-status problem" id="wb-share-status" role="alert" tabindex="-1">Not shared\. Too many handlers shared from your network address this hour\. Wait \d+ s, then press Share again\.</p>`).MatchString(r.body) {
		t.Errorf("a refused htmx share: %d %q", r.status, r.body)
	}
}

// TestUnknownTemplate: a template name that names none says so and checks nothing, so that no
// result of another handler stands under the notice as if it were the one asked for.
func TestUnknownTemplate(t *testing.T) {
	e := newTestEcho(t, 1000)
	r := get(e, "/workbench?template=bogus&jobs=2000")
	if r.status != http.StatusNotFound || !strings.Contains(r.body, "There is no template named &#34;bogus&#34;; the editor holds Ack after work instead.") {
		t.Fatalf("GET ?template=bogus: %d", r.status)
	}
	if strings.Contains(r.body, `class="wb-verdict`) || strings.Contains(r.body, "crash points") {
		t.Error("a result stands under the notice that the template does not exist")
	}
	if !strings.Contains(r.body, "db.apply(job.id)") || !strings.Contains(r.body, `name="jobs" value="2000"`) {
		t.Error("the editor or the form lost the default handler or jobs=2000")
	}
	req := httptest.NewRequest(http.MethodGet, "/workbench/edit?template=bogus", nil)
	req.Header.Set("HX-Request", "true")
	if r = send(e, req); r.status != http.StatusNotFound || strings.Contains(r.body, `class="wb-verdict`) {
		t.Errorf("Edit and check in place with no such template: %d", r.status)
	}
}

// TestCodeInLabels: the crash points' labels write the handler's code between backticks; the
// page draws it as code wherever a label shows (the table, a failure's heading and explanation,
// the timeline, the smallest case, the jobs list, the lab's menu as plain text), and the API's
// JSON keeps the label as it is. The timeline says what became of the job in words.
func TestCodeInLabels(t *testing.T) {
	e, _ := newTestHandlers(t, 1000, func(d *Deps) {
		d.LabMaxJobs = 5000
		d.LabRun = func(echo.Context, lab.Params) (*pages.LabStatus, error) {
			return nil, errors.New("no lab in this test")
		}
	})
	form := url.Values{"source": {template(t, "ack-after-work")}, "template": {"ack-after-work"}, "jobs": {"2000"}, "which": {"1:duplicated"}}
	r := post(e, "/workbench/jobs", form)
	result := r.body[strings.Index(r.body, `id="wb-result"`):strings.Index(r.body, `class="wb-ladder"`)]
	for _, want := range []string{
		`<td data-label="dies"><span class="wb-dies">dies after <code>db.apply(job.id)</code></span></td>`,
		`Crash point 1: dies after <code>db.apply(job.id)</code></h4>`,
		`the worker died right after <code>db.apply(job.id)</code> (line 5)`,
		`Job 16: applied more than once when the worker dies after <code>db.apply(job.id)</code></h4>`,
		`<strong class="ev-kind">applied</strong> <code>db.apply(job.id)</code> (line 5)`,
		`(it dies after <code>db.apply(job.id)</code>)`,
		`<p class="help">dies after <code>db.apply(job.id)</code>.`,
		`<option value="1" selected>1: dies after db.apply(job.id)</option>`,
	} {
		if !strings.Contains(result, want) {
			t.Errorf("the result lacks %s", want)
		}
	}
	// The lab's menu takes no markup: its options carry the label without backticks.
	if strings.Contains(result, "`") {
		t.Errorf("a backtick is left in the result: %s", result[max(0, strings.Index(result, "`")-80):][:160])
	}
	r = postJSON(t, e, "/api/workbench/check", map[string]any{"source": template(t, "ack-after-work"), "params": map[string]any{"jobs": 2000}})
	if !strings.Contains(r.body, `"label":"dies after `+"`db.apply(job.id)`"+`"`) {
		t.Errorf("the API's label is not the label as written: %.400s", r.body)
	}
	form.Set("trace", "1:16")
	r = post(e, "/workbench/trace", form)
	if !strings.Contains(r.body, `formaction="/workbench/trace#wb-trace"`) || !strings.Contains(r.body, `id="job-workbench-16-title"`) {
		t.Error("without script a job's timeline does not open at the timeline's panel")
	}
}
