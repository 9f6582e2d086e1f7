package site

// The browser suite checks what a person sees: pages that load without errors under the strict CSP,
// charts that echarts actually draws, htmx reruns in place, the keyboard and no-script paths, the
// predictions kept in the browser, axe in both themes, and screenshots for a person to look at.
// One chromium serves every subtest; each subtest opens its own tab. The harness (chromium, the
// server, the tab) is in browser_harness_test.go; axe and the screenshots in browser_audit_test.go.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowser runs every browser scenario against one chromium and one server, since starting
// chromium costs more than most scenarios.
func TestBrowser(t *testing.T) {
	b := startBrowserSuite(t)

	// Axe and the screenshots are the slow part: they start at once, each variant in its own tab,
	// and run beside the functional subtests. Subtests started from goroutines are not limited by
	// -parallel (GOMAXPROCS), which would queue them behind one another.
	var heavy sync.WaitGroup
	defer heavy.Wait()
	heavy.Go(func() { t.Run("Axe", func(t *testing.T) { browserAxe(t, b) }) })
	heavy.Go(func() { t.Run("Screenshots", func(t *testing.T) { browserScreenshots(t, b) }) })

	t.Run("PagesLoadCleanly", func(t *testing.T) { browserPagesLoadCleanly(t, b) })
	t.Run("ChartsDrawSeries", func(t *testing.T) { browserChartsDrawSeries(t, b) })
	t.Run("RerunInPlace", func(t *testing.T) { browserRerunInPlace(t, b) })
	t.Run("Keyboard", func(t *testing.T) { browserKeyboard(t, b) })
	t.Run("WithoutJavaScript", func(t *testing.T) { browserWithoutJavaScript(t, b) })
	t.Run("PredictionsPersist", func(t *testing.T) { browserPredictionsPersist(t, b) })
	t.Run("PageURLHoldsEveryForm", func(t *testing.T) { browserPageURLHoldsEveryForm(t, b) })
	t.Run("PredictionsOwnMeasurement", func(t *testing.T) { browserPredictionsOwnMeasurement(t, b) })
	t.Run("RunKeepsFocusAndAnnounces", func(t *testing.T) { browserRunKeepsFocusAndAnnounces(t, b) })
	t.Run("TimelineStepsReplaceHistory", func(t *testing.T) { browserTimelineStepsReplaceHistory(t, b) })
	t.Run("RefusedRunKeepsResult", func(t *testing.T) { browserRefusedRunKeepsResult(t, b) })
	t.Run("BusyRunKeepsResult", func(t *testing.T) { browserBusyRunKeepsResult(t, b) })
	t.Run("ResultOrder", func(t *testing.T) { browserResultOrder(t, b) })
	t.Run("DesktopColumns", func(t *testing.T) { browserDesktopColumns(t, b) })
	t.Run("ChartText", func(t *testing.T) { browserChartText(t, b) })
	t.Run("ChartRelayout", func(t *testing.T) { browserChartRelayout(t, b) })
	t.Run("ChartScales", func(t *testing.T) { browserChartScales(t, b) })
	t.Run("TinyBars", func(t *testing.T) { browserTinyBars(t, b) })
	t.Run("AssemblyRows", func(t *testing.T) { browserAssemblyRows(t, b) })
	t.Run("ContentsNames", func(t *testing.T) { browserContentsNames(t, b) })
}

// browserPagesLoadCleanly opens every page and fails on any console error, uncaught exception or
// CSP violation.
func browserPagesLoadCleanly(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{})
	for _, p := range pagePaths() {
		tb.open(p)
		tb.waitCharts()
		if n := browserEval[int](tb, `document.querySelectorAll("main h1").length`); n != 1 {
			t.Errorf("%s: %d h1 in main, want 1", p, n)
		}
		for _, prob := range tb.takeProblems() {
			t.Errorf("%s: %s", p, prob)
		}
	}
	// Every browser asks for an icon; without a <link rel="icon"> a 404 at /favicon.ico is a
	// console error on the first page a reader opens.
	if !browserEval[bool](tb, `!!document.querySelector('link[rel~="icon"]')`) {
		resp, err := http.Get(b.base + "/favicon.ico")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 400 {
			t.Errorf("no <link rel=\"icon\"> and /favicon.ico answers %d: the browser logs a console error on the first visit", resp.StatusCode)
		}
	}
	// The recorder itself works: a blocked inline script is reported.
	tb.open("/glossary")
	browserEval[chromedp.Void](tb, `(() => { const s = document.createElement("script"); s.textContent = "1"; document.body.appendChild(s); })()`)
	tb.waitFor("the CSP violation event", `window.__csp.length > 0`)
	if got := tb.takeProblems(); !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "CSP violation: script-src") }) {
		t.Errorf("an inline script was not reported as a CSP violation: %q", got)
	}
}

// browserChartsDrawSeries checks that echarts drew every chart with the series the page promises.
func browserChartsDrawSeries(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{})
	for _, tc := range []struct {
		path string
		want [][]string // series names of charts that must be on the page
	}{
		{"/blocks/1", [][]string{{"lost", "duplicated"}, {"lost", "duplicated", "errors raised"}}},
		{"/blocks/4", [][]string{{"escape rate"}}},
		{"/blocks/6", [][]string{{"no renewal", "renew at 2t, real queue", "renew at t/3"}}},
		{"/assembly", [][]string{{"lost", "duplicated"}}},
	} {
		tb.open(tc.path)
		tb.waitCharts()
		// chartInfo is what testdata/browser/charts-drawn.js reports for each chart.
		type chartInfo struct {
			ID     string   `json:"id"`
			Drawn  bool     `json:"drawn"`
			Series []string `json:"series"`
			Points int      `json:"points"`
		}
		got := browserEval[[]chartInfo](tb, tb.script("charts-drawn.js"))
		if len(got) < len(tc.want) {
			t.Errorf("%s: %d charts, want at least %d", tc.path, len(got), len(tc.want))
		}
		for _, c := range got {
			if !c.Drawn || c.Points == 0 {
				t.Errorf("%s: chart %s not drawn (drawing %v, %d points)", tc.path, c.ID, c.Drawn, c.Points)
			}
		}
		for _, w := range tc.want {
			if !slices.ContainsFunc(got, func(c chartInfo) bool { return slices.Equal(c.Series, w) }) {
				t.Errorf("%s: no chart with series %q; charts: %+v", tc.path, w, got)
			}
		}
		for _, prob := range tb.takeProblems() {
			t.Errorf("%s: %s", tc.path, prob)
		}
	}
}

// browserRerunInPlace reruns block 4 through htmx with a new value, then with a wrong one.
func browserRerunInPlace(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{})
	tb.open("/blocks/4")
	tb.waitCharts()
	chartJS := tb.script("window-chart.js")
	const tableJS = `[...document.querySelectorAll("#exp-window table.data tbody")].map(t => t.textContent).join("|")`
	chartBefore := browserEval[string](tb, chartJS)
	tableBefore := browserEval[string](tb, tableJS)
	def := browserEval[string](tb, `document.querySelector("#exp-window-max_delay").value`)
	if def == "5000" || !strings.Contains(chartBefore, `"mark":[`+def+`]`) {
		t.Errorf("the default chart's mark line is not at the form's max delay %s: %s", def, chartBefore)
	}
	// A marker that a full page load would wipe: htmx must swap the section in place.
	browserEval[chromedp.Void](tb, `window.__sameDocument = true`)

	tb.retype("#exp-window-max_delay", "5000")
	tb.do(chromedp.Click(chromedp.CSS("#exp-window button.run")))
	tb.waitFor("the URL to carry max_delay=5000", `location.search.includes("max_delay=5000")`)
	tb.waitFor("the rerun section", `document.querySelector("#exp-window-max_delay").defaultValue === "5000"`)
	if !browserEval[bool](tb, `window.__sameDocument === true`) {
		t.Error("the rerun reloaded the page instead of swapping #exp-window in place")
	}
	if err := tb.poll(tb.script("charts-ready.js"), 5*time.Second); err != nil {
		t.Errorf("the chart was not drawn again after the htmx swap: %s", browserEval[string](tb, tb.script("window-chart-state.js")))
	} else if chartAfter := browserEval[string](tb, chartJS); chartAfter == chartBefore || !strings.Contains(chartAfter, `"mark":[5000]`) {
		t.Errorf("the chart did not follow the rerun: before %s, after %s", chartBefore, chartAfter)
	}
	if tableAfter := browserEval[string](tb, tableJS); tableAfter == tableBefore || tableAfter == "" {
		t.Errorf("the table did not change after the rerun: %q", tableAfter)
	}
	if v := browserEval[string](tb, `document.querySelector("#exp-window-max_delay").value`); v != "5000" {
		t.Errorf("max_delay input holds %q after the rerun, want 5000", v)
	}
	for _, prob := range tb.takeProblems() {
		t.Errorf("rerun: %s", prob)
	}

	// A wrong value: the 422 answer is swapped in with the message beside the field.
	tb.retype("#exp-window-max_delay", "-1")
	tb.do(chromedp.Click(chromedp.CSS("#exp-window button.run")))
	tb.waitFor("the error beside max_delay", `document.querySelector("#exp-window .field.invalid #exp-window-max_delay-error.error")`)
	msg := browserEval[string](tb, `document.querySelector("#exp-window .field.invalid .error").textContent`)
	if !strings.Contains(msg, "Max redelivery delay") || !strings.Contains(msg, "-1") {
		t.Errorf("error message %q does not name the field and the value", msg)
	}
	if v := browserEval[string](tb, `document.querySelector("#exp-window-max_delay").value`); v != "-1" {
		t.Errorf("the wrong value was not kept in the input: %q", v)
	}
	if !browserEval[bool](tb, `window.__sameDocument === true`) {
		t.Error("the 422 answer reloaded the page instead of being swapped in")
	}
	if !browserEval[bool](tb, `!!document.querySelector("#exp-window .problem[role=alert]")`) {
		t.Error("no alert that nothing was run")
	}
	for _, prob := range tb.takeProblems() {
		// Chromium itself logs every non-2xx XHR as a network error; the 422 is the
		// expected answer here, so only that entry is allowed.
		if strings.HasPrefix(prob, "log (network): ") && strings.Contains(prob, "422") {
			continue
		}
		t.Errorf("invalid rerun: %s", prob)
	}
}

// browserKeyboard steps the timeline and opens interview cards from the keyboard.
func browserKeyboard(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{})
	tb.open("/semantics")
	const activeJS = `(document.querySelector("#timeline .tl-step.active") || {getAttribute: () => ""}).getAttribute("aria-label")`
	first := browserEval[string](tb, activeJS)
	if !strings.HasPrefix(first, "Step 1:") {
		t.Fatalf("the timeline starts at %q, want step 1", first)
	}
	// ArrowRight with focus on the next control steps forward.
	tb.do(chromedp.Focus(chromedp.CSS(`#timeline [data-tl="next"]`)), chromedp.KeyEvent(kb.ArrowRight))
	tb.waitFor("step 2 after ArrowRight", `location.search.includes("step=2") && `+activeJS+`.startsWith("Step 2:")`)
	// Enter on the focused link steps again.
	tb.do(chromedp.Focus(chromedp.CSS(`#timeline [data-tl="next"]`)), chromedp.KeyEvent(kb.Enter))
	tb.waitFor("step 3 after Enter", `location.search.includes("step=3") && `+activeJS+`.startsWith("Step 3:")`)
	// ArrowLeft goes back.
	tb.do(chromedp.Focus(chromedp.CSS(`#timeline [data-tl="prev"]`)), chromedp.KeyEvent(kb.ArrowLeft))
	tb.waitFor("step 2 after ArrowLeft", `location.search.includes("step=2") && `+activeJS+`.startsWith("Step 2:")`)

	// Tab reaches a card's summary; Enter opens it, Space opens the next one. The interview cards
	// are on the page after the assembly.
	tb.open("/boundaries")
	n := browserEval[int](tb, `document.querySelectorAll("details.card").length`)
	if n < 2 {
		t.Fatalf("%d interview cards on /boundaries, want at least 2", n)
	}
	// Focus whatever comes just before the first summary in the tab order, then press Tab.
	browserEval[chromedp.Void](tb, tb.script("focus-before-first-card.js"))
	tb.do(chromedp.KeyEvent(kb.Tab))
	if !browserEval[bool](tb, `document.activeElement === document.querySelector("details.card > summary")`) {
		t.Fatalf("Tab did not reach the first card's summary; focus is on %s",
			browserEval[string](tb, `document.activeElement.outerHTML.slice(0, 120)`))
	}
	tb.do(chromedp.KeyEvent(kb.Enter))
	tb.waitFor("the first card to open on Enter", `document.querySelectorAll("details.card")[0].open`)
	// Tab moves into the open answer or on to the next summary; focus the next summary directly.
	tb.do(chromedp.Focus(chromedp.CSS(`details.card:nth-of-type(2) > summary`)), chromedp.KeyEvent(" "))
	tb.waitFor("the second card to open on Space", `document.querySelectorAll("details.card")[1].open`)
	for _, prob := range tb.takeProblems() {
		t.Errorf("keyboard: %s", prob)
	}
}

// browserWithoutJavaScript follows the timeline, opens a card and reruns an experiment with page
// scripts disabled: every one of them is a plain link, details element or GET form.
func browserWithoutJavaScript(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{noScript: true})
	tb.open("/semantics")
	// app.js unhides the copy buttons; still hidden proves no page script ran.
	if attrs, err := chromedp.Run(tb.ctx, chromedp.Attributes(chromedp.CSS("button.copy"))); err != nil {
		t.Fatal(err)
	} else if _, hidden := attrs["hidden"]; !hidden {
		t.Fatal("page scripts ran although script execution is disabled")
	}
	activeLabel := func() string {
		t.Helper()
		v, err := chromedp.Run(tb.ctx, chromedp.AttributeValue(chromedp.CSS("#timeline .tl-step.active"), "aria-label"))
		if err != nil {
			t.Fatal(err)
		}
		return v.Value
	}
	if l := activeLabel(); !strings.HasPrefix(l, "Step 1:") {
		t.Fatalf("starts at %q", l)
	}
	if _, err := chromedp.Run(tb.ctx, chromedp.WaitEvent(page.LoadEventFired, nil,
		chromedp.Click(chromedp.CSS(`#timeline [data-tl="next"]`)))); err != nil {
		t.Fatal(err)
	}
	hist, err := chromedp.Run(tb.ctx, chromedp.NavigationEntries())
	if err != nil {
		t.Fatal(err)
	}
	if u := hist.Entries[hist.CurrentIndex].URL; !strings.Contains(u, "step=2") {
		t.Errorf("the next-step link led to %s, want step=2", u)
	}
	if l := activeLabel(); !strings.HasPrefix(l, "Step 2:") {
		t.Errorf("active step after the link: %q, want step 2", l)
	}
	tb.open("/boundaries") // the interview cards
	if attrs, err := chromedp.Run(tb.ctx, chromedp.Attributes(chromedp.CSS("details.card"))); err != nil {
		t.Fatal(err)
	} else if _, open := attrs["open"]; open {
		t.Fatal("the first card is open before the click")
	}
	tb.do(chromedp.Click(chromedp.CSS("details.card > summary")))
	var open bool
	for range 50 {
		attrs, err := chromedp.Run(tb.ctx, chromedp.Attributes(chromedp.CSS("details.card")))
		if err != nil {
			t.Fatal(err)
		}
		if _, open = attrs["open"]; open {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !open {
		t.Error("the card did not open on click without JavaScript")
	}

	// The experiment form is a plain GET form: Run reloads the page with the reader's values.
	tb.open("/blocks/4")
	tableBefore, err := chromedp.Run(tb.ctx, chromedp.Text(chromedp.CSS("#exp-window table.data tbody")))
	if err != nil {
		t.Fatal(err)
	}
	tb.retype("#exp-window-max_delay", "5000")
	if _, err := chromedp.Run(tb.ctx, chromedp.WaitEvent(page.LoadEventFired, nil,
		chromedp.Click(chromedp.CSS("#exp-window button.run")))); err != nil {
		t.Fatal(err)
	}
	hist, err = chromedp.Run(tb.ctx, chromedp.NavigationEntries())
	if err != nil {
		t.Fatal(err)
	}
	if u := hist.Entries[hist.CurrentIndex].URL; !strings.Contains(u, "max_delay=5000") || !strings.Contains(u, "#exp-window") {
		t.Errorf("Run without JavaScript led to %s, want max_delay=5000 and #exp-window", u)
	}
	if v, err := chromedp.Run(tb.ctx, chromedp.AttributeValue(chromedp.CSS("#exp-window-max_delay"), "value")); err != nil || v.Value != "5000" {
		t.Errorf("after the rerun the input holds %+v (%v), want 5000", v, err)
	}
	if tableAfter, err := chromedp.Run(tb.ctx, chromedp.Text(chromedp.CSS("#exp-window table.data tbody"))); err != nil || tableAfter == tableBefore {
		t.Errorf("the table did not change after the rerun without JavaScript (%v)", err)
	}
}

// browserPredictionsPersist saves the five predictions, reloads, and expects them back with the
// measured values revealed.
func browserPredictionsPersist(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{ownStorage: true})
	tb.open("/")
	tb.waitFor("app.js to bind the form", `document.querySelector("form[data-predictions]").dataset.bound === "1"`)
	// Seen, not just the attribute: a CSS display rule can override [hidden].
	if n := browserEval[int](tb, `[...document.querySelectorAll("form[data-predictions] .reveal")].filter(r => r.getClientRects().length > 0).length`); n != 0 {
		t.Errorf("%d measured answers are visible before any prediction was made", n)
	}
	guesses := []string{"400", "0", "12", "250", "3"}
	for i, g := range guesses {
		tb.do(chromedp.SendKeys(chromedp.ID(fmt.Sprintf("predict-q%d", i+1)), g))
	}
	tb.do(chromedp.Click(chromedp.CSS(`form[data-predictions] button[type="submit"]`)))
	tb.waitFor("the saved status", `document.querySelector("form[data-predictions] .status").textContent.includes("5 predictions saved")`)
	if u := browserEval[string](tb, `location.pathname + location.search`); u != "/" {
		t.Errorf("submitting the predictions navigated to %s", u)
	}

	tb.do(chromedp.Reload())
	tb.waitFor("app.js to bind the form", `document.querySelector("form[data-predictions]").dataset.bound === "1"`)
	for i, g := range guesses {
		id := fmt.Sprintf("predict-q%d", i+1)
		if v := browserEval[string](tb, `document.getElementById("`+id+`").value`); v != g {
			t.Errorf("#%s holds %q after reload, want %q", id, v, g)
		}
	}
	// reveal is what testdata/browser/prediction-reveals.js reports for each question.
	type reveal struct {
		Q        string `json:"q"`
		Visible  bool   `json:"visible"`
		Measured string `json:"measured"`
		Where    string `json:"where"`
	}
	rs := browserEval[[]reveal](tb, tb.script("prediction-reveals.js"))
	if len(rs) != 5 {
		t.Fatalf("%d questions, want 5", len(rs))
	}
	for _, r := range rs {
		if !r.Visible || r.Measured == "" {
			t.Errorf("%s: reveal visible %v, measured %q", r.Q, r.Visible, r.Measured)
		}
	}
	if rs[0].Q != "q1" || rs[0].Measured != "398" || rs[0].Where != "at the document's values" {
		t.Errorf("q1 reveals %q %q, want 398 at the document's values", rs[0].Measured, rs[0].Where)
	}
	// The guess stands beside the measurement: 400 against 398 is 2 too high.
	if v := browserEval[string](tb, `document.querySelector('[data-question="q1"] .verdict').textContent`); v != "You said 400: 2 too high, within 1% of the measurement." {
		t.Errorf("q1 verdict %q", v)
	}
	for _, prob := range tb.takeProblems() {
		t.Errorf("predictions: %s", prob)
	}
}
