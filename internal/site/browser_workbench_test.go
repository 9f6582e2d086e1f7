package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The workbench page's handles, as JavaScript expressions (the editor's are edRoot and friends
// in browser_editor_test.go, for the test page's textarea "src"; these are the workbench's own).
const (
	wbRoot   = `document.querySelector('.editor[data-editor-view="wb-source"]')?.shadowRoot`
	wbArea   = `document.getElementById("wb-source")`
	wbFailed = `document.querySelector("#wb-result tr.failing")`
)

// TestBrowserWorkbench is the workbench as a reader on a phone meets it: pick a template from the
// menu, edit it in the editor, Check, read the failing row, open a job's timeline from "which
// jobs?", Share, and reopen the share in a fresh tab; under the CSP, with nothing reported.
func TestBrowserWorkbench(t *testing.T) {
	b := startBrowserSuite(t)
	tb := b.newTab(t, tabOption{deadline: 90 * time.Second})
	tb.emulate(390, 844, true, "light")
	tb.open("/workbench")
	tb.waitFor("the editor", wbRoot+`?.querySelector(".cm-editor .cm-line")`)

	// Pick a template from the menu.
	tb.do(chromedp.Click(chromedp.CSS(`a[data-template="dedup-outside-tx"]`)))
	tb.waitFor("the template in the editor", `location.search.includes("template=dedup-outside-tx") && `+wbRoot+`?.querySelector(".cm-editor .cm-line")`)
	if src := browserEval[string](tb, wbArea+`.value`); !strings.Contains(src, "db.remember") {
		t.Fatalf("the editor does not hold the template Effect, then key:\n%s", src)
	}

	// Edit it: a comment typed at the end of the handler, which the textarea must carry.
	browserEval[chromedp.Void](tb, wbRoot+`.querySelector(".cm-content").focus()`)
	tb.do(chromedp.KeyEvent(kb.End, chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	tb.do(chromedp.KeyEvent("\n# mine, from the phone"))
	tb.waitFor("the edit in the textarea", wbArea+`.value.includes("# mine, from the phone")`)
	tb.retype("#wb-jobs", "2000")

	// Check, and read the failing row.
	before := browserEval[string](tb, `document.querySelector("#wb-result .provenance code")?.textContent || ""`)
	tb.do(chromedp.Click(chromedp.CSS("#wb-check")))
	tb.waitFor("the new result", `(document.querySelector("#wb-result .provenance code")?.textContent || "") !== `+jsString(before)+` && `+wbFailed)
	row := browserEval[string](tb, wbFailed+`.innerText`)
	verdict := browserEval[string](tb, `document.querySelector(".wb-verdict").innerText`)
	if !strings.Contains(row, "breaks") || !strings.Contains(verdict, "breaks at") {
		t.Fatalf("the failing row %q, verdict %q", row, verdict)
	}
	if src := browserEval[string](tb, wbArea+`.value`); !strings.Contains(src, "# mine") {
		t.Fatal("the Check swapped the editor away")
	}
	if !strings.Contains(browserEval[string](tb, `document.querySelector(".wb-explanation").innerText`), "job") {
		t.Error("the failing point has no explanation")
	}

	// Which jobs? and one job's timeline.
	tb.do(chromedp.Click(chromedp.CSS(`.wb-jobs summary`)))
	tb.do(chromedp.Click(chromedp.CSS(`.wb-jobs .job-ids button`)))
	tb.waitFor("the job's timeline", `document.querySelector("#wb-trace .job-trace .job-events li")`)

	// Share, then reopen it where nothing of this tab is known.
	tb.do(chromedp.Click(chromedp.CSS("#wb-share")))
	tb.waitFor("the share's page", `location.pathname.startsWith("/workbench/s/") && `+wbRoot+`?.querySelector(".cm-editor .cm-line")`)
	shared := browserEval[string](tb, `location.pathname + location.search`)
	if !strings.Contains(shared, "jobs=2000") || !strings.Contains(browserEval[string](tb, wbArea+`.value`), "# mine, from the phone") {
		t.Fatalf("the share at %s lost the handler or its values", shared)
	}
	if w := browserEval[float64](tb, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
		t.Errorf("at phone width the page scrolls sideways by %v px", w)
	}
	if p := tb.takeProblems(); len(p) > 0 {
		t.Errorf("the workbench reported: %v", p)
	}

	again := b.newTab(t, tabOption{ownStorage: true})
	again.emulate(390, 844, true, "dark")
	again.open(shared)
	again.waitFor("the reopened share", wbRoot+`?.querySelector(".cm-editor .cm-line")`)
	if !strings.Contains(browserEval[string](again, wbArea+`.value`), "# mine, from the phone") ||
		!strings.Contains(browserEval[string](again, `document.querySelector(".wb-verdict").innerText`), "breaks at") {
		t.Error("the reopened share does not check the shared handler")
	}
	if p := again.takeProblems(); len(p) > 0 {
		t.Errorf("the reopened share reported: %v", p)
	}
}

// wbFocused says whether keyboard focus is in the workbench editor's text (its textarea is
// wb-source, on the workbench's page and in a block's Edit and check alike).
const wbFocused = `(() => { const h = document.querySelector('.editor[data-editor-view="wb-source"]');
	return !!h && document.activeElement === h && h.shadowRoot.activeElement === h.shadowRoot.querySelector(".cm-content"); })()`

// key presses keys in tb's focused element, as a reader types them.
func key(tb *browserTab, keys string, mods ...chromedp.Modifier) {
	tb.t.Helper()
	tb.do(chromedp.KeyEvent(keys, chromedp.KeyModifiers(mods...)))
}

// tabUntil presses Tab (with mods, Shift to go back) until expr holds for the focused element,
// at most n times: the reader's way to a control with the keyboard alone.
func tabUntil(tb *browserTab, what, expr string, n int, mods ...chromedp.Modifier) {
	tb.t.Helper()
	for range n {
		if browserEval[bool](tb, `!!(`+expr+`)`) {
			return
		}
		key(tb, kb.Tab, mods...)
	}
	if !browserEval[bool](tb, `!!(`+expr+`)`) {
		tb.t.Fatalf("%d presses of Tab never reached %s; focus is on %s", n, what,
			browserEval[string](tb, `(document.activeElement && document.activeElement.outerHTML || "nothing").slice(0, 160)`))
	}
}

// runAxe runs axe-core on tb's page as it is now (only the colour rules in the dark scheme, as
// browserAxe does) and fails on serious and critical violations.
func runAxe(t *testing.T, tb *browserTab, scheme string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("axe-core missing (npm ci): %v", err)
		}
		t.Skipf("axe-core missing (run npm ci): %v", err)
	}
	browserEval[chromedp.Void](tb, string(src))
	type violation struct {
		ID      string   `json:"id"`
		Impact  string   `json:"impact"`
		Targets []string `json:"targets"`
	}
	opts := `{resultTypes: ["violations"]}`
	if scheme == "dark" {
		opts = `{resultTypes: ["violations"], runOnly: {type: "rule", values: ["color-contrast", "link-in-text-block"]}}`
	}
	for _, v := range browserEval[[]violation](tb, tb.script("axe-violations.js")+"("+opts+")", chromedp.EvalAwaitPromise) {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("axe (%s): %s [%s] on %d nodes:\n\t%s", scheme, v.ID, v.Impact, len(v.Targets), strings.Join(v.Targets[:min(len(v.Targets), 6)], "\n\t"))
		}
	}
}

// TestBrowserWorkbenchByKeyboard is the real workbench page by keyboard alone, on a desktop in
// the light scheme and on a phone in the dark one: Tab into the editor, type, Esc and Tab out,
// reach Check and press it, reach the failing row's "which jobs?" and open the list, then a job's
// timeline from it; the colours are the scheme's, nothing sticks out sideways on the phone, axe
// finds nothing serious with the list and the timeline open, and the CSP reports nothing.
func TestBrowserWorkbenchByKeyboard(t *testing.T) {
	b := startBrowserSuite(t)
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
		scheme        string
		// The scheme's colours (app.css): the page, the failing verdict, a link-like button.
		bg, bad, accent string
	}{
		{"desktop-light", 1280, 900, false, "light", "rgb(251, 250, 247)", "rgb(179, 38, 30)", "rgb(11, 92, 173)"},
		{"phone-dark", 390, 844, true, "dark", "rgb(21, 23, 27)", "rgb(255, 138, 128)", "rgb(125, 180, 255)"},
	} {
		t.Run(vp.name, func(t *testing.T) {
			tb := b.newTab(t, tabOption{deadline: 150 * time.Second})
			tb.emulate(vp.width, vp.height, vp.mobile, vp.scheme)
			tb.open("/workbench?template=ack-after-work&jobs=2000")
			tb.waitFor("the editor", wbRoot+`?.querySelector(".cm-editor .cm-line")`)

			// Tab into the editor from the last link before it, and type at the end.
			browserEval[chromedp.Void](tb, `document.querySelector('.wb-templates li:last-child a').focus()`)
			key(tb, kb.Tab)
			tb.waitFor("focus in the editor after Tab", wbFocused)
			key(tb, kb.End, chromedp.ModifierCtrl)
			key(tb, "\n# by keyboard")
			tb.waitFor("the typing in the textarea", wbArea+`.value.includes("# by keyboard")`)
			// Esc, then Tab: out of the editor, onto the first parameter.
			key(tb, kb.Escape)
			key(tb, kb.Tab)
			tb.waitFor("focus on the first parameter after Esc, then Tab", `document.activeElement === document.getElementById("wb-jobs")`)

			// Check, by keyboard.
			tabUntil(tb, "Check", `document.activeElement.id === "wb-check"`, 40)
			before := browserEval[string](tb, `document.querySelector("#wb-result .provenance code").textContent`)
			key(tb, kb.Enter)
			tb.waitFor("the new result", `document.querySelector("#wb-result .provenance code")?.textContent !== `+jsString(before)+` && `+wbFailed)
			if v := browserEval[string](tb, `document.querySelector(".wb-verdict").innerText`); !strings.Contains(v, "breaks at 1 of 3") {
				t.Fatalf("the verdict after Check: %q", v)
			}

			// The failing row's duplicated count, by Tab, opens its jobs in the panel, with focus
			// on the list's heading.
			tabUntil(tb, "the failing row's which jobs", `document.activeElement.matches('#wb-result tr.failing button[name="which"][value$=":duplicated"]')`, 120)
			key(tb, kb.Enter)
			tb.waitFor("the list, with focus on its heading", `document.activeElement && document.activeElement.id === "wb-which-title"`)
			if h := browserEval[string](tb, `document.getElementById("wb-which-title").textContent`); !strings.Contains(h, "applied more than once at crash point 1") {
				t.Errorf("the list's heading: %q", h)
			}
			// The first job of the list, by Tab, opens its timeline.
			key(tb, kb.Tab)
			if !browserEval[bool](tb, `document.activeElement.matches("#wb-which .job-ids button")`) {
				t.Fatalf("Tab after the list's heading is on %s", browserEval[string](tb, `document.activeElement.outerHTML.slice(0, 120)`))
			}
			job := browserEval[string](tb, `document.activeElement.textContent`)
			key(tb, kb.Enter)
			tb.waitFor("the timeline, with focus in it", `document.querySelector("#wb-trace .job-trace .job-events li") && document.getElementById("wb-trace").contains(document.activeElement)`)
			if h := browserEval[string](tb, `document.querySelector("#wb-trace h4").textContent`); !strings.Contains(h, "Job "+job+": duplicated") {
				t.Errorf("the timeline's heading %q, want job %s duplicated", h, job)
			}

			colours := browserEval[map[string]string](tb, `(() => { const c = s => getComputedStyle(document.querySelector(s));
				return {bg: getComputedStyle(document.documentElement).backgroundColor, bad: c(".wb-verdict.fail strong").color,
					accent: c('#wb-result tr.failing button[name="which"]').color, panel: c("#wb-which").backgroundColor}; })()`)
			if colours["bg"] != vp.bg || colours["bad"] != vp.bad || colours["accent"] != vp.accent || colours["panel"] != vp.bg {
				t.Errorf("%s colours %v, want the page %s, the verdict %s, the counts %s", vp.scheme, colours, vp.bg, vp.bad, vp.accent)
			}
			if vp.mobile {
				for _, w := range browserEval[[]string](tb, tb.script("sideways-overflow.js")) {
					t.Errorf("at %d px: overflows sideways: %s", vp.width, w)
				}
			}
			runAxe(t, tb, vp.scheme)
			for _, p := range tb.takeProblems() {
				t.Error(p)
			}
		})
	}
}

// TestBrowserEditInPlace is "Edit and check" under a block's design: with script it opens the
// workbench's form in the block's page with focus in the editor, Check answers there, and Escape
// (outside the editor, or twice in it) or Close puts focus back on the link; without script the
// link opens the workbench's page.
func TestBrowserEditInPlace(t *testing.T) {
	b := startBrowserSuite(t)
	const link = `document.querySelector('.edit-check a[data-template="Ack after work"]')`
	const box = `document.getElementById("wb-in-place")`
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
		scheme        string
	}{{"desktop", 1280, 900, false, "light"}, {"phone", 390, 844, true, "dark"}} {
		t.Run(vp.name, func(t *testing.T) {
			tb := b.newTab(t, tabOption{deadline: 120 * time.Second})
			tb.emulate(vp.width, vp.height, vp.mobile, vp.scheme)
			tb.open("/blocks/2")
			tb.waitCharts()
			if href := browserEval[string](tb, link+`.getAttribute("href")`); href != "/workbench?template=ack-after-work" {
				t.Fatalf("the link's address is %q, the workbench's page with the design", href)
			}
			open := func() {
				t.Helper()
				browserEval[chromedp.Void](tb, link+`.focus()`)
				key(tb, kb.Enter)
				tb.waitFor("the editor in the block, with focus", wbFocused+` && `+box+`.contains(document.querySelector(".editor"))`)
				if e := browserEval[string](tb, link+`.getAttribute("aria-expanded")`); e != "true" {
					t.Errorf("the open link says aria-expanded=%q", e)
				}
			}
			closed := func(how string) {
				t.Helper()
				tb.waitFor("the box closed by "+how+", focus back on the link", `!`+box+`.firstElementChild && document.activeElement === `+link+` && `+link+`.getAttribute("aria-expanded") === "false"`)
			}

			open()
			if !browserEval[bool](tb, `location.pathname === "/blocks/2" && !!`+box+`.querySelector("#wb-result .wb-verdict")`) {
				t.Fatal("the design's result is not in the block's page")
			}
			if !strings.Contains(browserEval[string](tb, wbArea+`.value`), "db.apply(job.id)") {
				t.Fatal("the editor does not hold the block's design")
			}
			key(tb, kb.End, chromedp.ModifierCtrl)
			key(tb, "\n# in place")
			key(tb, kb.Escape)
			key(tb, kb.Tab)
			tabUntil(tb, "Check", `document.activeElement.id === "wb-check"`, 40)
			before := browserEval[string](tb, box+`.querySelector(".provenance code").textContent`)
			key(tb, kb.Enter)
			tb.waitFor("the new result in the block", box+`.querySelector(".provenance code")?.textContent !== `+jsString(before)+` && `+box+`.querySelector("tr.failing")`)
			if vp.mobile {
				for _, w := range browserEval[[]string](tb, tb.script("sideways-overflow.js")) {
					t.Errorf("at %d px with the box open: overflows sideways: %s", vp.width, w)
				}
			}
			runAxe(t, tb, vp.scheme)
			// Escape outside the editor (focus is on Check) closes the box.
			browserEval[chromedp.Void](tb, `document.getElementById("wb-check").focus()`)
			key(tb, kb.Escape)
			closed("Escape")

			// Close, by keyboard.
			open()
			key(tb, kb.Escape)
			tabUntil(tb, "Close", `document.activeElement.matches("[data-wb-close]")`, 10, chromedp.ModifierShift)
			key(tb, kb.Enter)
			closed("Close")

			// Escape twice in the editor: the first is the editor's own, the second closes.
			open()
			key(tb, kb.Escape)
			if !browserEval[bool](tb, wbFocused) {
				t.Fatal("one Escape in the editor closed the box; it is the editor's way out")
			}
			key(tb, kb.Escape)
			closed("Escape twice in the editor")

			for _, p := range tb.takeProblems() {
				t.Error(p)
			}
		})
	}

	t.Run("WithoutJavaScript", func(t *testing.T) {
		tb := b.newTab(t, tabOption{noScript: true})
		tb.open("/blocks/2")
		if _, err := chromedp.Run(tb.ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(`.edit-check a[data-template="Ack after work"]`)))); err != nil {
			t.Fatal(err)
		}
		if p := browserEval[string](tb, `location.pathname + location.search`); p != "/workbench?template=ack-after-work" ||
			!strings.Contains(browserEval[string](tb, `document.getElementById("wb-source").value`), "db.apply(job.id)") {
			t.Errorf("without script the link led to %s", p)
		}
	})
}
