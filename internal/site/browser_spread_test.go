package site

// The spread over seeds in a browser, on /blocks/4: a reader asks for 20 seeds, watches the
// progress box count up, cancels halfway and reads the note; then runs the 20 seeds to the end and
// finds the band chart, the spread table and the reading's percentile. The server paces each seed
// (config.spreadPace, set only here) so that "halfway" does not depend on the machine's speed.

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// startPacedSuite is startBrowserSuite with every seed of a spread slowed by pace.
func startPacedSuite(t *testing.T, pace time.Duration) *browserSuite {
	t.Helper()
	execPath := findChromium(t)
	cfg := testConfig()
	cfg.spreadPace = pace
	s := newTestServer(t, cfg)
	ts := httptest.NewServer(s.echo)
	t.Cleanup(ts.Close)
	t.Cleanup(s.notebook.Stop)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(execPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(1280, 900))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return &browserSuite{ctx: ctx, base: ts.URL}
}

func TestBrowserSpread(t *testing.T) {
	// Two workers (testConfig's MaxRuns) at 400 ms a seed: twenty seeds take about four seconds,
	// so the press after the sixth seed has seconds to spare on a loaded machine.
	b := startPacedSuite(t, 400*time.Millisecond)
	tb := b.newTab(t, tabOption{deadline: 120 * time.Second})
	tb.open("/blocks/4")
	tb.waitCharts()
	done := func() int {
		s := browserEval[string](tb, `(document.querySelector('#exp-window .spread-count')?.textContent || "0").split(" of ")[0]`)
		n, _ := strconv.Atoi(strings.TrimSpace(s))
		return n
	}

	// Twenty seeds, then Cancel once the box has counted a few but not all.
	tb.retype("#exp-window-spread", "20")
	tb.do(chromedp.Click(chromedp.CSS("#exp-window button.run")))
	tb.waitFor("the progress box", `document.querySelector('#exp-window .spread-progress .spread-meter[hx-trigger]')`)
	if browserEval[bool](tb, `!!document.querySelector('#exp-window .spread-meter form, #exp-window .spread-meter .spread-cancel')`) {
		t.Fatal("Cancel sits inside the polling meter, where every poll replaces it")
	}
	browserEval[chromedp.Void](tb, `window.__spreadMark = 1`)
	if dup := browserEval[string](tb, `(() => { const seen = {}; for (const el of document.querySelectorAll('[id]')) {
		if (seen[el.id]) return el.id; seen[el.id] = 1; } return ""; })()`); dup != "" {
		t.Errorf("two elements share the id %q while the spread runs", dup)
	}
	first := done()
	if err := tb.poll(`(() => { const c = document.querySelector('#exp-window .spread-count');
		return c && parseInt(c.textContent, 10) >= 6; })()`, 30*time.Second); err != nil {
		t.Fatalf("the progress box never counted past 5 (it started at %d): %v", first, err)
	}
	if got := done(); got <= first || got >= 20 {
		t.Fatalf("the box shows %d of 20 seeds, want more than the first %d and fewer than all", got, first)
	}
	// The meter is all a poll swaps, so the Cancel beside it stays put and one plain click takes.
	tb.do(chromedp.Click(chromedp.CSS("#exp-window .spread-progress .spread-cancel")))
	tb.waitFor("the cancelled note", `document.querySelector('#exp-window .spread-note')`)
	note := browserEval[string](tb, `document.querySelector('#exp-window .spread-note').textContent`)
	if !strings.Contains(note, "Cancelled after") || !strings.Contains(note, "of 20 seeds") {
		t.Fatalf("note after Cancel: %q", note)
	}
	// Focus went with the pressed Cancel; it lands on the note that took its place, not the page.
	if err := tb.poll(`document.activeElement && document.activeElement.matches('#exp-window .spread-note')`, 5*time.Second); err != nil {
		t.Errorf("focus after Cancel is on %q, want the note", browserEval[string](tb, `document.activeElement.outerHTML.slice(0, 80)`))
	}
	if strings.Contains(note, "after 20 of") {
		t.Fatalf("the spread ran to the end before Cancel took: %q", note)
	}
	if browserEval[bool](tb, `!!document.querySelector('#exp-window .spread-meter, #exp-window [hx-trigger^="every"]')`) {
		t.Fatal("something still polls after the cancelled note")
	}
	if browserEval[bool](tb, `!!document.querySelector('#exp-window [id$="-band-1"]')`) {
		t.Fatal("a band chart was drawn for a cancelled spread")
	}
	if browserEval[int](tb, `window.__spreadMark || 0`) != 1 {
		t.Error("the page reloaded while the spread ran; the box should poll")
	}

	// Run the same twenty seeds again, to the end: the block comes back with the band.
	tb.do(chromedp.Click(chromedp.CSS("#exp-window button.run")))
	if err := tb.poll(`document.querySelector('#exp-window-band-1-options')`, 60*time.Second); err != nil {
		t.Fatalf("the band chart never came: %v", err)
	}
	tb.waitCharts()
	// The box that had focus is gone; focus is on the band's figure, not left on the page.
	if err := tb.poll(`document.activeElement && document.activeElement.matches('figure') && !!document.activeElement.querySelector('#exp-window-band-1')`, 5*time.Second); err != nil {
		t.Errorf("focus after the band came is on %q, want the band chart's figure", browserEval[string](tb, `document.activeElement.outerHTML.slice(0, 80)`))
	}
	opts := browserEval[string](tb, `document.querySelector('#exp-window-band-1-options').textContent`)
	for _, want := range []string{`"5th–95th percentile"`, `"median"`, `"this run"`, `"stack":"band"`, `"highest"`} {
		if !strings.Contains(opts, want) {
			t.Errorf("the band chart's options lack %s", want)
		}
	}
	drawn := browserEval[bool](tb, `(() => { const el = document.querySelector('#exp-window-band-1');
		const c = el && window.echarts && echarts.getInstanceByDom(el);
		return !!c && c.getOption().series.some(s => s.name === "5th–95th percentile" && s.stack === "band"); })()`)
	if !drawn {
		t.Error("echarts has no band series on the spread chart")
	}
	table := browserEval[string](tb, `[...document.querySelectorAll('#exp-window .table-caption')].map(c => c.textContent).join("|")`)
	if !strings.Contains(table, "Spread over 20 seeds") {
		t.Errorf("no spread table; captions: %s", table)
	}
	row := browserEval[string](tb, `[...document.querySelectorAll('#exp-window table.data tr')].map(r => r.textContent).find(t => t.includes("window 1,000") && t.includes("escaped")) || ""`)
	if !strings.Contains(row, "195") || !strings.Contains(row, "typical") {
		t.Errorf("the spread table's window 1,000 row %q lacks this run's 195 and its verdict", row)
	}
	reading := browserEval[string](tb, `document.querySelector('#exp-window .reading').textContent`)
	if !strings.Contains(reading, "of the 20 seeds, so ") {
		t.Errorf("the reading does not place this run among the seeds: %q", reading)
	}
	if got := browserEval[string](tb, `document.querySelector("#exp-window-spread").value`); got != "20" {
		t.Errorf("the spread field holds %q after the run, want 20", got)
	}
	if problems := tb.takeProblems(); len(problems) > 0 {
		t.Errorf("the page reported: %v", problems)
	}
}
