package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/static"
)

func testConfig() config {
	return config{Addr: "127.0.0.1:0", ClientIP: "direct", LogFormat: "text", CacheBytes: 16 << 20,
		MaxRuns: 2, QueueWait: 2 * time.Second, RunTimeout: 10 * time.Second, RatePerSec: 1000, RateBurst: 1000}
}

// newTestServer builds the real server (real content, real assets, warm defaults) with cfg.
func newTestServer(t testing.TB, cfg config) *server {
	t.Helper()
	book, err := content.Load(content.Files)
	if err != nil {
		t.Fatal(err)
	}
	a, err := loadAssets(static.Files)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), book, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.runner.warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

type response struct {
	status int
	header http.Header
	body   string
}

// do sends a request through the whole middleware stack.
func do(t testing.TB, s *server, method, target string, header map[string]string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

func TestRoutes(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, tc := range []struct {
		path, ctype, want string
		status            int
	}{
		{"/", "text/html", "Predict", 200},
		{"/semantics", "text/html", `id="exp-scale"`, 200},
		{"/blocks/1", "text/html", `id="exp-assembly"`, 200},
		{"/blocks/2", "text/html", `id="exp-assembly"`, 200},
		{"/blocks/3", "text/html", `id="exp-keys"`, 200},
		{"/blocks/4", "text/html", `id="exp-window"`, 200},
		{"/blocks/5", "text/html", `id="exp-orderings"`, 200},
		{"/blocks/6", "text/html", `id="exp-lease"`, 200},
		{"/assembly", "text/html", "dedup-transactional", 200},
		{"/verify", "text/html", "9/9 claims verified", 200},
		{"/glossary", "text/html", "Glossary", 200},
		{"/api/experiments", "application/json", `"name":"window"`, 200},
		{"/api/experiments/assembly", "application/json", `"lost":398`, 200},
		{"/healthz", "text/plain", "ok", 200},
		{"/metrics", "text/plain", "site_http_requests_total", 200},
		{"/blocks/7", "text/html", "6 blocks, numbered 1 to 6", 404},
		{"/blocks/01", "text/html", "6 blocks, numbered 1 to 6", 404},
		{"/no/such/page", "text/html", "Back to the start", 404},
		{"/api/experiments/nope", "application/json", `"field":"name"`, 404},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := do(t, s, "GET", tc.path, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", r.status, tc.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, tc.ctype) {
				t.Errorf("content type %q, want %q", ct, tc.ctype)
			}
			if !strings.Contains(r.body, tc.want) {
				t.Errorf("body lacks %q: %.500s", tc.want, r.body)
			}
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, path := range []string{"/", "/blocks/4?jobs=-1", "/api/experiments/window", "/nope"} {
		r := do(t, s, "GET", path, nil)
		if got := r.header.Get("Content-Security-Policy"); got != csp {
			t.Errorf("%s: CSP %q", path, got)
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
			if r.header.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", path, k, r.header.Get(k), v)
			}
		}
		if strings.Contains(r.body, "<script>") || regexp.MustCompile(`<script(?: [^>]*)?>[^<]`).MatchString(strings.ReplaceAll(r.body, `type="application/json">`, "")) {
			t.Errorf("%s: inline script in the page", path)
		}
		if strings.Contains(r.body, "http://") && !strings.Contains(path, "api") {
			for _, m := range regexp.MustCompile(`(?:src|href)="https?://[^"]*"`).FindAllString(r.body, -1) {
				t.Errorf("%s: remote asset %s", path, m)
			}
		}
	}
}

func TestHeadAnswersLikeGet(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, path := range []string{"/", "/blocks/4", "/api/experiments", "/healthz"} {
		r := do(t, s, "HEAD", path, nil)
		if r.status != 200 {
			t.Errorf("HEAD %s: %d", path, r.status)
		}
	}
}

// TestPermalinkMatchesAPI reruns block 4 with the reader's values and checks that the page shows
// the numbers the API gives for the same query, and that the permalink carries the values.
func TestPermalinkMatchesAPI(t *testing.T) {
	s := newTestServer(t, testConfig())
	q := "jobs=30000&max_delay=5000&windows=1000,3000,6000&seed=7"
	page := do(t, s, "GET", "/blocks/4?"+q, nil)
	if page.status != 200 {
		t.Fatalf("page status %d", page.status)
	}
	api := do(t, s, "GET", "/api/experiments/window?"+q, nil)
	var got struct {
		Experiment string                   `json:"experiment"`
		Params     experiments.WindowParams `json:"params"`
		Result     experiments.WindowResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(api.body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Params.Jobs != 30000 || got.Params.MaxDelay != 5000 || got.Params.DelaySeed != 17 {
		t.Errorf("params not filled: %+v", got.Params)
	}
	if len(got.Result.Points) != 3 {
		t.Fatalf("points %+v", got.Result.Points)
	}
	for _, p := range got.Result.Points {
		cell := ">" + count(p.Escaped) + "</td>"
		if !strings.Contains(page.body, cell) {
			t.Errorf("page lacks escaped count %s for window %d", cell, p.Window)
		}
	}
	// The permalink on the page reproduces the same query.
	m := regexp.MustCompile(`class="permalink" href="([^"]+)"`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatal("no permalink")
	}
	link, _, _ := strings.Cut(strings.ReplaceAll(m[1], "&amp;", "&"), "#") // browsers never send the fragment
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if u.Query().Get("max_delay") != "5000" || u.Query().Get("windows") != "1000,3000,6000" || u.Query().Get("seed") != "7" {
		t.Errorf("permalink %s lost the reader's values", link)
	}
	again := do(t, s, "GET", link, nil)
	if again.status != 200 {
		t.Fatalf("permalink %s answered %d", link, again.status)
	}
	for _, p := range got.Result.Points {
		if !strings.Contains(again.body, ">"+count(p.Escaped)+"</td>") {
			t.Errorf("permalink page lacks %d", p.Escaped)
		}
	}
}

func TestBadInputKeepsValues(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, "GET", "/blocks/4?jobs=500&max_delay=-3&windows=10,abc", nil)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", r.status)
	}
	for _, want := range []string{
		`value="500"`, `value="-3"`, `value="10,abc"`, // the reader's values stay in the form
		"Max redelivery delay:", "from 1 to 10,000,000", // the message names the field and the range
		`aria-invalid="true"`, "Nothing was run",
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("422 page lacks %q", want)
		}
	}
	// Hostile text is escaped, never reflected as markup.
	r = do(t, s, "GET", "/blocks/4?max_delay="+url.QueryEscape(`<script>alert(1)</script>`), nil)
	if r.status != 422 || strings.Contains(r.body, "<script>alert") {
		t.Errorf("status %d; reflected script: %v", r.status, strings.Contains(r.body, "<script>alert"))
	}
}

func TestAPIErrors(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, tc := range []struct{ query, field string }{
		{"jobs=abc", "jobs"},
		{"jobs=0", "jobs"},
		{"crash_rate=NaN", "crash_rate"},
		{"windows=" + strings.Repeat("1,", 60) + "1", "windows"},
		{"jobs=1&jobs=2", "jobs"},
		{"window=5", "window"},
		{"format=xml", "format"},
		{"jobs=10000000&windows=" + manyWindows(50), "jobs"},
	} {
		t.Run(tc.query[:min(len(tc.query), 30)], func(t *testing.T) {
			r := do(t, s, "GET", "/api/experiments/window?"+tc.query, nil)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %s", r.status, r.body)
			}
			var body struct {
				Errors []experiments.FieldError `json:"errors"`
			}
			if err := json.Unmarshal([]byte(r.body), &body); err != nil || len(body.Errors) == 0 {
				t.Fatalf("body %s", r.body)
			}
			if body.Errors[0].Field != tc.field || body.Errors[0].Message == "" {
				t.Errorf("errors %+v, want field %s", body.Errors, tc.field)
			}
		})
	}
}

func TestHTMXFragment(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, "GET", "/blocks/4?max_delay=1000", map[string]string{"HX-Request": "true", "HX-Target": "exp-window"})
	if r.status != 200 || strings.Contains(r.body, "<html") || !strings.HasPrefix(strings.TrimSpace(r.body), `<section class="experiment" id="exp-window"`) {
		t.Errorf("fragment status %d: %.200s", r.status, r.body)
	}
	bad := do(t, s, "GET", "/blocks/4?max_delay=0", map[string]string{"HX-Request": "true", "HX-Target": "exp-window"})
	if bad.status != 422 || !strings.Contains(bad.body, `aria-invalid="true"`) {
		t.Errorf("invalid fragment status %d", bad.status)
	}
}

// TestFragmentDoesOnlyItsOwnWork: an htmx rerun of one experiment runs that experiment alone and
// answers with its own status, whatever the page's other forms hold.
func TestFragmentDoesOnlyItsOwnWork(t *testing.T) {
	s := newTestServer(t, testConfig())
	hx := map[string]string{"HX-Request": "true", "HX-Target": "exp-window"}
	r := do(t, s, "GET", "/blocks/4?max_delay=1500&window-grid.jobs=-1", hx)
	if r.status != 200 || !strings.Contains(r.body, `id="exp-window"`) || strings.Contains(r.body, `id="exp-window-grid"`) {
		t.Errorf("a valid window fragment beside a refused grid: status %d, %.200s", r.status, r.body)
	}
	if !strings.Contains(r.body, `type="hidden" name="window-grid.jobs" value="-1"`) {
		t.Error("the fragment's form must still carry the grid's values")
	}
	grid, _ := experiments.Lookup("window-grid")
	p, err := grid.Parse(map[string][]string{"seed": {"777"}})
	if err != nil {
		t.Fatal(err)
	}
	do(t, s, "GET", "/blocks/4?max_delay=1700&window-grid.seed=777", hx)
	if _, ok := s.runner.cache.get(grid.Key(p)); ok {
		t.Error("a window fragment ran the grid as well")
	}
	do(t, s, "GET", "/blocks/4?max_delay=1700&window-grid.seed=777", nil)
	if _, ok := s.runner.cache.get(grid.Key(p)); !ok {
		t.Error("the whole page did not run the grid")
	}
	tl := do(t, s, "GET", "/semantics?step=3", map[string]string{"HX-Request": "true", "HX-Target": "timeline"})
	if tl.status != 200 || !strings.HasPrefix(strings.TrimSpace(tl.body), `<section class="timeline"`) {
		t.Errorf("timeline fragment: status %d, %.100s", tl.status, tl.body)
	}
}

func TestTwoExperimentsShareAPage(t *testing.T) {
	s := newTestServer(t, testConfig())
	// Block 4 holds window (unprefixed) and window-grid (prefixed): each keeps its own values.
	r := do(t, s, "GET", "/blocks/4?max_delay=3000&window-grid.max_delays=100,200", nil)
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	if !strings.Contains(r.body, `name="window-grid.max_delays" value="100,200"`) {
		t.Error("grid form lost its values")
	}
	if !strings.Contains(r.body, `type="hidden" name="window-grid.max_delays" value="100,200"`) {
		t.Error("window form does not carry the grid's values")
	}
	if !strings.Contains(r.body, `type="hidden" name="max_delay" value="3000"`) {
		t.Error("grid form does not carry the window's values")
	}
}

func TestStaticAssets(t *testing.T) {
	s := newTestServer(t, testConfig())
	page := do(t, s, "GET", "/blocks/4", nil)
	m := regexp.MustCompile(`src="(/static/[0-9a-f]{12}/lib/echarts\.min\.js)"`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatal("no versioned echarts URL on the page")
	}
	r := do(t, s, "GET", m[1], map[string]string{"Accept-Encoding": "gzip"})
	if r.status != 200 || r.header.Get("Content-Encoding") != "gzip" || !strings.Contains(r.header.Get("Cache-Control"), "immutable") {
		t.Fatalf("status %d headers %v", r.status, r.header)
	}
	zr, err := gzip.NewReader(strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	if !bytes.Contains(b, []byte("echarts")) {
		t.Error("gzip body is not echarts")
	}
	if r := do(t, s, "GET", "/static/0000/app.css", nil); r.status != 200 || strings.Contains(r.header.Get("Cache-Control"), "immutable") {
		t.Errorf("stale hash: %d %s", r.status, r.header.Get("Cache-Control"))
	}
	if r := do(t, s, "GET", "/static/0000/nope.js", nil); r.status != 404 {
		t.Errorf("missing asset: %d", r.status)
	}
}

func TestBasePath(t *testing.T) {
	cfg := testConfig()
	cfg.BasePath = "/notebook"
	s := newTestServer(t, cfg)
	r := do(t, s, "GET", "/notebook/blocks/4", nil)
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	for _, want := range []string{`src="/notebook/static/`, `href="/notebook/blocks/5"`, `action="/notebook/blocks/4#exp-window"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if r := do(t, s, "GET", "/blocks/4", nil); r.status != 404 {
		t.Errorf("unprefixed path answered %d", r.status)
	}
}

// TestBusyAnswers503 fills every heavy slot and checks that a heavy rerun is refused with 503,
// Retry-After and the form kept, while a default page still answers at once from the cache.
func TestBusyAnswers503(t *testing.T) {
	cfg := testConfig()
	cfg.MaxRuns = 1
	cfg.QueueWait = 20 * time.Millisecond
	s := newTestServer(t, cfg)
	s.runner.heavy <- struct{}{}
	defer func() { <-s.runner.heavy }()
	r := do(t, s, "GET", "/blocks/4?jobs=2000000&seed=99", nil)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Fatalf("status %d retry-after %q", r.status, r.header.Get("Retry-After"))
	}
	if !strings.Contains(r.body, `value="2000000"`) || !strings.Contains(r.body, "busy") {
		t.Error("503 page lost the form or the reason")
	}
	api := do(t, s, "GET", "/api/experiments/window?jobs=2000000&seed=98", nil)
	if api.status != 503 {
		t.Errorf("api status %d", api.status)
	}
	if r := do(t, s, "GET", "/blocks/4", nil); r.status != 200 {
		t.Errorf("default page waited behind the heavy lane: %d", r.status)
	}
	if r := do(t, s, "GET", "/blocks/4?seed=5", nil); r.status != 200 {
		t.Errorf("a light rerun waited behind the heavy lane: %d", r.status)
	}
}

func TestRunStopsWhenClientLeaves(t *testing.T) {
	s := newTestServer(t, testConfig())
	e, _ := experiments.Lookup("window")
	p, err := e.Parse(map[string][]string{"jobs": {"5000000"}, "seed": {"1234"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := s.runner.run(ctx, e, p); done <- err }()
	time.Sleep(5 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not stop after the client left")
	}
	if len(s.runner.heavy) != 0 {
		// The slot must be released once the cancelled run returns.
		time.Sleep(100 * time.Millisecond)
		if len(s.runner.heavy) != 0 {
			t.Error("heavy slot not released")
		}
	}
}

func TestRateLimit(t *testing.T) {
	cfg := testConfig()
	cfg.RatePerSec, cfg.RateBurst = 0.001, 2
	s := newTestServer(t, cfg)
	codes := []int{}
	for i := range 4 {
		codes = append(codes, do(t, s, "GET", "/blocks/1?seed="+string(rune('1'+i)), nil).status)
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != 429 {
		t.Errorf("codes %v, want 200 200 429", codes)
	}
	if r := do(t, s, "GET", "/blocks/1", nil); r.status != 200 {
		t.Errorf("a plain page view was rate limited: %d", r.status)
	}
}

func TestCacheIsBounded(t *testing.T) {
	c := newResultCache(1 << 20)
	big := make([]int64, 4000)
	for i := range 200 {
		c.add(strings.Repeat("k", i+1), big, false)
	}
	if c.bytes() > 1<<20 {
		t.Errorf("cache holds %d bytes, limit %d", c.bytes(), 1<<20)
	}
	c.add("pinned", big, true)
	for i := range 200 {
		c.add("x"+strings.Repeat("k", i+1), big, false)
	}
	if _, ok := c.get("pinned"); !ok {
		t.Error("pinned default evicted")
	}
}

// count writes an integer as the pages do, with thousands separators.
func count(v int64) string {
	s := strconv.FormatInt(v, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func manyWindows(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(100 + i)
	}
	return strings.Join(parts, ",")
}

// reading returns the text of the "what the numbers say" block of one experiment on a page.
func reading(t *testing.T, body, domID string) string {
	t.Helper()
	i := strings.Index(body, `id="`+domID+`"`)
	if i < 0 {
		t.Fatalf("no %s on the page", domID)
	}
	rest := body[i:]
	j := strings.Index(rest, `<div class="reading">`)
	k := strings.Index(rest, `</section>`)
	if j < 0 || (k >= 0 && j > k) {
		t.Fatalf("no reading in %s", domID)
	}
	end := strings.Index(rest[j:], "</div>")
	return regexp.MustCompile(`<[^>]+>`).ReplaceAllString(rest[j:j+end], " ")
}

// TestReadingsFollowTheRun changes the parameters on blocks 1, 4 and 6 and checks that the prose
// under the chart quotes the numbers of the run on screen, not the document's.
func TestReadingsFollowTheRun(t *testing.T) {
	s := newTestServer(t, testConfig())
	api := func(q string, v any) {
		r := do(t, s, "GET", q, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d", q, r.status)
		}
		if err := json.Unmarshal([]byte(r.body), v); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("block 1", func(t *testing.T) {
		var got struct{ Result experiments.AssemblyResult }
		api("/api/experiments/assembly?jobs=50000&crash_rate=0.07&seed=3", &got)
		page := do(t, s, "GET", "/blocks/1?jobs=50000&crash_rate=0.07&seed=3", nil).body
		text := reading(t, page, "exp-assembly")
		lost := got.Result.Rows[0].Lost
		if lost == 398 || !strings.Contains(text, count(lost)) || !strings.Contains(text, "50,000") {
			t.Errorf("reading does not quote the run (lost %d):\n%s", lost, text)
		}
	})
	t.Run("block 4", func(t *testing.T) {
		var got struct{ Result experiments.WindowResult }
		api("/api/experiments/window?max_delay=7000&windows=500,4000,8000", &got)
		page := do(t, s, "GET", "/blocks/4?max_delay=7000&windows=500,4000,8000", nil).body
		text := reading(t, page, "exp-window")
		first := got.Result.Points[0].Escaped
		if !strings.Contains(text, count(first)) || !strings.Contains(text, "7,000") || !strings.Contains(text, "8,000") {
			t.Errorf("reading does not quote the run (escaped %d at 500):\n%s", first, text)
		}
		if strings.Contains(text, "380") {
			t.Errorf("reading quotes the document's 380:\n%s", text)
		}
	})
	t.Run("block 6", func(t *testing.T) {
		var got struct{ Result experiments.LeaseResult }
		api("/api/experiments/lease?timeouts=10,20,600&slow_mean_s=90", &got)
		page := do(t, s, "GET", "/blocks/6?timeouts=10,20,600&slow_mean_s=90", nil).body
		text := reading(t, page, "exp-lease")
		first := got.Result.Points[0].NoRenewal
		if first == 2448 || !strings.Contains(text, count(first)) {
			t.Errorf("reading does not quote the run (%d doubled at 10 s):\n%s", first, text)
		}
	})
}

func TestBodyLimitAndTimeouts(t *testing.T) {
	s := newTestServer(t, testConfig())
	req := httptest.NewRequest("POST", "/blocks/4", strings.NewReader(strings.Repeat("x", 100<<10)))
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("100 KB body answered %d, want 413", rec.Code)
	}
	hs := newHTTPServer(testConfig(), s.echo)
	if hs.ReadHeaderTimeout == 0 || hs.ReadTimeout == 0 || hs.WriteTimeout <= testConfig().RunTimeout || hs.IdleTimeout == 0 || hs.MaxHeaderBytes == 0 {
		t.Errorf("server timeouts not all set: %+v", hs)
	}
}

// TestStreamParamsShared checks that the first form's stream parameters reach a later experiment
// on the page, that its own form still wins, and that inherited values are not frozen into the
// first form's hidden inputs.
func TestStreamParamsShared(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, "GET", "/blocks/3?crash_rate=0.1", nil)
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	if !strings.Contains(r.body, `name="keys.crash_rate" value="0.1"`) {
		t.Error("keys did not take the first form's crash rate")
	}
	if strings.Contains(r.body, `type="hidden" name="keys.crash_rate"`) {
		t.Error("an inherited value was frozen into the first form")
	}
	var got struct{ Result experiments.KeysResult }
	api := do(t, s, "GET", "/api/experiments/keys?crash_rate=0.1", nil)
	if err := json.Unmarshal([]byte(api.body), &got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.body, ">"+count(got.Result.Rows[1].Duplicated)+"</td>") {
		t.Errorf("keys table does not show the run at crash_rate=0.1 (%d)", got.Result.Rows[1].Duplicated)
	}
	own := do(t, s, "GET", "/blocks/3?crash_rate=0.1&keys.crash_rate=0.3", nil)
	if !strings.Contains(own.body, `name="keys.crash_rate" value="0.3"`) {
		t.Error("the experiment's own value must win over the shared one")
	}
	// Block 5's outbox has its own crash-rate spec (per step, up to 0.5): nothing is shared.
	b5 := do(t, s, "GET", "/blocks/5?crash_rate=0.9", nil)
	if b5.status != 200 || !strings.Contains(b5.body, `name="outbox.crash_rate" value="0.02"`) {
		t.Errorf("outbox took a crash rate of another spec (status %d)", b5.status)
	}
}
