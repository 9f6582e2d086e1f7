package site

import (
	"context"
	"html"
	"io/fs"
	"net/url"
	"regexp"
	"strconv"
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

// mechanisms are the summary tables of the systems page, by the block that is each one's mechanism.
var mechanisms = map[string]int{"ack-before-work": 1, "ack-after-work": 2, "dedup-at-the-sink": 3,
	"bounded-window": 4, "dual-write-and-outbox": 5, "lease-and-heartbeat": 6}

// systemNames are the systems the page covers, as a row's first cell and a block's link to the row
// name them.
var systemNames = []string{"SQS", "Kafka", "JetStream", "RabbitMQ", "Pub/Sub", "Redis Streams", "Celery",
	"Sidekiq", "Temporal", "Stripe", "River", "graphile-worker"}

// systemRow is one row of the systems page's summary tables, as its markdown states it.
type systemRow struct {
	id, system, table, line string
	block                   int
}

var (
	rowAnchor   = regexp.MustCompile(`\s\{#([a-z0-9]+(?:-[a-z0-9]+)*)\}$`)
	blockCell   = regexp.MustCompile(`^\[block (\d+)\]\(/blocks/(\d+)\)$`)
	systemsHref = regexp.MustCompile(`<a href="/systems#([^"]*)">(.*?)</a>`)
	htmlTag     = regexp.MustCompile(`<[^>]*>`)
	nonSlug     = regexp.MustCompile(`[^a-z0-9]+`)
)

// systemRows reads the summary tables' rows from the page's markdown: each row's anchor, the
// system its first cell names first, the table it sits in and the block its Block cell links.
func systemRows(t *testing.T) []systemRow {
	t.Helper()
	var rows []systemRow
	table := ""
	for _, line := range strings.Split(systemsSource(t), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			table = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(h), "-"), "-")
			continue
		}
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Knob ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		r := systemRow{table: table, line: line}
		if len(cells) != 5 {
			t.Errorf("row with %d cells, want 5: %s", len(cells), line)
			continue
		}
		if m := rowAnchor.FindStringSubmatch(cells[0]); m != nil {
			r.id = m[1]
		}
		first := len(cells[0])
		for _, name := range systemNames {
			if i := strings.Index(cells[0], name); i >= 0 && i < first {
				r.system, first = name, i
			}
		}
		if m := blockCell.FindStringSubmatch(cells[2]); m != nil && m[1] == m[2] {
			r.block, _ = strconv.Atoi(m[1])
		}
		rows = append(rows, r)
	}
	return rows
}

// TestSystemsPage renders /systems through the whole stack: every section is there, and every row
// of the summary tables names its system, links its vendor's page and its block (the block of the
// table it sits in), and carries an anchor of its own that the page renders on the row.
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
	for table := range mechanisms {
		if !strings.Contains(page.body, `id="`+table+`"`) {
			t.Errorf("/systems has no table #%s", table)
		}
	}
	rows := systemRows(t)
	if len(rows) < 30 {
		t.Errorf("%d rows in the summary tables, want at least 30", len(rows))
	}
	ids := map[string]bool{}
	for _, r := range rows {
		links := mdLink.FindAllStringSubmatch(r.line, -1)
		if len(links) == 0 || !strings.HasPrefix(links[len(links)-1][2], "https://") {
			t.Errorf("row without a vendor link in its last cell: %s", r.line)
		} else if vendor := links[len(links)-1][2]; !strings.Contains(page.body, `href="`+html.EscapeString(vendor)+`"`) {
			t.Errorf("the page does not link %s", vendor)
		}
		if r.system == "" {
			t.Errorf("row whose first cell names none of %v: %s", systemNames, r.line)
		}
		if want, ok := mechanisms[r.table]; !ok || r.block != want {
			t.Errorf("row in table #%s links block %d in its Block cell, want block %d: %s", r.table, r.block, want, r.line)
		}
		if r.id == "" {
			t.Errorf("row without an anchor ({#id} closing its first cell): %s", r.line)
			continue
		}
		if ids[r.id] {
			t.Errorf("two rows carry the anchor #%s", r.id)
		}
		ids[r.id] = true
		if strings.Count(page.body, `id="`+r.id+`"`) != 1 || !strings.Contains(page.body, `<tr id="`+r.id+`">`) {
			t.Errorf("/systems does not render #%s once, on its row", r.id)
		}
	}
	if strings.Contains(page.body, "{#") {
		t.Errorf("an anchor's marker is left in the page's text: %.200s", page.body[strings.Index(page.body, "{#"):])
	}
}

// TestSystemsRowsLinkedFromBlocks holds issue 24's "each block's Beyond the toy links to the rows of
// this page that are its mechanism": every link from a block into /systems lands on a row's anchor,
// and each row is linked from the Beyond the toy of its block, by a link that names its system.
func TestSystemsRowsLinkedFromBlocks(t *testing.T) {
	rows := systemRows(t)
	byID := map[string]systemRow{}
	for _, r := range rows {
		byID[r.id] = r
	}
	s := newTestServer(t, testConfig())
	for n := 1; n <= content.Blocks(); n++ {
		block := do(t, s, "GET", "/blocks/"+strconv.Itoa(n), nil)
		_, beyond, found := strings.Cut(block.body, `id="beyond-the-toy"`)
		if !found {
			t.Errorf("block %d has no Beyond the toy", n)
			continue
		}
		linked := map[string]string{}
		for _, m := range systemsHref.FindAllStringSubmatch(block.body, -1) {
			if _, ok := byID[m[1]]; !ok {
				t.Errorf("block %d links /systems#%s, which is no row of the page", n, m[1])
			}
		}
		for _, m := range systemsHref.FindAllStringSubmatch(beyond, -1) {
			linked[m[1]] = html.UnescapeString(htmlTag.ReplaceAllString(m[2], ""))
		}
		for _, r := range rows {
			if r.block != n || r.id == "" {
				continue
			}
			text, ok := linked[r.id]
			switch {
			case !ok:
				t.Errorf("block %d's Beyond the toy does not link its row /systems#%s", n, r.id)
			case !strings.Contains(text, r.system):
				t.Errorf("block %d links /systems#%s as %q, which does not name %s", n, r.id, text, r.system)
			}
		}
	}
}

// TestSystemsIndexNamesEverySystem: the home page's sentence about /systems names every system the
// page covers, so a system added to the page cannot be left out of the story's map.
func TestSystemsIndexNamesEverySystem(t *testing.T) {
	b, err := fs.ReadFile(content.Files, "index.md")
	if err != nil {
		t.Fatal(err)
	}
	var para string
	for _, p := range strings.Split(string(b), "\n\n") {
		if strings.Contains(p, "](/systems)") {
			para = p
		}
	}
	if para == "" {
		t.Fatal("index.md does not link /systems")
	}
	covered := map[string]bool{}
	for _, r := range systemRows(t) {
		covered[r.system] = true
	}
	for _, name := range systemNames {
		if covered[name] && !strings.Contains(para, name) {
			t.Errorf("index.md's sentence on /systems does not name %s", name)
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
	// The link at window-time's own defaults states no window's ids: a reader who hides results
	// is asked for that number on this page (TestPendingProseGivesNothingAway).
	presets := map[string][]preset{
		"/blocks/1#exp-assembly":                                                          {{"at-most-once", "lost", 398}},
		"/blocks/6?timeouts=10#exp-lease":                                                 {{"10", "no_renewal", 935}},
		"/blocks/6?timeouts=30#exp-lease":                                                 {{"30", "no_renewal", 499}},
		"/blocks/6?timeouts=300#exp-lease":                                                {{"300", "no_renewal", 0}},
		"/blocks/6?timeouts=1800#exp-lease":                                               {{"1800", "no_renewal", 0}},
		"/blocks/6?timeouts=3600#exp-lease":                                               {{"3600", "no_renewal", 0}},
		"/blocks/6?timeouts=14400#exp-lease":                                              {{"14400", "no_renewal", 0}},
		"/systems?throughput=100&window_seconds=300&delay_seconds=30#exp-window-time":     {{"", "delay_jobs", 3_000}},
		"/systems?throughput=100&window_seconds=120&delay_seconds=30#exp-window-time":     {{"", "window_ids", 12_000}, {"", "delay_jobs", 3_000}},
		"/systems?throughput=100&window_seconds=120&delay_seconds=300#exp-window-time":    {{"", "window_ids", 12_000}},
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
