package site

import (
	"context"
	"html"
	"io/fs"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
)

// systemsSource is the markdown of the systems page, as the book embeds it.
func systemsSource(t *testing.T) string {
	t.Helper()
	b, err := fs.ReadFile(content.Files, "systems.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var mdLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)

// TestSystemsPage renders /systems through the whole stack: every section is there, every row of
// the summary tables names its vendor's page, and each block's Beyond the toy links to the table
// of its mechanism, which exists.
func TestSystemsPage(t *testing.T) {
	s := newTestServer(t, testConfig())
	page := do(t, s, "GET", "/systems", nil)
	if page.status != 200 {
		t.Fatalf("status %d", page.status)
	}
	book, err := content.Load(content.Files)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := book.Page("systems")
	if len(p.Headings) < 14 {
		t.Fatalf("the page has %d sections, want the six mechanisms and eight systems at least", len(p.Headings))
	}
	for _, h := range p.Headings {
		if !strings.Contains(page.body, `id="`+h.ID+`"`) {
			t.Errorf("section %q (#%s) is not on the page", h.Text, h.ID)
		}
	}
	rows := 0
	for _, line := range strings.Split(systemsSource(t), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Knob ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		rows++
		links := mdLink.FindAllStringSubmatch(line, -1)
		if len(links) == 0 || !strings.HasPrefix(links[len(links)-1][2], "https://") {
			t.Errorf("row without a vendor link in its last cell: %s", line)
			continue
		}
		vendor := links[len(links)-1][2]
		if !strings.Contains(page.body, `href="`+html.EscapeString(vendor)+`"`) {
			t.Errorf("the page does not link %s", vendor)
		}
	}
	if rows < 20 {
		t.Errorf("%d rows in the summary tables, want at least 20", rows)
	}
	for n, anchor := range map[int]string{1: "ack-before-work", 2: "ack-after-work", 3: "dedup-at-the-sink",
		4: "bounded-window", 5: "dual-write-and-outbox", 6: "lease-and-heartbeat"} {
		if !strings.Contains(page.body, `id="`+anchor+`"`) {
			t.Errorf("/systems has no table #%s", anchor)
		}
		block := do(t, s, "GET", "/blocks/"+string(rune('0'+n)), nil)
		_, beyond, _ := strings.Cut(block.body, `id="beyond-the-toy"`)
		if !strings.Contains(beyond, `href="/systems#`+anchor+`"`) {
			t.Errorf("block %d's Beyond the toy does not link /systems#%s", n, anchor)
		}
	}
}

// preset is what one link of the systems page states: counts of the run it opens, by point and
// name, as Counts reports them.
type preset struct {
	point, count string
	want         int64
}

// TestSystemsPresets runs every link of the systems page that opens an experiment at a system's
// values, and checks that the run gives the number the link's text states, and that the page it
// opens shows it. A link with parameters that this test does not know fails it.
func TestSystemsPresets(t *testing.T) {
	presets := map[string][]preset{
		"/blocks/1#exp-assembly":                                                          {{"at-most-once", "lost", 398}},
		"/blocks/6?timeouts=10#exp-lease":                                                 {{"10", "no_renewal", 935}},
		"/blocks/6?timeouts=30#exp-lease":                                                 {{"30", "no_renewal", 499}},
		"/blocks/6?timeouts=300#exp-lease":                                                {{"300", "no_renewal", 0}},
		"/blocks/6?timeouts=1800#exp-lease":                                               {{"1800", "no_renewal", 0}},
		"/blocks/6?timeouts=3600#exp-lease":                                               {{"3600", "no_renewal", 0}},
		"/blocks/6?timeouts=14400#exp-lease":                                              {{"14400", "no_renewal", 0}},
		"/systems?throughput=100&window_seconds=300&delay_seconds=30#exp-window-time":     {{"", "window_ids", 30_000}, {"", "delay_jobs", 3_000}},
		"/systems?throughput=100&window_seconds=120&delay_seconds=30#exp-window-time":     {{"", "window_ids", 12_000}, {"", "delay_jobs", 3_000}},
		"/systems?throughput=100&window_seconds=120&delay_seconds=300#exp-window-time":    {{"", "delay_jobs", 30_000}},
		"/systems?throughput=1&window_seconds=86400&delay_seconds=172800#exp-window-time": {{"", "window_ids", 86_400}, {"", "delay_jobs", 172_800}},
		"/blocks/4?jobs=60000&max_delay=3000&windows=30000#exp-window":                    {{"30000", "escaped", 0}},
		"/blocks/4?jobs=60000&max_delay=30000&windows=12000#exp-window":                   {{"12000", "escaped", 565}},
		"/blocks/4?jobs=345600&max_delay=172800&windows=86400#exp-window":                 {{"86400", "escaped", 2_693}},
	}
	s := newTestServer(t, testConfig())
	src := systemsSource(t)
	seen := map[string]bool{}
	for _, m := range mdLink.FindAllStringSubmatch(src, -1) {
		text, href := m[1], m[2]
		if !strings.HasPrefix(href, "/") || !strings.Contains(href, "#exp-") {
			continue
		}
		want, ok := presets[href]
		if !ok {
			t.Errorf("link [%s](%s) opens an experiment this test does not check", text, href)
			continue
		}
		seen[href] = true
		for _, p := range want {
			if !strings.Contains(text, experiments.Thousands(p.want)) {
				t.Errorf("link [%s](%s) does not state %s", text, href, experiments.Thousands(p.want))
			}
		}
	}
	for href, want := range presets {
		if !seen[href] {
			t.Errorf("the page no longer links %s", href)
			continue
		}
		u, err := url.Parse(href)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := experiments.Lookup(strings.TrimPrefix(u.Fragment, "exp-"))
		if !ok {
			t.Fatalf("%s names no experiment", href)
		}
		params, err := e.Parse(u.Query())
		if err != nil {
			t.Fatalf("%s: %v", href, err)
		}
		res, err := e.Run(context.Background(), params)
		if err != nil {
			t.Fatalf("%s: %v", href, err)
		}
		page := do(t, s, "GET", u.RequestURI(), nil)
		for _, p := range want {
			got, found := int64(-1), false
			for _, c := range e.Counts(res) {
				if c.Point == p.point && c.Name == p.count {
					got, found = int64(c.Value), true
				}
			}
			if !found || got != p.want {
				t.Errorf("%s: %s at %q is %d (found %v), the page states %d", href, p.count, p.point, got, found, p.want)
			}
			if !strings.Contains(page.body, experiments.Thousands(p.want)) {
				t.Errorf("%s: the page it opens does not show %s", href, experiments.Thousands(p.want))
			}
		}
		// A window given in time opens block 4 at the values it converts to; where the page links
		// that run too, the link is the one the conversion gives.
		if r, ok := res.(experiments.WindowTimeResult); ok {
			if r.Block4 == nil {
				t.Errorf("%s: no block 4 run for %+v", href, r)
				continue
			}
			b4 := "/blocks/4?" + r.Block4Query + "#exp-window"
			if _, linked := presets[b4]; linked != strings.Contains(src, "]("+b4+")") {
				t.Errorf("%s converts to %s, which the page links: %v", href, b4, linked)
			}
		}
	}
}
