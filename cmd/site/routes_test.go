package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestRoutes requests every route through the whole middleware stack and checks the status, the
// content type and a piece of the body that only the right handler renders.
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
