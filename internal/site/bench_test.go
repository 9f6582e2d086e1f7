package site

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"regexp"
	"testing"
)

// BenchmarkDefaultPage is the server time to render a page whose results are cached (the
// document's defaults): the common case for every reader's first visit.
func BenchmarkDefaultPage(b *testing.B) {
	s := newTestServer(b, testConfig())
	for b.Loop() {
		if r := do(b, s, "GET", "/blocks/4", nil); r.status != 200 {
			b.Fatal(r.status)
		}
	}
}

// BenchmarkRerunUncachedSeed reruns block 4 at the document's sizes with a seed never seen before,
// so both experiments on the page run for real.
func BenchmarkRerunUncachedSeed(b *testing.B) {
	cfg := testConfig()
	cfg.RatePerSec, cfg.RateBurst = 1e9, 1<<30
	s := newTestServer(b, cfg)
	seed := 1000
	for b.Loop() {
		seed++
		q := fmt.Sprintf("/blocks/4?seed=%d&window-grid.seed=%d", seed, seed)
		if r := do(b, s, "GET", q, nil); r.status != 200 {
			b.Fatal(r.status)
		}
	}
}

// TestFirstVisitBytes adds up what a browser downloads, compressed, on a first visit to /blocks/4:
// the page and every script and stylesheet it names. The budget is 350 KB.
func TestFirstVisitBytes(t *testing.T) {
	s := newTestServer(t, testConfig())
	gz := map[string]string{"Accept-Encoding": "gzip"}
	page := do(t, s, "GET", "/blocks/4", gz)
	if page.header.Get("Content-Encoding") != "gzip" {
		t.Fatal("page not compressed")
	}
	total := len(page.body)
	var html bytes.Buffer
	zr, err := gzip.NewReader(bytes.NewReader([]byte(page.body)))
	if err != nil {
		t.Fatal(err)
	}
	html.ReadFrom(zr)
	report := fmt.Sprintf("page %d B", len(page.body))
	for _, m := range regexp.MustCompile(`(?:src|href)="(/static/[^"]+)"`).FindAllStringSubmatch(html.String(), -1) {
		r := do(t, s, "GET", m[1], gz)
		if r.status != 200 {
			t.Fatalf("%s: %d", m[1], r.status)
		}
		total += len(r.body)
		report += fmt.Sprintf(", %s %d B", m[1][len("/static/"):], len(r.body))
	}
	t.Logf("first visit to /blocks/4: %d bytes compressed (%s)", total, report)
	if total > 350*1024 {
		t.Errorf("first visit is %d bytes, over the 350 KB budget", total)
	}
}
