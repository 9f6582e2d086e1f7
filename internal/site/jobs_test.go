package site

import (
	"context"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/web/notebook"
	"effectivelyonce/pages"
	"effectivelyonce/present"
)

// escapedAt1000 is what the engine lists for block 4's escaped count at window 1,000, at the
// defaults: the answer the routes must give.
func escapedAt1000(t *testing.T) experiments.JobList {
	t.Helper()
	w, _ := experiments.Lookup("window")
	list, err := w.Jobs(context.Background(), w.Defaults(), "escaped", "1000")
	if err != nil || list.Total == 0 {
		t.Fatalf("no escaped jobs at window 1000: %v", err)
	}
	res, err := w.Run(context.Background(), w.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range w.Counts(res) {
		if c.Point == "1000" && c.Name == "escaped" && c.Value != float64(list.Total) {
			t.Fatalf("the engine lists %d jobs, the run counts %v", list.Total, c.Value)
		}
	}
	return list
}

// TestJobsAPI lists the escaped jobs at window 1,000 as JSON and CSV, traces the first, and
// checks the listing of outcomes in GET /api/experiments.
func TestJobsAPI(t *testing.T) {
	s := newTestServer(t, testConfig())
	want := escapedAt1000(t)

	r := do(t, s, "GET", "/api/experiments/window/jobs?outcome=escaped&point=1000", nil)
	var list experiments.JobList
	if r.status != 200 || json.Unmarshal([]byte(r.body), &list) != nil {
		t.Fatalf("status %d: %.300s", r.status, r.body)
	}
	if list.Total != want.Total || len(list.IDs) != len(want.IDs) || list.IDs[0] != want.IDs[0] || list.Outcome != "escaped" || list.Point != "1000" {
		t.Fatalf("got %s total %d (%d ids) at %s, want %d ids from %d", list.Outcome, list.Total, len(list.IDs), list.Point, want.Total, want.IDs[0])
	}

	r = do(t, s, "GET", "/api/experiments/window/jobs?outcome=escaped&point=1000&format=csv", nil)
	lines := strings.Split(strings.TrimSuffix(r.body, "\r\n"), "\r\n")
	var rows []string
	header := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "#"):
		case l == "id" && !header:
			header = true
		default:
			rows = append(rows, l)
		}
	}
	if r.status != 200 || !strings.HasPrefix(r.body, "# experiment=window\r\n") || !header || len(rows) != int(want.Total) || rows[0] != strconv.FormatInt(want.IDs[0], 10) {
		t.Fatalf("csv: status %d, %d rows, header %v: %.300s", r.status, len(rows), header, r.body)
	}
	// A list is an export like a run's CSV: it says which build and which inputs made it.
	w, _ := experiments.Lookup("window")
	if prov := "# version=devel\r\n# params_hash=" + w.ParamsHash(w.Defaults()) + "\r\nid\r\n"; !strings.Contains(r.body, prov) {
		t.Errorf("csv lacks the run's present.Provenance %q: %.400s", prov, r.body)
	}

	id := strconv.FormatInt(want.IDs[0], 10)
	r = do(t, s, "GET", "/api/experiments/window/jobs/"+id+"?point=1000", nil)
	var tr experiments.Trace
	if r.status != 200 || json.Unmarshal([]byte(r.body), &tr) != nil {
		t.Fatalf("trace: status %d: %.300s", r.status, r.body)
	}
	kinds := map[experiments.EventKind]int{}
	for _, e := range tr.Events {
		kinds[e.Kind]++
	}
	if tr.Outcome != "escaped" || strconv.FormatInt(tr.ID, 10) != id || kinds[experiments.EventEvicted] != 1 || kinds[experiments.EventApplied] != 2 {
		t.Fatalf("trace of %s: %+v", id, tr)
	}

	r = do(t, s, "GET", "/api/experiments", nil)
	var cat struct {
		Experiments []notebook.APIExperiment `json:"experiments"`
	}
	if err := json.Unmarshal([]byte(r.body), &cat); err != nil {
		t.Fatal(err)
	}
	for _, e := range cat.Experiments {
		traceable := e.Name != "claims" && e.Name != "scale" && e.Name != "window-time"
		if (e.Jobs != nil) != traceable {
			t.Errorf("%s: jobs described %v, want %v", e.Name, e.Jobs != nil, traceable)
		}
		if e.Name == "window" && (e.Jobs.Outcomes[0] != "escaped" || !strings.Contains(strings.Join(e.Jobs.Points, ","), "1000")) {
			t.Errorf("window's jobs: %+v", e.Jobs)
		}
	}
}

// TestJobsAPIErrors: each bad key is a 400 whose error names it; an unknown experiment is a 404.
func TestJobsAPIErrors(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, tc := range []struct{ target, field string }{
		{"/api/experiments/window/jobs?outcome=vanished", "outcome"},
		{"/api/experiments/window/jobs", "outcome"},
		{"/api/experiments/window/jobs?outcome=escaped&point=999", "point"},
		{"/api/experiments/window/jobs?outcome=escaped&format=xml", "format"},
		{"/api/experiments/window/jobs?outcome=escaped&jobs=abc", "jobs"},
		{"/api/experiments/window/jobs?outcome=escaped&colour=red", "colour"},
		{"/api/experiments/window/jobs?outcome=escaped&outcome=lost", "outcome"},
		{"/api/experiments/window/jobs/20000", "id"},
		{"/api/experiments/window/jobs/x1", "id"},
		{"/api/experiments/lease/jobs/3?point=31", "point"},
		{"/api/experiments/claims/jobs?outcome=lost", "outcome"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			r := do(t, s, "GET", tc.target, nil)
			var body present.APIErrors
			if r.status != 400 || json.Unmarshal([]byte(r.body), &body) != nil || len(body.Errors) == 0 {
				t.Fatalf("status %d: %.300s", r.status, r.body)
			}
			if body.Errors[0].Field != tc.field || body.Errors[0].Message == "" {
				t.Errorf("errors %+v, want field %s first", body.Errors, tc.field)
			}
		})
	}
	for _, target := range []string{"/api/experiments/nope/jobs?outcome=lost", "/api/experiments/nope/jobs/1", "/jobs/nope?outcome=lost", "/jobs/nope/1"} {
		if r := do(t, s, "GET", target, nil); r.status != 404 {
			t.Errorf("%s: status %d, want 404", target, r.status)
		}
	}
}

// TestJobsPages: a list and a timeline are whole pages for a plain request and fragments for the
// block's panel; the fragment's links stay in the panel.
func TestJobsPages(t *testing.T) {
	s := newTestServer(t, testConfig())
	want := escapedAt1000(t)
	id := strconv.FormatInt(want.IDs[0], 10)
	list := "/jobs/window?outcome=escaped&point=1000"
	panel := map[string]string{"HX-Request": "true", "HX-Target": "exp-window-which-jobs"}

	r := do(t, s, "GET", list, nil)
	if r.status != 200 || !strings.Contains(r.body, "<h1>Which jobs?</h1>") || !strings.Contains(r.body, experiments.Thousands(want.Total)+" jobs escaped at window 1,000") {
		t.Fatalf("list page: status %d: %.400s", r.status, r.body)
	}
	if n := strings.Count(r.body, `aria-label="timeline of job `); n != min(int(want.Total), 50) || strings.Contains(r.body, "hx-get=\"/jobs/window/") {
		t.Errorf("the list page links %d ids (want %d), htmx links %v", n, min(int(want.Total), 50), strings.Contains(r.body, "hx-get"))
	}
	r = do(t, s, "GET", list, panel)
	if r.status != 200 || strings.Contains(r.body, "<html") || !strings.Contains(r.body, `hx-target="#exp-window-which-jobs"`) {
		t.Fatalf("list fragment: status %d: %.400s", r.status, r.body)
	}
	// A target that is not a panel is not echoed: the answer is a whole page.
	if r = do(t, s, "GET", list, map[string]string{"HX-Request": "true", "HX-Target": `x" onclick="y`}); !strings.Contains(r.body, "<html") || strings.Contains(r.body, "onclick") {
		t.Errorf("an odd HX-Target was used: %.300s", r.body)
	}

	r = do(t, s, "GET", "/jobs/window/"+id+"?point=1000&outcome=escaped", panel)
	if r.status != 200 || strings.Contains(r.body, "<html") || !strings.Contains(r.body, "<svg class=\"job-timeline\"") ||
		!strings.Contains(r.body, ">evicted<") || !strings.Contains(r.body, "Back to the list") {
		t.Fatalf("timeline fragment: status %d: %.600s", r.status, r.body)
	}
	if r = do(t, s, "GET", "/jobs/window/"+id+"?point=1000", nil); r.status != 200 || !strings.Contains(r.body, "<h1>Timeline of job "+id+"</h1>") {
		t.Fatalf("timeline page: status %d: %.300s", r.status, r.body)
	}
	if r = do(t, s, "GET", "/jobs/window/"+id+"?point=77", nil); r.status != 400 || !strings.Contains(r.body, "point") {
		t.Errorf("a bad point: status %d: %.300s", r.status, r.body)
	}
}

// jobCountCell is how a table cell holding a job count starts: the number, then its "which jobs?"
// link when there are jobs to list.
func jobCountCell(n int64) string {
	if n == 0 {
		return ">0</td>"
	}
	return ">" + count(n) + `<a class="which-jobs"`
}

// whichJobsLabel reads the accessible names of the "which jobs?" links of a page.
var whichJobsLabel = regexp.MustCompile(`<a class="which-jobs"[^>]*aria-label="([^"]*)"`)

// TestWhichJobsLabelsUnique checks, on every notebook page at its defaults, that no two "which
// jobs?" links share an accessible name: a screen reader's list of links would offer two choices
// it cannot tell apart (block 5's outbox rows with and without consumer dedup did).
func TestWhichJobsLabelsUnique(t *testing.T) {
	s := newTestServer(t, testConfig())
	links := 0
	for _, entry := range content.Contents() {
		r := do(t, s, "GET", entry.Path, nil)
		if r.status != 200 {
			t.Fatalf("%s: status %d", entry.Path, r.status)
		}
		seen := map[string]bool{}
		for _, m := range whichJobsLabel.FindAllStringSubmatch(r.body, -1) {
			links++
			if seen[m[1]] {
				t.Errorf("%s: two links are named %q", entry.Path, m[1])
			}
			seen[m[1]] = true
		}
	}
	if links < 20 {
		t.Fatalf("only %d which-jobs links on the whole notebook", links)
	}
}

// TestJobsPagesLeadBack checks that the list and the timeline, as pages of their own, end with a
// link back to the notebook page that shows the experiment, landing on the same run (the block
// there prints the same parameters' fingerprint), and with the run's provenance. window is its
// page's first experiment; window-grid a later one, whose shared stream fields ride unprefixed.
func TestJobsPagesLeadBack(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, tc := range []struct{ name, query, title string }{
		{"window", "jobs=6000&windows=100,1000", "The bounded dedup window"},
		{"window-grid", "jobs=6000&windows=100,400&max_delays=500,2000", "The bounded dedup window"},
		{"lease", "jobs=3000&timeouts=5,30", "heartbeat"},
	} {
		e, _ := experiments.Lookup(tc.name)
		q, _ := url.ParseQuery(tc.query)
		p, err := e.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		hash := e.ParamsHash(p)
		outcome, point := e.Outcomes()[0], e.Points(p)[0]
		list := "/jobs/" + tc.name + "?" + tc.query + "&outcome=" + outcome + "&point=" + url.QueryEscape(point)
		for _, path := range []string{list, "/jobs/" + tc.name + "/0?" + tc.query + "&point=" + url.QueryEscape(point)} {
			r := do(t, s, "GET", path, nil)
			if r.status != 200 || !strings.Contains(r.body, "parameters <code>"+hash+"</code>") || !strings.Contains(r.body, "Notebook version <code>") {
				t.Fatalf("%s: status %d, no present.Provenance %s: %.300s", path, r.status, hash, r.body)
			}
			m := regexp.MustCompile(`<footer class="jobs-foot"><p><a href="([^"]*)">Back to ([^<]*)</a>`).FindStringSubmatch(r.body)
			if m == nil || !strings.Contains(m[2], tc.title) {
				t.Fatalf("%s: no link back to the notebook page %q: %v", path, tc.title, m)
			}
			back, anchor, _ := strings.Cut(html.UnescapeString(m[1]), "#") // a browser keeps the fragment to itself
			if anchor != pages.DOMID(tc.name) {
				t.Errorf("%s: back to #%s, not to the experiment's block", path, anchor)
			}
			page := do(t, s, "GET", back, nil)
			if page.status != 200 || !strings.Contains(page.body, `id="`+pages.DOMID(tc.name)+`"`) || !strings.Contains(page.body, "<code>"+hash+"</code>") {
				t.Errorf("%s: back to %s does not land on the same run (%s): status %d: %.300s", path, back, hash, page.status, page.body)
			}
		}
	}
}
