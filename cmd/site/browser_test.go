package main

// The browser suite checks what a person sees: pages that load without errors under the strict CSP,
// charts that echarts actually draws, htmx reruns in place, the keyboard and no-script paths, the
// predictions kept in the browser, axe in both themes, and screenshots for a person to look at.
// One chromium serves every subtest; each subtest opens its own tab.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// browserPages is every page of the notebook, in reading order.
var browserPages = []string{
	"/", "/semantics", "/blocks/1", "/blocks/2", "/blocks/3", "/blocks/4", "/blocks/5", "/blocks/6",
	"/assembly", "/verify", "/glossary",
}

// cspRecorder runs before any page script (scripts injected over CDP are not subject to the page's
// CSP) and keeps every CSP violation the page reports.
const cspRecorder = `window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.effectiveDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber);
}, true);`

// chartsReadyJS is true once app.js has drawn every chart on the page.
const chartsReadyJS = `document.readyState === "complete" && !!window.echarts &&
  [...document.querySelectorAll("[data-chart]")].every(el => el.getAttribute("data-chart-ready") === "true" && !!echarts.getInstanceByDom(el))`

// browserSuite is one chromium and one server shared by every subtest.
type browserSuite struct {
	ctx  context.Context // the browser's chromedp context
	base string          // the test server's URL
}

// findChromium returns the browser to drive, or skips (fails on CI) when there is none.
func findChromium(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("CHROME_PATH"), "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium found (apt-get install -y chromium); CI must run the browser suite")
	}
	t.Skip("no chromium found; install it with apt-get install -y chromium")
	return ""
}

func startBrowserSuite(t *testing.T) *browserSuite {
	t.Helper()
	execPath := findChromium(t)

	s := newTestServer(t, testConfig())
	ts := httptest.NewServer(s.echo)
	t.Cleanup(ts.Close)

	// No UserDataDir option: the allocator makes a fresh temporary profile and removes it after.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(execPath),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests run as root
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser, with no deadline
		t.Fatalf("start chromium: %v", err)
	}
	return &browserSuite{ctx: ctx, base: ts.URL}
}

// browserTab is one tab with everything it has reported: console errors, uncaught exceptions and
// error entries of the browser log. CSP violations are read from the page (window.__csp).
type browserTab struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu       sync.Mutex
	problems []string
}

type tabOption struct {
	ownStorage bool          // a new browser context: its own localStorage and cookies
	noScript   bool          // page scripts disabled
	deadline   time.Duration // for everything done in the tab; 60s if zero
}

// newTab opens a tab that closes when the test ends; every action in it shares one deadline, so a
// hung page fails the test instead of hanging the suite.
func (b *browserSuite) newTab(t *testing.T, o tabOption) *browserTab {
	t.Helper()
	tb := &browserTab{t: t, base: b.base}
	if o.deadline == 0 {
		o.deadline = 60 * time.Second
	}
	dl, cancelDL := context.WithTimeout(b.ctx, o.deadline)
	opts := []chromedp.ContextOption{chromedp.WithListener(tb.listen)}
	if o.ownStorage {
		opts = append(opts, chromedp.WithNewBrowserContext())
	}
	ctx, cancel := chromedp.NewContext(dl, opts...)
	t.Cleanup(func() { cancel(); cancelDL() })
	tb.ctx = ctx
	tb.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspRecorder}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
			return err
		}
		if o.noScript {
			if _, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
				return err
			}
		}
		return nil
	}))
	return tb
}

// listen runs in the tab's read loop: it only records.
func (tb *browserTab) listen(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			if a.Description != "" {
				parts = append(parts, a.Description)
			} else {
				parts = append(parts, strings.Trim(string(a.Value), `"`))
			}
		}
		msg = "console." + string(ev.Type) + ": " + strings.Join(parts, " ")
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg = "uncaught exception: " + d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		msg += fmt.Sprintf(" at %s:%d", d.URL, d.LineNumber+1)
	case *cdplog.EventEntryAdded:
		if ev.Entry == nil || ev.Entry.Level != cdplog.EntryLevelError {
			return
		}
		// Chromium asks every origin for /favicon.ico once per session, so whether this shows up
		// depends on the order of the subtests; PagesLoadCleanly checks the icon directly.
		if strings.HasSuffix(ev.Entry.URL, "/favicon.ico") {
			return
		}
		msg = fmt.Sprintf("log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
	default:
		return
	}
	tb.mu.Lock()
	tb.problems = append(tb.problems, msg)
	tb.mu.Unlock()
}

// takeProblems returns and forgets what the tab reported so far, CSP violations included.
func (tb *browserTab) takeProblems() []string {
	tb.t.Helper()
	csp, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`(window.__csp || []).splice(0)`))
	if err != nil {
		tb.t.Fatalf("read CSP violations: %v", err)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	out := tb.problems
	tb.problems = nil
	for _, c := range csp {
		out = append(out, "CSP violation: "+c)
	}
	return out
}

func (tb *browserTab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, steps...); err != nil {
		tb.t.Fatal(err)
	}
}

// open navigates to path and expects a 200.
func (tb *browserTab) open(path string) {
	tb.t.Helper()
	resp, err := chromedp.Run(tb.ctx, chromedp.NavigateResponse(tb.base+path))
	if err != nil {
		tb.t.Fatalf("open %s: %v", path, err)
	}
	if resp.Status != http.StatusOK {
		tb.t.Fatalf("open %s: status %d, want 200", path, resp.Status)
	}
}

// waitFor evaluates expr until it is truthy, and fails the test if it never is.
func (tb *browserTab) waitFor(what, expr string) {
	tb.t.Helper()
	if err := tb.poll(expr, 15*time.Second); err != nil {
		tb.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// poll evaluates expr until it is truthy. It tolerates the errors of a page that is navigating
// (a click that loads a new page and an htmx swap both end here).
func (tb *browserTab) poll(expr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) && tb.ctx.Err() == nil {
		ok, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`!!(`+expr+`)`))
		if err == nil && ok {
			return nil
		}
		last = err
		time.Sleep(40 * time.Millisecond)
	}
	return fmt.Errorf("not true after %v: %.200s (last error: %v)", timeout, expr, last)
}

func (tb *browserTab) waitCharts() { tb.t.Helper(); tb.waitFor("charts drawn", chartsReadyJS) }

// retype selects the text of the input at sel and types v over it, as a reader would.
func (tb *browserTab) retype(sel, v string) {
	tb.t.Helper()
	browserEval[chromedp.Void](tb, `document.querySelector(`+jsString(sel)+`).select()`)
	tb.do(chromedp.SendKeys(chromedp.CSS(sel), v))
	if got := browserEval[string](tb, `document.querySelector(`+jsString(sel)+`).value`); got != v {
		tb.t.Fatalf("%s holds %q after typing %q", sel, got, v)
	}
}

// browserEval evaluates expr in tb's page and decodes the result into T.
func browserEval[T any](tb *browserTab, expr string, opts ...chromedp.EvaluateOption) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		tb.t.Fatalf("evaluate %.80q: %v", expr, err)
	}
	return v
}

// emulate sets the viewport (mobile adds the phone's viewport rules) and the colour scheme.
func (tb *browserTab) emulate(width, height int64, mobile bool, scheme string) {
	tb.t.Helper()
	tb.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: width, Height: height, DeviceScaleFactor: 1, Mobile: mobile,
		}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	}))
}

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
}

// browserPagesLoadCleanly opens every page and fails on any console error, uncaught exception or
// CSP violation.
func browserPagesLoadCleanly(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{})
	for _, p := range browserPages {
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
		{"/blocks/6", [][]string{{"no renewal", "renew at t/3", "renew at 2t"}}},
		{"/assembly", [][]string{{"lost", "duplicated"}}},
	} {
		tb.open(tc.path)
		tb.waitCharts()
		type chartInfo struct {
			ID     string   `json:"id"`
			Drawn  bool     `json:"drawn"`
			Series []string `json:"series"`
			Points int      `json:"points"`
		}
		got := browserEval[[]chartInfo](tb, `[...document.querySelectorAll("[data-chart]")].map(el => {
			const c = echarts.getInstanceByDom(el);
			if (!c) return {id: el.id, drawn: false, series: [], points: 0};
			const o = c.getOption();
			const cv = el.querySelector("canvas");
			return {id: el.id, drawn: !!cv && cv.width > 0 && cv.height > 0,
				series: o.series.map(s => s.name),
				points: o.series.reduce((n, s) => n + (s.data || []).length, 0)};
		})`)
		if len(got) < len(tc.want) {
			t.Errorf("%s: %d charts, want at least %d", tc.path, len(got), len(tc.want))
		}
		for _, c := range got {
			if !c.Drawn || c.Points == 0 {
				t.Errorf("%s: chart %s not drawn (canvas %v, %d points)", tc.path, c.ID, c.Drawn, c.Points)
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
	// The escape-rate curve's data and the x of its "max delay" mark line, as JSON.
	const chartJS = `JSON.stringify((() => {
		const c = echarts.getInstanceByDom(document.querySelector("#exp-window [data-chart]"));
		if (!c) return null;
		const s = c.getOption().series[0];
		return {data: s.data, mark: ((s.markLine && s.markLine.data) || []).map(d => d.xAxis)};
	})())`
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
	if err := tb.poll(chartsReadyJS, 5*time.Second); err != nil {
		t.Errorf("the chart was not drawn again after the htmx swap: %s",
			browserEval[string](tb, `[...document.querySelectorAll("#exp-window [data-chart]")].map(el =>
				el.id + ": data-chart-ready=" + el.getAttribute("data-chart-ready") +
				", options script #" + el.getAttribute("data-chart") + (document.getElementById(el.getAttribute("data-chart")) ? " present" : " missing")).join("; ")`))
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

	// Tab reaches a card's summary; Enter opens it, Space opens the next one.
	n := browserEval[int](tb, `document.querySelectorAll("details.card").length`)
	if n < 2 {
		t.Fatalf("%d interview cards on /semantics, want at least 2", n)
	}
	// Focus whatever comes just before the first summary in the tab order, then press Tab.
	browserEval[chromedp.Void](tb, `(() => {
		const sel = 'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), summary, [tabindex]:not([tabindex="-1"])';
		const all = [...document.querySelectorAll(sel)].filter(e => !e.closest("[hidden]") && e.getClientRects().length > 0);
		const i = all.indexOf(document.querySelector("details.card > summary"));
		all[i - 1].focus();
	})()`)
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
	type reveal struct {
		Q        string `json:"q"`
		Visible  bool   `json:"visible"`
		Measured string `json:"measured"`
		Where    string `json:"where"`
	}
	rs := browserEval[[]reveal](tb, `[...document.querySelectorAll("form[data-predictions] [data-question]")].map(li => {
		const r = li.querySelector(".reveal");
		return {q: li.dataset.question, visible: !r.hidden && r.getClientRects().length > 0,
			measured: li.querySelector(".measured").textContent.trim(), where: li.querySelector(".measured-where").textContent.trim()};
	})`)
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
	if v := browserEval[string](tb, `document.querySelector('[data-question="q1"] .verdict').textContent`); v != "You said 400: 2 too high." {
		t.Errorf("q1 verdict %q", v)
	}
	for _, prob := range tb.takeProblems() {
		t.Errorf("predictions: %s", prob)
	}
}

// browserAxe runs axe-core on every page, in the light and the dark theme, and fails on serious and
// critical violations.
func browserAxe(t *testing.T, b *browserSuite) {
	src, err := os.ReadFile(filepath.Join("..", "..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("axe-core missing (npm ci): %v", err)
		}
		t.Skipf("axe-core missing (run npm ci): %v", err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, scheme := range []string{"light", "dark"} {
		wg.Go(func() {
			t.Run(scheme, func(t *testing.T) {
				// axe takes a second or more a page, and much longer on a loaded machine.
				tb := b.newTab(t, tabOption{deadline: 100 * time.Second})
				tb.emulate(1280, 900, false, scheme)
				for _, p := range browserPages {
					tb.open(p)
					tb.waitCharts()
					if dark := browserEval[bool](tb, `matchMedia("(prefers-color-scheme: dark)").matches`); dark != (scheme == "dark") {
						t.Fatalf("prefers-color-scheme emulation failed: dark=%v", dark)
					}
					browserEval[chromedp.Void](tb, string(src))
					type violation struct {
						ID      string   `json:"id"`
						Impact  string   `json:"impact"`
						Help    string   `json:"help"`
						Targets []string `json:"targets"`
					}
					// Only colour differs between the themes, so the dark run checks colour alone.
					opts := `{resultTypes: ["violations"]}`
					if scheme == "dark" {
						opts = `{resultTypes: ["violations"], runOnly: {type: "rule", values: ["color-contrast", "link-in-text-block"]}}`
					}
					vs := browserEval[[]violation](tb, `axe.run(document, `+opts+`).then(r => r.violations.map(v => ({
					id: v.id, impact: v.impact || "", help: v.help,
					targets: v.nodes.map(n => n.target.join(" ") + (n.failureSummary ? " — " + n.failureSummary.replace(/\s+/g, " ").slice(0, 160) : ""))})))`,
						chromedp.EvalAwaitPromise)
					for _, v := range vs {
						if v.Impact == "serious" || v.Impact == "critical" {
							t.Errorf("%s (%s): %s [%s] on %d nodes:\n\t%s", p, scheme, v.ID, v.Impact, len(v.Targets), strings.Join(v.Targets[:min(len(v.Targets), 6)], "\n\t"))
						} else {
							t.Logf("%s (%s): %s [%s] %s: %s", p, scheme, v.ID, v.Impact, v.Help, strings.Join(v.Targets[:min(len(v.Targets), 3)], "; "))
						}
					}
				}
			})
		})
	}
}

// browserScreenshots writes full-page screenshots for a person to look at, and fails if anything
// sticks out sideways on a phone.
func browserScreenshots(t *testing.T, b *browserSuite) {
	dir := os.Getenv("ARTIFACTS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata-artifacts", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{
		{"desktop", 1280, 900, false},
		{"mobile", 390, 844, true},
	} {
		for _, scheme := range []string{"light", "dark"} {
			wg.Go(func() {
				t.Run(vp.name+"-"+scheme, func(t *testing.T) {
					// Own storage, so the home page never shows what other subtests measured.
					tb := b.newTab(t, tabOption{ownStorage: true, deadline: 100 * time.Second})
					tb.emulate(vp.width, vp.height, vp.mobile, scheme)
					pages := []string{"/", "/blocks/4", "/blocks/6", "/semantics", "/assembly"}
					if scheme == "dark" {
						pages = []string{"/blocks/4", "/semantics"} // a chart and the timeline
					}
					for _, p := range pages {
						tb.open(p)
						tb.waitCharts()
						if vp.mobile {
							// Nothing may stick out sideways except inside a scrolling box.
							wide := browserEval[[]string](tb, `(() => {
							const w = document.documentElement.clientWidth, out = [];
							if (document.documentElement.scrollWidth > w) out.push("document scrollWidth " + document.documentElement.scrollWidth + " > " + w);
							for (const el of document.querySelectorAll("body *")) {
								const r = el.getBoundingClientRect();
								if (r.width === 0 || r.right <= w + 1) continue;
								let p = el.parentElement, clipped = false;
								for (; p && p !== document.body; p = p.parentElement) {
									const ox = getComputedStyle(p).overflowX;
									if (ox !== "visible") { clipped = true; break; }
								}
								if (!clipped) out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && el.className.baseVal === undefined ? "." + String(el.className).trim().split(/\s+/).join(".") : "") + " right=" + Math.round(r.right));
								if (out.length > 8) break;
							}
							return out;
						})()`)
							for _, w := range wide {
								t.Errorf("%s at %dpx: overflows sideways: %s", p, vp.width, w)
							}
						}
						png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
						if err != nil {
							t.Fatalf("%s: %v", p, err)
						}
						if len(png) < 8 || string(png[1:4]) != "PNG" {
							t.Fatalf("%s: screenshot is not a PNG", p)
						}
						name := fmt.Sprintf("%dx%d-%s-%s.png", vp.width, vp.height, scheme, pageSlug(p))
						if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
							t.Fatal(err)
						}
						for _, prob := range tb.takeProblems() {
							t.Errorf("%s (%s): %s", p, vp.name, prob)
						}
					}
				})
			})
		}
	}
	t.Cleanup(func() { t.Logf("screenshots in %s", dir) })
}

// pageSlug names a screenshot after its path: "/" is "index", "/blocks/4" is "blocks-4".
func pageSlug(path string) string {
	if path == "/" {
		return "index"
	}
	return strings.ReplaceAll(strings.Trim(path, "/"), "/", "-")
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\u2028", `\u2028`, "\u2029", `\u2029`)
	return `"` + r.Replace(s) + `"`
}
