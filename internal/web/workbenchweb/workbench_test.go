package workbenchweb

import (
	"effectivelyonce/workbench"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
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
