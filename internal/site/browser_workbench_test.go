package site

import (
	"strings"
	"testing"
	"time"

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
