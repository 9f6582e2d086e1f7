package site

// Issue 23's "predict at the point of use, alone too", as a reader sees it: on block 4 a reader
// switches on "Hide results until I guess", each result hides behind its question, a guess
// reveals it beside the guess, a reload keeps it, a rerun at other values asks again; on a phone
// and in the dark; with no CSP violation; hidden before app.js has even run; and, without
// script, every result shown as before.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"effectivelyonce/pages"
)

// TestBrowserGuess runs the scenarios of hiding results until a guess, each in a tab with its own
// cookies, against one chromium and one server of their own.
func TestBrowserGuess(t *testing.T) {
	b := startBrowserSuite(t)
	t.Run("HideGuessRevealRerun", func(t *testing.T) { browserGuessRevealRerun(t, b, 1280, 900, false, "light") })
	t.Run("PhoneDark", func(t *testing.T) { browserGuessRevealRerun(t, b, 390, 844, true, "dark") })
	t.Run("HiddenBeforeScript", func(t *testing.T) { browserGuessHiddenBeforeScript(t, b) })
	t.Run("WithoutJavaScript", func(t *testing.T) { browserGuessWithoutJavaScript(t, b) })
}

// guessState is what a block shows of its guess: whether its result, its question and its verdict
// are on screen, the verdict's words, and whether its charts are drawn with a size.
type guessState struct {
	Pending  bool   `json:"pending"`
	Result   bool   `json:"result"`
	Question bool   `json:"question"`
	Verdict  bool   `json:"verdict"`
	Said     string `json:"said"`
	Charts   bool   `json:"charts"`
	// Discussion is whether the prose that discusses the result (content's ::: after) is on
	// screen, and Note whether the line that says it is hidden is.
	Discussion bool `json:"discussion"`
	Note       bool `json:"note"`
}

// guessStateJS reads a guessState of the block with DOM id id.
func guessStateJS(id string) string {
	return `(() => { const s = document.getElementById(` + jsString(id) + `);
		const v = document.getElementById(` + jsString(id+"-guessed") + `);
		const charts = [...s.querySelectorAll("[data-chart]")];
		const after = document.querySelector(".after-result[data-result-of~=" + JSON.stringify(s.id) + "]");
		return {discussion: !!after && after.querySelector(".after-body").checkVisibility(),
			note: !!after && after.querySelector(".after-note").checkVisibility(),
			pending: s.classList.contains("predict-pending"),
			result: s.querySelector(".result").checkVisibility(),
			question: s.querySelector("form.predict-ask").checkVisibility(),
			verdict: !!v && v.checkVisibility(), said: v ? v.querySelector(".predict-said").textContent : "",
			charts: charts.length > 0 && charts.every(el => { const c = window.echarts && echarts.getInstanceByDom(el);
				const d = el.querySelector("svg"); return !!c && !!d && d.getBoundingClientRect().width > 0; })}; })()`
}

func (tb *browserTab) guessState(id string) guessState {
	tb.t.Helper()
	return browserEval[guessState](tb, guessStateJS(id))
}

// announced is what the page's one live region says.
func (tb *browserTab) announced() string {
	tb.t.Helper()
	return browserEval[string](tb, `document.querySelector("[data-announcer]").textContent`)
}

// browserGuessRevealRerun is the reader's whole path on block 4 at one size and colour scheme, by
// keyboard alone: switch on, see both results hidden, type a decimal comma and be told what to
// write, guess, see the result beside the guess with focus on it, reload, rerun at another
// maximum delay and be asked again. Screenshots of each state go to testdata-artifacts.
func browserGuessRevealRerun(t *testing.T, b *browserSuite, width, height int64, mobile bool, scheme string) {
	tb := b.newTab(t, tabOption{ownStorage: true})
	tb.emulate(width, height, mobile, scheme)
	shot := guessShots(t, fmt.Sprintf("%dx%d-%s", width, height, scheme))
	tb.open("/blocks/4")
	tb.waitCharts()
	if got := tb.guessState("exp-window"); got.Pending || !got.Result || got.Question || got.Verdict || !got.Discussion || got.Note {
		t.Fatalf("before the switch: %+v, want the result and its discussion shown as always", got)
	}
	if !browserEval[bool](tb, `document.getElementById("predict-toggle").checkVisibility()`) {
		t.Fatal("the switch is not on screen")
	}

	// Space on the focused switch turns it on: both results hide, and the page says so.
	tb.do(chromedp.Focus(chromedp.ID("predict-toggle")), chromedp.KeyEvent(" "))
	tb.waitFor("both blocks hidden", `document.querySelectorAll("section.experiment.predict-pending").length === 2`)
	if !browserEval[bool](tb, `document.cookie.split("; ").includes("`+pages.GuessOptInCookie+`=on")`) {
		t.Error("the switch left no cookie for the server")
	}
	shot(tb, "switch")
	for _, id := range []string{"exp-window", "exp-window-grid"} {
		if got := tb.guessState(id); !got.Pending || got.Result || !got.Question || got.Verdict || got.Discussion || !got.Note {
			t.Errorf("%s after the switch: %+v, want the result and its discussion hidden behind its question", id, got)
		}
	}
	if got, want := tb.announced(), "Results hidden: 2 experiments ask for your guess first."; got != want {
		t.Errorf("announced %q, want %q", got, want)
	}
	question := browserEval[string](tb, `document.querySelector("#exp-window .predict-ask label").textContent`)
	if question != "How many duplicates escape a window of 1,000 ids when redeliveries come up to 2,000 jobs late, on 20,000 jobs with 2% crashing?" {
		t.Errorf("question %q", question)
	}
	shot(tb, "asked")

	// A decimal comma is refused next to the field, in words that say what to write; the text
	// stays and nothing is revealed.
	tb.do(chromedp.Focus(chromedp.ID("exp-window-guess")), chromedp.SendKeys(chromedp.ID("exp-window-guess"), "1,5"+kb.Enter))
	tb.waitFor("the refusal", `document.getElementById("exp-window-guess-error").checkVisibility()`)
	type refusal struct {
		Error, Value, Invalid, Focus string
	}
	got := browserEval[refusal](tb, `({Error: document.getElementById("exp-window-guess-error").textContent,
		Value: document.getElementById("exp-window-guess").value,
		Invalid: document.getElementById("exp-window-guess").getAttribute("aria-invalid") || "",
		Focus: document.activeElement.id})`)
	want := refusal{"“1,5”: write decimals with a point (0.5); commas only group thousands (1,200).", "1,5", "true", "exp-window-guess"}
	if got != want {
		t.Errorf("after 1,5:\n got %+v\nwant %+v", got, want)
	}
	if s := tb.guessState("exp-window"); !s.Pending || s.Result {
		t.Errorf("a refused guess revealed the result: %+v", s)
	}
	shot(tb, "refused")

	// A guess with a thousands separator, sent with Enter, reveals the result beside it.
	tb.retype("#exp-window-guess", "300")
	tb.do(chromedp.KeyEvent(kb.Enter))
	tb.waitFor("the reveal", `document.activeElement && document.activeElement.id === "exp-window-guessed"`)
	verdict := "You guessed 300; measured 195 (105 too high)."
	if s := tb.guessState("exp-window"); s.Pending || !s.Result || s.Question || !s.Verdict || s.Said != verdict || !s.Charts || !s.Discussion || s.Note {
		t.Errorf("after guessing 300: %+v, want the result and its discussion shown with %q and its chart drawn", s, verdict)
	}
	if s := tb.guessState("exp-window-grid"); !s.Pending || s.Result || s.Discussion {
		t.Errorf("the grid was revealed by the window's guess: %+v", s)
	}
	if got := tb.announced(); got != "Result shown. "+verdict {
		t.Errorf("announced %q", got)
	}
	if browserEval[bool](tb, `document.getElementById("exp-window-guess").hasAttribute("aria-invalid")`) {
		t.Error("the refusal stays after a good guess")
	}
	shot(tb, "revealed")

	// A reload asks nothing again: the server draws the verdict from the cookie, in the same words.
	tb.open("/blocks/4")
	tb.waitShownCharts()
	if s := tb.guessState("exp-window"); s.Pending || !s.Result || s.Question || s.Said != verdict || !s.Charts || !s.Discussion {
		t.Errorf("after a reload: %+v, want the result and its discussion shown with %q", s, verdict)
	}
	if s := tb.guessState("exp-window-grid"); !s.Pending || s.Result || s.Discussion {
		t.Errorf("after a reload the grid is %+v, want it and its discussion still hidden", s)
	}

	// A rerun at another maximum delay is another run: asked again, about its own row.
	tb.retype("#exp-window-max_delay", "5000")
	tb.do(chromedp.KeyEvent(kb.Enter))
	tb.waitFor("the rerun", `document.querySelector("#exp-window-max_delay").defaultValue === "5000"`)
	tb.waitFor("the rerun hidden", `document.getElementById("exp-window").classList.contains("predict-pending")`)
	if s := tb.guessState("exp-window"); s.Result || !s.Question || s.Verdict || s.Discussion || !s.Note {
		t.Errorf("after a rerun at 5,000: %+v, want it asked again, its discussion hidden", s)
	}
	question = browserEval[string](tb, `document.querySelector("#exp-window .predict-ask label").textContent`)
	if !strings.Contains(question, "a window of 2,000 ids when redeliveries come up to 5,000 jobs late") {
		t.Errorf("question after the rerun %q, want it about window 2,000 at 5,000", question)
	}
	if a := tb.announced(); strings.Contains(a, "escape") || strings.Contains(a, "crashed") {
		t.Errorf("the rerun read the hidden result out: %q", a)
	}
	tb.do(chromedp.Focus(chromedp.ID("exp-window-guess")), chromedp.SendKeys(chromedp.ID("exp-window-guess"), "1e3"+kb.Enter))
	tb.waitFor("the second reveal", `document.activeElement && document.activeElement.id === "exp-window-guessed"`)
	if s := tb.guessState("exp-window"); !s.Result || !strings.HasPrefix(s.Said, "You guessed 1,000; measured ") {
		t.Errorf("after guessing 1e3 on the rerun: %+v", s)
	}
	if mobile {
		for _, w := range browserEval[[]string](tb, tb.script("sideways-overflow.js")) {
			t.Errorf("at %dpx: overflows sideways: %s", width, w)
		}
	}
	shot(tb, "rerun-revealed")

	// Off again: every result shows as before, none asks.
	tb.do(chromedp.Focus(chromedp.ID("predict-toggle")), chromedp.KeyEvent(" "))
	tb.waitFor("results shown", `document.querySelectorAll("section.experiment.predict-pending").length === 0`)
	for _, id := range []string{"exp-window", "exp-window-grid"} {
		if s := tb.guessState(id); !s.Result || s.Question || s.Verdict || !s.Charts || !s.Discussion || s.Note {
			t.Errorf("%s after the switch is off: %+v, want the result and its discussion as always", id, s)
		}
	}
	for _, prob := range tb.takeProblems() {
		t.Errorf("%s: %s", scheme, prob)
	}
}

// browserGuessHiddenBeforeScript holds app.js back and looks at block 4 while it waits: for a
// reader who hides results, the server's markup and the stylesheet alone keep the results
// hidden, so nothing is shown and then taken away.
func browserGuessHiddenBeforeScript(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{ownStorage: true})
	tb.setCookie(pages.GuessOptInCookie, "on")
	held := make(chan *fetch.EventRequestPaused, 4)
	events := chromedp.Events(tb.ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			held <- &ev
		}
	}()
	tb.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
			{URLPattern: "*app.js*", ResourceType: network.ResourceTypeScript},
		}})
		if err != nil {
			return err
		}
		// Navigate without waiting for the load, which waits for the script held back.
		_, err = cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: tb.base + "/blocks/4"})
		return err
	}))
	var ev *fetch.EventRequestPaused
	select {
	case ev = <-held:
	case <-time.After(15 * time.Second):
		t.Fatal("app.js was never requested")
	}
	tb.waitFor("the page parsed while app.js waits", `document.getElementById("exp-window-grid") && document.readyState !== "loading" && !document.getElementById("exp-window-guess-form").dataset.bound`)
	type early struct {
		Result, Question, Toggle, Discussion, Note bool
	}
	got := browserEval[early](tb, `({Result: document.querySelector("#exp-window .result").checkVisibility(),
		Question: document.querySelector("#exp-window .predict-ask").checkVisibility(),
		Toggle: document.getElementById("predict-toggle").checked,
		Discussion: document.querySelector("[data-result-of='exp-window'] .after-body").checkVisibility(),
		Note: document.querySelector("[data-result-of='exp-window'] .after-note").checkVisibility()})`)
	if got != (early{Result: false, Question: true, Toggle: true, Note: true}) {
		t.Errorf("before app.js ran: %+v, want the result and its discussion hidden and the question shown", got)
	}
	tb.proceed(ev)
	tb.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, fetch.Disable, cdp.Empty{})
		return err
	}))
	tb.waitFor("app.js bound the question", `document.getElementById("exp-window-guess-form").dataset.bound === "1"`)
	for _, prob := range tb.takeProblems() {
		t.Errorf("hidden before script: %s", prob)
	}
}

// browserGuessWithoutJavaScript: a reader whose browser runs no script but holds the cookie (set
// on a visit with script) sees every result, and no switch or question that could not work.
func browserGuessWithoutJavaScript(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{ownStorage: true, noScript: true})
	tb.setCookie(pages.GuessOptInCookie, "on")
	tb.open("/blocks/4")
	type shown struct {
		Pending, Result, Question, Toggle, Discussion bool
	}
	got := browserEval[shown](tb, `({Pending: document.getElementById("exp-window").classList.contains("predict-pending"),
		Result: document.querySelector("#exp-window .result").checkVisibility(),
		Question: document.querySelector("#exp-window .predict-ask").checkVisibility(),
		Toggle: document.querySelector(".predict-toggle").checkVisibility(),
		Discussion: document.querySelector("[data-result-of='exp-window'] .after-body").checkVisibility()})`)
	if got != (shown{Pending: true, Result: true, Discussion: true}) {
		t.Errorf("without script, opted in: %+v, want the block drawn waiting but its result shown and no question or switch", got)
	}
}

// setCookie gives the tab's browser context the site's cookie name, as app.js would have written
// it on an earlier visit.
func (tb *browserTab) setCookie(name, value string) {
	tb.t.Helper()
	tb.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: name, Value: value, URL: tb.base + "/"})
		return err
	}))
}

// waitShownCharts waits until app.js has drawn every chart of the results on screen; a result
// hidden until a guess is drawn only when it is revealed.
func (tb *browserTab) waitShownCharts() {
	tb.t.Helper()
	tb.waitFor("the shown results' charts", `document.readyState === "complete" && !!window.echarts &&
		[...document.querySelectorAll("[data-chart]")].filter(el => !el.closest(".predict-pending")).every(el => !!echarts.getInstanceByDom(el))`)
}

// guessShots returns a function that writes a screenshot of the tab's viewport, named after the
// scenario and the state, for a person to look at.
func guessShots(t *testing.T, scenario string) func(tb *browserTab, state string) {
	dir := os.Getenv("ARTIFACTS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata-artifacts", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return func(tb *browserTab, state string) {
		t.Helper()
		// The question, or the revealed result's verdict, in view, as a reader who just acted sees it.
		browserEval[chromedp.Void](tb, `(() => { const q = document.getElementById("exp-window-guess-form");
			const at = `+jsString(state)+` === "switch" ? document.querySelector(".predict-toggle") : q.hidden ? document.getElementById("exp-window-guessed") : q;
			at.scrollIntoView({block: "start"}); window.scrollBy(0, -60); })()`)
		png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "guess-"+scenario+"-"+state+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
