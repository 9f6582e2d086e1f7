package site

// The browser suite's harness: one chromium and one test server shared by every subtest, and a tab
// type that records what the page reports (console errors, uncaught exceptions, error log entries,
// CSP violations) so that a scenario can fail on them. The scenarios are in browser_test.go and
// browser_audit_test.go; the longer scripts they run in the page are in testdata/browser.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browserScript returns the JavaScript in testdata/browser/name. The longer scripts live there
// rather than in Go strings so that they read, diff and lint as JavaScript; a missing or empty
// file fails the test by name instead of evaluating nothing in the page.
func browserScript(t testing.TB, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "browser", name))
	if err != nil {
		t.Fatalf("browser script: %v (the browser suite's scripts live in internal/site/testdata/browser)", err)
	}
	// Trimmed so that a script can be wrapped or followed by more code; the files therefore keep
	// their comments at the top, never after the last line of code.
	js := strings.TrimSpace(string(src))
	if js == "" {
		t.Fatalf("browser script testdata/browser/%s is empty", name)
	}
	return js
}

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

// startBrowserSuite starts the real server over loopback and one chromium for the whole suite:
// starting chromium takes longer than most subtests, so they share it and open tabs instead.
func startBrowserSuite(t *testing.T) *browserSuite {
	t.Helper()
	execPath := findChromium(t)
	s := newTestServer(t, testConfig())
	ts := httptest.NewServer(s.echo)
	t.Cleanup(ts.Close)
	s.origins.Listening(ts.Listener.Addr()) // the links a room hands out name the test server
	return &browserSuite{ctx: startChromium(t, execPath), base: ts.URL}
}

// startChromium starts the headless chromium at execPath that a suite's tabs share, and stops it
// when the test ends.
func startChromium(t *testing.T, execPath string) context.Context {
	t.Helper()
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
	return ctx
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

// tabOption sets up a tab for a scenario that needs more than the default: a reader with their
// own storage, a reader without JavaScript, or more time for slow work such as axe.
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
	cspRecorder := browserScript(t, "csp-recorder.js")
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

// do runs steps in the tab and fails the test on the first error, so a scenario reads as the
// reader's actions without an error check after each.
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
		tb.t.Fatalf("waiting for %s: %v; the tab is at %s", what, err, tb.whereAbouts())
	}
}

// click clicks the element sel names as a person would, once it is in view and on top at its
// centre: a swap that scrolls the page as it settles (htmx's show:top) would otherwise move the
// element between chromedp's scroll and its click, and the click would land on whatever came
// under the pointer.
func (tb *browserTab) click(sel string) {
	tb.t.Helper()
	expr := `(() => { const el = document.querySelector(` + strconv.Quote(sel) + `); if (!el) return null;
		el.scrollIntoView({block: "center", inline: "nearest"});
		const r = el.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
		const hit = document.elementFromPoint(x, y);
		return hit && (hit === el || el.contains(hit)) && document.querySelectorAll(".htmx-request, .htmx-settling, .htmx-swapping").length === 0 ? [x, y] : null; })()`
	deadline := time.Now().Add(15 * time.Second)
	for {
		var prev []float64
		// The same place twice, a frame apart: nothing is still moving it.
		xy, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]float64](expr))
		if err == nil && len(xy) == 2 {
			time.Sleep(50 * time.Millisecond)
			prev = xy
			xy, err = chromedp.Run(tb.ctx, chromedp.Evaluate[[]float64](expr))
		}
		if err == nil && len(xy) == 2 && len(prev) == 2 && xy[0] == prev[0] && xy[1] == prev[1] {
			tb.do(chromedp.MouseClickXY(xy[0], xy[1]))
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("%s never came into view on top (%v); the tab is at %s", sel, err, tb.whereAbouts())
		}
		time.Sleep(40 * time.Millisecond)
	}
}

// whereAbouts says where a tab is and what its page says in its alerts and statuses, for a failed
// wait to tell what the page did instead.
func (tb *browserTab) whereAbouts() string {
	got, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`location.pathname + location.search + " " + JSON.stringify(
		[...document.querySelectorAll('[role="alert"], [role="status"], .notice')].map(e => e.innerText.trim()).filter(Boolean).slice(0, 6))`))
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	return got
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

// waitCharts waits until app.js has drawn every chart on the page: a scenario that reads a chart
// or the page's problems before then would race the page's own scripts.
func (tb *browserTab) waitCharts() {
	tb.t.Helper()
	tb.waitFor("charts drawn", tb.script("charts-ready.js"))
}

// script returns testdata/browser/name, failing tb's test when it is missing.
func (tb *browserTab) script(name string) string {
	tb.t.Helper()
	return browserScript(tb.t, name)
}

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

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\u2028", `\u2028`, "\u2029", `\u2029`)
	return `"` + r.Replace(s) + `"`
}

// rerun types each value over its input in the block with DOM id block, presses Run and waits for
// the block to come back holding the values, and its charts to be drawn.
func (tb *browserTab) rerun(block string, values map[string]string) {
	tb.t.Helper()
	for name, v := range values {
		tb.retype("#"+block+"-"+name, v)
	}
	tb.do(chromedp.Click(chromedp.CSS("#" + block + " button.run")))
	for name, v := range values {
		tb.waitFor(block+" back with "+name+"="+v, `document.querySelector("#`+block+`-`+name+`").defaultValue === `+jsString(v))
	}
	tb.waitCharts()
}

// intercept pauses the tab's XHRs whose URL matches pattern (the Fetch domain's glob) and hands
// each to the test, which must let it go on (proceed) or answer it (answer).
func (tb *browserTab) intercept(pattern string) <-chan *fetch.EventRequestPaused {
	tb.t.Helper()
	events := chromedp.Events(tb.ctx, fetch.RequestPaused)
	tb.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
			{URLPattern: pattern, ResourceType: network.ResourceTypeXHR},
		}})
		return err
	}))
	ch := make(chan *fetch.EventRequestPaused, 16)
	go func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			select {
			case ch <- &ev:
			default: // more requests than any scenario makes: the scenario fails on the count
			}
		}
	}()
	return ch
}

// paused waits for the next request intercept holds.
func (tb *browserTab) paused(ch <-chan *fetch.EventRequestPaused, what string) *fetch.EventRequestPaused {
	tb.t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(10 * time.Second):
		tb.t.Fatalf("no request for %s", what)
		return nil
	}
}

// proceed lets a held request go on to the server.
func (tb *browserTab) proceed(ev *fetch.EventRequestPaused) {
	tb.t.Helper()
	if _, err := chromedp.Call(tb.ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID}); err != nil {
		tb.t.Fatal(err)
	}
}

// answer answers a held request itself, as the server would when it refuses a run.
func (tb *browserTab) answer(ev *fetch.EventRequestPaused, status int64, headers map[string]string, body string) {
	tb.t.Helper()
	hs := []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html; charset=utf-8"}}
	for k, v := range headers {
		hs = append(hs, &fetch.HeaderEntry{Name: k, Value: v})
	}
	if _, err := chromedp.Call(tb.ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{
		RequestID: ev.RequestID, ResponseCode: status, ResponseHeaders: hs, Body: []byte(body),
	}); err != nil {
		tb.t.Fatal(err)
	}
}

// historyLength is the number of entries in the tab's session history.
func (tb *browserTab) historyLength() int {
	tb.t.Helper()
	hist, err := chromedp.Run(tb.ctx, chromedp.NavigationEntries())
	if err != nil {
		tb.t.Fatal(err)
	}
	return len(hist.Entries)
}
