package site

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/content"
)

// TestRoutes requests every page of content.Contents() and every other route through the whole
// middleware stack, and checks the status, the content type and a piece of the body that only the
// right handler renders. The pages come from the one table of pages, so a page added there without
// a line in shows fails here instead of going unrequested.
func TestRoutes(t *testing.T) {
	s := newTestServer(t, testConfig())
	// shows is, for each page's slug, text that only that page renders: a route that served the
	// wrong page, or the layout without the prose, lacks it.
	shows := map[string]string{
		"index":      "Predict",
		"semantics":  `id="exp-scale"`,
		"blocks/1":   `id="exp-assembly"`,
		"blocks/2":   `id="exp-assembly"`,
		"blocks/3":   `id="exp-keys"`,
		"blocks/4":   `id="exp-window"`,
		"blocks/5":   `id="exp-orderings"`,
		"blocks/6":   `id="exp-lease"`,
		"assembly":   "dedup-transactional",
		"boundaries": `id="exp-outbox"`,
		"systems":    `id="exp-window-time"`,
		"lab":        `action="/lab/runs"`,
		"workbench":  `data-editor="starlark"`,
		"verify":     "9/9 claims verified",
		"glossary":   "Glossary",
	}
	// route is one request and what its answer must hold.
	type route struct {
		path, ctype, want string
		status            int
	}
	var routes []route
	unused := maps.Clone(shows)
	for _, e := range content.Contents() {
		want, ok := shows[e.Slug]
		if !ok {
			t.Errorf("page %s (%s) has no expected text in TestRoutes", e.Slug, e.Path)
			continue
		}
		delete(unused, e.Slug)
		routes = append(routes, route{e.Path, "text/html", want, 200})
	}
	for slug := range unused {
		t.Errorf("TestRoutes expects text on %s, which is no page of content.Contents()", slug)
	}
	// The block after the last and a block spelt with a leading zero are no pages; the 404 says
	// which blocks there are.
	n := content.Blocks()
	noBlock := fmt.Sprintf("%d blocks, numbered 1 to %d", n, n)
	routes = append(routes,
		route{"/api/experiments", "application/json", `"name":"window"`, 200},
		route{"/api/experiments/assembly", "application/json", `"lost":398`, 200},
		route{"/healthz", "text/plain", "ok", 200},
		route{"/metrics", "text/plain", "site_http_requests_total", 200},
		route{fmt.Sprintf("/blocks/%d", n+1), "text/html", noBlock, 404},
		route{"/blocks/01", "text/html", noBlock, 404},
		route{"/no/such/page", "text/html", "Back to the start", 404},
		route{"/api/experiments/nope", "application/json", `"field":"name"`, 404},
		route{"/lab/progress", "text/html", "no lab run has started", 404},
	)
	for _, tc := range routes {
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

// TestHeadAnswersLikeGet: link checkers and proxies send HEAD, and echo answers it only where a
// route registers it; routes.go registers it beside every GET.
func TestHeadAnswersLikeGet(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, path := range []string{"/", "/blocks/4", "/api/experiments", "/healthz"} {
		r := do(t, s, "HEAD", path, nil)
		if r.status != 200 {
			t.Errorf("HEAD %s: %d", path, r.status)
		}
	}
}

// TestStaticAssets: pages link assets under a content hash that are served gzipped and immutable;
// a stale hash still answers but must not be cached for ever.
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

// TestBasePath: behind a proxy that mounts the site under a prefix, every link, asset and form
// action carries the prefix and the unprefixed paths are not served.
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
