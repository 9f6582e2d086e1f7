package site

// The scenarios of the experiment forms as a reader meets them: the URL that holds every form, the
// predictions against their own measurements, focus and announcements on Run, the timeline's
// history, and a refused, busy or limited run that keeps the last good result.

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/pages"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// blockSnapshot is what testdata/browser/experiment-blocks.js reports for each experiment block.
type blockSnapshot struct {
	ID      string            `json:"id"`
	Inputs  map[string]string `json:"inputs"`
	Stream  string            `json:"stream"`
	Reading string            `json:"reading"`
	Rows    []string          `json:"rows"`
}

// browserPageURLHoldsEveryForm reruns the first form of a page with two experiments, then the
// second, then the first again: the pushed URL must hold both forms' values, the second block must
// follow the stream set in the first, and a reload of that URL must show exactly what was on screen.
func browserPageURLHoldsEveryForm(t *testing.T, b *browserSuite) {
	for _, tc := range []struct {
		path          string
		first, second string            // the blocks' DOM ids
		firstValues   map[string]string // typed into the first form, run, ...
		secondValues  map[string]string // ... then these into the second ...
		againValues   map[string]string // ... then these into the first again
		inherited     string            // a stream value the second block must show after the first run, as it shows it
		wantInURL     []string          // in the final URL
	}{
		{"/blocks/1", "exp-assembly", "exp-crash-sweep",
			map[string]string{"jobs": "30000"}, map[string]string{"crash_rates": "0.01,0.1"}, map[string]string{"seed": "7"},
			"30,000", []string{"jobs=30000", "seed=7", "crash-sweep.crash_rates=0.01%2C0.1"}},
		{"/blocks/4", "exp-window", "exp-window-grid",
			map[string]string{"jobs": "30000", "max_delay": "3000"}, map[string]string{"max_delays": "500,4000"}, map[string]string{"seed": "7"},
			"30,000", []string{"jobs=30000", "max_delay=3000", "seed=7", "window-grid.max_delays=500%2C4000"}},
	} {
		t.Run(strings.TrimPrefix(strings.ReplaceAll(tc.path, "/", "-"), "-"), func(t *testing.T) {
			tb := b.newTab(t, tabOption{})
			tb.open(tc.path)
			tb.waitCharts()
			snap := tb.script("experiment-blocks.js")
			search := func() string { return browserEval[string](tb, `decodeURIComponent(location.search)`) }

			tb.rerun(tc.first, tc.firstValues)
			tb.waitFor("the second block to take the first form's stream",
				`document.querySelector("#`+tc.second+` p.stream").textContent.includes(`+jsString(tc.inherited)+`)`)
			tb.rerun(tc.second, tc.secondValues)
			for k, v := range tc.firstValues {
				if !strings.Contains(search(), k+"="+v) {
					t.Errorf("after rerunning the second form the URL %s lost the first form's %s=%s", search(), k, v)
				}
			}
			tb.rerun(tc.first, tc.againValues)
			for k, v := range tc.secondValues {
				if !strings.Contains(search(), tc.second[len("exp-"):]+"."+k+"="+v) {
					t.Errorf("after rerunning the first form again the URL %s lost the second form's %s=%s", search(), k, v)
				}
			}
			u := browserEval[string](tb, `location.search`)
			for _, w := range tc.wantInURL {
				if !strings.Contains(u, w) {
					t.Errorf("the URL %s lacks %s", u, w)
				}
			}
			before := browserEval[[]blockSnapshot](tb, snap)
			tb.do(chromedp.Reload())
			tb.waitCharts()
			if got := browserEval[string](tb, `location.search`); got != u {
				t.Errorf("the reload changed the URL from %s to %s", u, got)
			}
			after := browserEval[[]blockSnapshot](tb, snap)
			if len(before) != 2 || len(after) != 2 {
				t.Fatalf("%d blocks before the reload, %d after; want 2", len(before), len(after))
			}
			for i := range before {
				if fmt.Sprint(before[i]) != fmt.Sprint(after[i]) {
					t.Errorf("%s shows something else after the reload of %s:\nbefore %+v\nafter  %+v", before[i].ID, u, before[i], after[i])
				}
				if len(before[i].Rows) == 0 || before[i].Reading == "" {
					t.Errorf("%s: no table rows or no reading to compare: %+v", before[i].ID, before[i])
				}
			}
			for _, prob := range tb.takeProblems() {
				t.Errorf("%s: %s", tc.path, prob)
			}
		})
	}
}

// browserPredictionsOwnMeasurement saves guesses, runs block 1 at a crash rate of 1 and comes back:
// each question must still be compared with its own measurement (its own parameters), whatever
// else the reader ran, the verdict must say how far off a guess is, a far guess must not look like
// a success, and numbers carry thousands separators.
func browserPredictionsOwnMeasurement(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{ownStorage: true})
	bound := `document.querySelector("form[data-predictions]").dataset.bound === "1"`
	tb.open("/")
	tb.waitFor("app.js to bind the form", bound)
	for id, g := range map[string]string{"q1": "2000", "q2": "400", "q3": "12", "q4": "195", "q5": "1000"} {
		tb.do(chromedp.SendKeys(chromedp.ID("predict-"+id), g))
	}
	tb.do(chromedp.Click(chromedp.CSS(`form[data-predictions] button[type="submit"]`)))
	tb.waitFor("the saved status", `document.querySelector("form[data-predictions] .status").textContent.includes("5 predictions saved")`)

	// Every job crashes: block 1 loses all 20,000. That run answers nothing the questions ask.
	tb.open("/blocks/1?crash_rate=1")
	tb.waitCharts()
	tb.open("/")
	tb.waitFor("app.js to bind the form", bound)

	type verdict struct {
		Q        string `json:"q"`
		Measured string `json:"measured"`
		Where    string `json:"where"`
		Verdict  string `json:"verdict"`
		Class    string `json:"class"`
		Bg       string `json:"bg"`
		Href     string `json:"href"`
	}
	got := browserEval[[]verdict](tb, `[...document.querySelectorAll("form[data-predictions] [data-question]")].map(li => {
		const r = li.querySelector(".reveal");
		return {q: li.dataset.question, measured: li.querySelector(".measured").textContent.trim(),
			where: li.querySelector(".measured-where").textContent.trim(), verdict: li.querySelector(".verdict").textContent.trim(),
			class: r.className, bg: getComputedStyle(r).backgroundColor, href: r.querySelector("a").getAttribute("href")};
	})`)
	if len(got) != 5 {
		t.Fatalf("%d questions, want 5", len(got))
	}
	want := []struct{ measured, verdict, class string }{
		{"398", "You said 2,000: 1,602 too high (5x the measurement).", "far"},
		{"398", "You said 400: 2 too high, within 1% of the measurement.", "close"},
		{"0", "You said 12: 12 too high (the measurement is 0).", "far"},
		{"195", "You said 195: exactly right.", "exact"},
		{"2,448", "You said 1,000: 1,448 too low (41% of the measurement).", "far"},
	}
	for i, w := range want {
		g := got[i]
		if g.Measured != w.measured || g.Where != "at the document's values" {
			t.Errorf("%s: measured %q %q, want %q at the document's values (the question's own parameters)", g.Q, g.Measured, g.Where, w.measured)
		}
		if g.Verdict != w.verdict {
			t.Errorf("%s: verdict %q, want %q", g.Q, g.Verdict, w.verdict)
		}
		if !slices.Contains(strings.Fields(g.Class), w.class) {
			t.Errorf("%s: reveal classes %q, want %q", g.Q, g.Class, w.class)
		}
		if strings.Contains(g.Href, "crash_rate") {
			t.Errorf("%s: links to the reader's run %s, not to its own measurement", g.Q, g.Href)
		}
	}
	// A far guess must not wear the success colour an exact one does.
	if got[0].Bg == got[3].Bg {
		t.Errorf("a far guess (q1) has the same background as an exact one (q4): %s", got[0].Bg)
	}
	for _, prob := range tb.takeProblems() {
		t.Errorf("predictions: %s", prob)
	}
}

// browserRunKeepsFocusAndAnnounces presses Enter on Run and holds the request: meanwhile the panel
// is busy and Run refuses a second press; once the result is in, focus is still on Run and the
// live region says the result was updated, with the first sentence of the new reading.
func browserRunKeepsFocusAndAnnounces(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{})
	tb.open("/blocks/4")
	tb.waitCharts()
	held := tb.intercept("*/blocks/4?*")
	tb.retype("#exp-window-max_delay", "3000")
	tb.do(chromedp.Focus(chromedp.CSS("#exp-window button.run")), chromedp.KeyEvent(kb.Enter))
	req := tb.paused(held, "the rerun")
	type busy struct {
		Busy     string `json:"busy"`
		Disabled bool   `json:"disabled"`
		Said     string `json:"said"`
		Focused  bool   `json:"focused"`
	}
	const busyJS = `(() => { const run = document.querySelector("#exp-window button.run");
		return {busy: document.querySelector("#exp-window").getAttribute("aria-busy") || "",
			disabled: run.disabled || run.getAttribute("aria-disabled") === "true",
			said: [...document.querySelectorAll("[role=status], [aria-live]")].map(e => e.textContent).join("|"),
			focused: document.activeElement === run}; })()`
	if got := browserEval[busy](tb, busyJS); got.Busy != "true" || !got.Disabled || !strings.Contains(got.Said, "Running") || !got.Focused {
		t.Errorf("while the run is under way: %+v, want the panel aria-busy, Run disabled and focused, and Running said", got)
	}
	// A second press while the first run is under way sends nothing.
	tb.do(chromedp.KeyEvent(kb.Enter))
	tb.proceed(req)
	tb.waitFor("the rerun block", `document.querySelector("#exp-window-max_delay").defaultValue === "3000"`)
	tb.waitCharts()
	select {
	case ev := <-held:
		tb.proceed(ev)
		t.Error("a second press of Run during the run sent a second request")
	case <-time.After(300 * time.Millisecond):
	}
	type after struct {
		Focus   string `json:"focus"`
		Busy    string `json:"busy"`
		Enabled bool   `json:"enabled"`
		Said    string `json:"said"`
		Reading string `json:"reading"`
	}
	tb.waitFor("the announcement", `[...document.querySelectorAll("[role=status], [aria-live]")].some(e => e.textContent.startsWith("Result updated: "))`)
	got := browserEval[after](tb, `(() => { const run = document.querySelector("#exp-window button.run");
		return {focus: document.activeElement === run ? "run" : document.activeElement.outerHTML.slice(0, 80),
			busy: document.querySelector("#exp-window").getAttribute("aria-busy") || "",
			enabled: !run.disabled && run.getAttribute("aria-disabled") !== "true",
			said: [...document.querySelectorAll("[role=status], [aria-live]")].map(e => e.textContent).find(s => s.startsWith("Result updated: ")) || "",
			reading: document.querySelector("#exp-window .reading p").textContent.trim()}; })()`)
	if got.Focus != "run" {
		t.Errorf("after the rerun focus is on %s, want Run", got.Focus)
	}
	if got.Busy == "true" || !got.Enabled {
		t.Errorf("after the rerun the panel is still busy (%q) or Run disabled (enabled %v)", got.Busy, got.Enabled)
	}
	first, _, _ := strings.Cut(got.Reading, ". ")
	if got.Said != "Result updated: "+strings.TrimSuffix(first, ".")+"." {
		t.Errorf("the live region says %q, want the first sentence of the reading %q", got.Said, got.Reading)
	}
	for _, prob := range tb.takeProblems() {
		t.Errorf("rerun: %s", prob)
	}
}

// browserTimelineStepsReplaceHistory steps the timeline three times: the steps swap in place and
// replace the history entry, so one Back leaves the page.
func browserTimelineStepsReplaceHistory(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{})
	tb.open("/glossary")
	tb.open("/semantics")
	n := tb.historyLength()
	browserEval[chromedp.Void](tb, `window.__sameDocument = true`)
	const activeJS = `(document.querySelector("#timeline .tl-step.active") || {getAttribute: () => ""}).getAttribute("aria-label")`
	for step := 2; step <= 4; step++ {
		tb.do(chromedp.Focus(chromedp.CSS(`#timeline [data-tl="next"]`)), chromedp.KeyEvent(kb.ArrowRight))
		tb.waitFor(fmt.Sprintf("step %d", step), fmt.Sprintf(`location.search.includes("step=%d") && %s.startsWith("Step %d:")`, step, activeJS, step))
		tb.waitFor("focus back on a timeline control", `!!document.activeElement.closest("#timeline")`)
	}
	if !browserEval[bool](tb, `window.__sameDocument === true`) {
		t.Error("stepping the timeline loaded the page again instead of swapping the timeline in place")
	}
	if got := tb.historyLength(); got != n {
		t.Errorf("three steps left %d history entries, want %d (each step replaces the entry)", got, n)
	}
	browserEval[chromedp.Void](tb, `history.back()`)
	tb.waitFor("one Back to leave the page", `location.pathname === "/glossary"`)
	for _, prob := range tb.takeProblems() {
		t.Errorf("timeline: %s", prob)
	}
}

// staleState is what a scenario reads of an experiment block after a refused run.
type staleState struct {
	URL      string `json:"url"`
	History  int    `json:"history"`
	Tables   string `json:"tables"`
	Reading  string `json:"reading"`
	Stale    bool   `json:"stale"`
	Note     string `json:"note"`
	NoteSeen bool   `json:"noteSeen"`
	Alert    string `json:"alert"`
	Query    string `json:"query"`
	Status   string `json:"status"`
	Focus    string `json:"focus"`
}

// staleJS reads a block's state (see staleState); %s is the block's DOM id.
const staleJS = `(() => { const sec = document.querySelector("#%s"), r = sec.querySelector(".result");
	const note = r.querySelector(".stale-note") || {textContent: "", getClientRects: () => []};
	return {url: location.href, history: history.length,
		tables: [...r.querySelectorAll("table.data tbody")].map(t => t.textContent).join("|"),
		reading: (r.querySelector(".reading p") || {textContent: ""}).textContent,
		stale: r.classList.contains("stale"), note: note.textContent.replace(/\s+/g, " ").trim(), noteSeen: note.getClientRects().length > 0,
		alert: [...sec.querySelectorAll("[role=alert]")].map(a => a.textContent.replace(/\s+/g, " ").trim()).join("|"),
		query: sec.getAttribute("data-query"), status: (sec.querySelector(".status") || {textContent: ""}).textContent,
		focus: document.activeElement.id || document.activeElement.className}; })()`

// browserRefusedRunKeepsResult runs block 1 with crash_rate=abc: the last good result stays,
// marked not updated, the URL is not pushed, the message says the value is not a number, and a
// rerun of the other form does not carry the refused value into the URL.
func browserRefusedRunKeepsResult(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{})
	tb.open("/blocks/1")
	tb.waitCharts()
	browserEval[chromedp.Void](tb, `window.__sameDocument = true`)
	before := browserEval[staleState](tb, fmt.Sprintf(staleJS, "exp-assembly"))
	tb.retype("#exp-assembly-crash_rate", "abc")
	tb.do(chromedp.Click(chromedp.CSS("#exp-assembly button.run")))
	tb.waitFor("the error beside crash_rate", `document.querySelector("#exp-assembly .field.invalid #exp-assembly-crash_rate-error")`)
	tb.waitFor("the panel to be free", `document.querySelector("#exp-assembly").getAttribute("aria-busy") !== "true"`)
	got := browserEval[staleState](tb, fmt.Sprintf(staleJS, "exp-assembly"))
	if !browserEval[bool](tb, `window.__sameDocument === true`) {
		t.Fatal("the refused run reloaded the page")
	}
	if got.URL != before.URL || got.History != before.History {
		t.Errorf("a refused run changed the URL or history: %s (%d entries), was %s (%d)", got.URL, got.History, before.URL, before.History)
	}
	if got.Tables != before.Tables || got.Reading != before.Reading || got.Tables == "" {
		t.Errorf("the last good result was not kept:\nbefore %q\nafter  %q", before.Tables, got.Tables)
	}
	if !got.Stale || !got.NoteSeen || !strings.Contains(strings.ToLower(got.Note), "not updated") {
		t.Errorf("the kept result is not marked as not updated: stale %v, note seen %v, %q", got.Stale, got.NoteSeen, got.Note)
	}
	if !strings.Contains(got.Alert, "not a number") || strings.Contains(got.Alert, "out of bounds") || strings.Contains(got.Alert, "out of range") {
		t.Errorf("the alert does not say the value is not a number: %q", got.Alert)
	}
	if got.Query != before.Query || strings.Contains(got.Query, "abc") {
		t.Errorf("the refused block's data-query is %q, want its last good %q", got.Query, before.Query)
	}
	if got.Focus != "exp-assembly-crash_rate" {
		t.Errorf("focus is on %q after the refused run, want the refused field", got.Focus)
	}
	if v := browserEval[string](tb, `document.querySelector("#exp-assembly-crash_rate").value`); v != "abc" {
		t.Errorf("the refused value was not kept in its input: %q", v)
	}

	// Another form's rerun pushes the page's last good values, never the refused one.
	tb.rerun("exp-crash-sweep", map[string]string{"crash_rates": "0.01,0.1"})
	tb.waitFor("the URL with the sweep's values", `location.search.includes("crash-sweep.crash_rates=")`)
	if u := browserEval[string](tb, `location.search`); strings.Contains(u, "abc") {
		t.Errorf("rerunning the other form pushed the refused value: %s", u)
	}
	// Fixing the value runs it and clears the mark.
	tb.rerun("exp-assembly", map[string]string{"crash_rate": "0.05"})
	fixed := browserEval[staleState](tb, fmt.Sprintf(staleJS, "exp-assembly"))
	if fixed.Stale || fixed.Note != "" || fixed.Tables == before.Tables || !strings.Contains(fixed.URL, "crash_rate=0.05") || !strings.Contains(fixed.URL, "crash-sweep.crash_rates=") {
		t.Errorf("the fixed run: %+v", fixed)
	}
	for _, prob := range tb.takeProblems() {
		if strings.HasPrefix(prob, "log (network): ") && strings.Contains(prob, "422") {
			continue // chromium logs every non-2xx XHR; the 422 is the expected answer
		}
		t.Errorf("refused run: %s", prob)
	}
}

// renderBlock renders experiment name's block as the server draws a run it could not start.
func renderBlock(t *testing.T, name, path string, raw map[string]string, busy string) string {
	t.Helper()
	e, ok := experiments.Lookup(name)
	if !ok {
		t.Fatalf("no experiment %q", name)
	}
	r := pages.Run{Experiment: e, Raw: raw, Busy: busy}
	v, err := pages.NewExperimentView(pages.Site{}, path, r, []pages.Run{r})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := pages.Experiment(v).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// browserBusyRunKeepsResult answers block 4's rerun as a server under load (503) or a rate limit
// (429) does, with Retry-After: the last good result stays, marked not updated, the server's
// message and when to try again are said, and the URL is not pushed.
func browserBusyRunKeepsResult(t *testing.T, b *browserSuite) {
	var errorPage bytes.Buffer
	if err := pages.Layout(pages.Site{}, "Too Many Requests", pages.ErrorPage("Too Many Requests",
		"too many runs from your address in a short time; wait a moment and run again", "/")).Render(context.Background(), &errorPage); err != nil {
		t.Fatal(err)
	}
	raw := map[string]string{"max_delay": "3000"}
	for _, tc := range []struct {
		name       string
		status     int64
		retryAfter string
		body       string
		want       []string // in the alert
	}{
		{"busy", 503, "7", renderBlock(t, "window", "/blocks/4", raw, "every experiment slot is busy with other readers' runs"),
			[]string{"Not run yet. Every experiment slot is busy", "Try again in 7 s"}},
		{"rate-limited", 429, "2", renderBlock(t, "window", "/blocks/4", raw, "too many runs from your address in a short time"),
			[]string{"Not run yet. Too many runs from your address", "Try again in 2 s"}},
		{"rate-limited-error-page", 429, "3", errorPage.String(),
			[]string{"Not run. Too many runs from your address", "Try again in 3 s"}},
		// Status 0: the connection fails and no answer arrives at all.
		{"unreachable", 0, "", "", []string{"Not run. The server could not be reached"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := b.newTab(t, tabOption{})
			tb.open("/blocks/4")
			tb.waitCharts()
			browserEval[chromedp.Void](tb, `window.__sameDocument = true`)
			before := browserEval[staleState](tb, fmt.Sprintf(staleJS, "exp-window"))
			held := tb.intercept("*/blocks/4?*")
			tb.retype("#exp-window-max_delay", "3000")
			tb.do(chromedp.Focus(chromedp.CSS("#exp-window button.run")), chromedp.KeyEvent(kb.Enter))
			if ev := tb.paused(held, "the rerun"); tc.status == 0 {
				if _, err := chromedp.Call(tb.ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonConnectionRefused}); err != nil {
					t.Fatal(err)
				}
			} else {
				tb.answer(ev, tc.status, map[string]string{"Retry-After": tc.retryAfter}, tc.body)
			}
			tb.waitFor("the panel to be free", `document.querySelector("#exp-window").getAttribute("aria-busy") !== "true" && !!document.querySelector("#exp-window .stale-note")`)
			got := browserEval[staleState](tb, fmt.Sprintf(staleJS, "exp-window"))
			if !browserEval[bool](tb, `window.__sameDocument === true`) {
				t.Fatal("the refused run reloaded the page")
			}
			if got.URL != before.URL || got.History != before.History {
				t.Errorf("a refused run changed the URL or history: %s (%d entries), was %s (%d)", got.URL, got.History, before.URL, before.History)
			}
			if got.Tables != before.Tables || got.Reading != before.Reading || got.Tables == "" {
				t.Errorf("the last good result was not kept:\nbefore %q\nafter  %q", before.Tables, got.Tables)
			}
			if !got.Stale || !got.NoteSeen || !strings.Contains(strings.ToLower(got.Note), "not updated") {
				t.Errorf("the kept result is not marked as not updated: stale %v, note seen %v, %q", got.Stale, got.NoteSeen, got.Note)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Alert, w) {
					t.Errorf("the alert %q lacks %q", got.Alert, w)
				}
			}
			if got.Query != before.Query {
				t.Errorf("data-query %q, want the last good %q", got.Query, before.Query)
			}
			if got.Focus != "run" {
				t.Errorf("focus is on %q after the refused run, want Run", got.Focus)
			}
			if v := browserEval[string](tb, `document.querySelector("#exp-window-max_delay").value`); v != "3000" {
				t.Errorf("the reader's value was not kept in its input: %q", v)
			}
			if !browserEval[bool](tb, `document.querySelector("#exp-window .result").firstElementChild.classList.contains("stale-note")`) {
				t.Error("the notice is not the first thing in the result: the old numbers would read as this run's")
			}
			for _, prob := range tb.takeProblems() {
				if strings.HasPrefix(prob, "log (network): ") && (strings.Contains(prob, fmt.Sprint(tc.status)) || tc.status == 0) {
					continue // chromium logs every non-2xx XHR and failed connection; this one is expected
				}
				if tc.status == 0 && strings.HasPrefix(prob, "console.error: htmx:") {
					continue // htmx itself logs a request that got no answer
				}
				t.Errorf("%s: %s", tc.name, prob)
			}
		})
	}
}
