package site

// The workbench's editor (static/editor/editor.js, bundled into lib/editor.min.js) in chromium, on
// a page that exists only here: the form the workbench page will have, served with the site's
// security headers and the site's own asset handler, so the editor runs under the real CSP. The
// page's Check answers with a list of errors the way the workbench will (one per line naming an
// undefined name), so the marks come from the editor's text as posted.

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"effectivelyonce/internal/web"
	"effectivelyonce/static"
)

// editorSource is the handler the test page starts with. Line 2 holds characters outside the
// Basic Multilingual Plane, where a code-point column (Starlark's) and a UTF-16 offset
// (CodeMirror's) differ; line 3 names an undefined value.
const editorSource = "def handle(job, queue, db, bus):\n    note = \"caf\u00e9 \U0001F600\U0001F600\"\n    quux.ack()\n"

// editorUndefined is what the test page's check calls undefined.
var editorUndefined = []string{"quux", "oops"}

// editorErrors is the test page's check: an error at the first undefined name on each line, at
// its 1-based line and code-point column, as the workbench reports a CodeError.
func editorErrors(src string) string {
	var b strings.Builder
	for i, line := range strings.Split(src, "\n") {
		for _, name := range editorUndefined {
			if at := strings.Index(line, name); at >= 0 {
				fmt.Fprintf(&b, `<li data-line="%d" data-col="%d">undefined: %s</li>`, i+1, utf8.RuneCountInString(line[:at])+1, name)
				break
			}
		}
	}
	return b.String()
}

// editorPage serves the test page (GET and a plain POST render it whole; an htmx POST answers
// only the errors list, which the form swaps in) and the site's static files, every answer with
// the site's security headers. posted records the source of every POST.
type editorPage struct {
	assets *web.Assets
	mu     sync.Mutex
	posted []string
}

func (p *editorPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	web.SetSecurityHeaders(w.Header())
	if hash, name, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/static/"), "/"); ok && strings.HasPrefix(r.URL.Path, "/static/") {
		if !p.assets.Serve(w, r, hash, name) {
			http.NotFound(w, r)
		}
		return
	}
	if r.URL.Path != "/editor" {
		http.NotFound(w, r)
		return
	}
	src := editorSource
	if r.Method == http.MethodPost {
		src = r.PostFormValue("source")
		p.mu.Lock()
		p.posted = append(p.posted, src)
		p.mu.Unlock()
	}
	list := `<ol id="src-errors" data-editor-errors="src">` + editorErrors(src) + `</ol>`
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Header.Get("HX-Request") == "true" {
		fmt.Fprint(w, list)
		return
	}
	url := func(name string) string { return p.assets.URL("", name) }
	fmt.Fprintf(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false}'>
<title>Editor</title><link rel="stylesheet" href="%s">
<script src="%s" defer></script><script src="%s" defer></script><script src="%s" defer></script>
</head><body><main class="page">
<p><a id="before" href="#before">Before the form</a></p>
<form method="post" action="/editor" hx-post="/editor" hx-target="#src-errors" hx-swap="outerHTML">
<label for="src">Handler</label>
<textarea id="src" name="source" data-editor="starlark" rows="12" spellcheck="false">%s</textarea>
%s
<button id="check" type="submit">Check</button>
</form>
</main></body></html>`, url("app.css"), url("lib/htmx.min.js"), url("lib/editor.min.js"), url("app.js"), html.EscapeString(src), list)
}

func (p *editorPage) lastPosted() (string, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.posted) == 0 {
		return "", 0
	}
	return p.posted[len(p.posted)-1], len(p.posted)
}

// The page's handles on the editor, as JavaScript expressions.
const (
	edHost  = `document.querySelector('.editor[data-editor-view="src"]')`
	edRoot  = edHost + `.shadowRoot`
	edLines = `[...` + edRoot + `.querySelectorAll(".cm-content .cm-line")]`
	edArea  = `document.getElementById("src")`
	// edMarkedLines is the 1-based numbers of the lines beside which the lint gutter has an error
	// mark, found by where the mark is drawn, as a reader sees it.
	edMarkedLines = `(() => { const lines = ` + edLines + `; return [...` + edRoot + `.querySelectorAll(".cm-gutter-lint .cm-lint-marker-error")].map(m => {
		const top = m.closest(".cm-gutterElement").getBoundingClientRect().top;
		return lines.findIndex(l => Math.abs(l.getBoundingClientRect().top - top) < 2) + 1; }).sort((a, b) => a - b); })()`
	// edUnderlined is the text under each error underline.
	edUnderlined = `[...` + edRoot + `.querySelectorAll(".cm-lintRange-error")].map(e => e.textContent)`
	// edFocused says whether keyboard focus is in the editor's text.
	edFocused = `document.activeElement === ` + edHost + ` && ` + edRoot + `.activeElement === ` + edRoot + `.querySelector(".cm-content")`
)

// TestBrowserEditor checks the editor as a reader meets it: styled under the strict CSP with no
// violation, in both colour schemes; typing, Tab and undo, with the textarea holding the text;
// a way out by keyboard; the server's errors marked on their lines, cleared by editing the line
// and renewed by a Check that htmx swaps in; and the plain form without JavaScript.
func TestBrowserEditor(t *testing.T) {
	execPath := findChromium(t)
	a, err := web.LoadAssets(static.Files)
	if err != nil {
		t.Fatal(err)
	}
	pg := &editorPage{assets: a}
	ts := httptest.NewServer(pg)
	t.Cleanup(ts.Close)
	b := &browserSuite{ctx: startChromium(t, execPath), base: ts.URL}

	open := func(t *testing.T, o tabOption) *browserTab {
		tb := b.newTab(t, o)
		tb.open("/editor")
		if !o.noScript {
			tb.waitFor("the editor", edRoot+`?.querySelector(".cm-editor .cm-line")`)
		}
		return tb
	}
	// key presses keys in the focused element, as a reader types them.
	key := func(tb *browserTab, keys string, mods ...chromedp.Modifier) {
		tb.t.Helper()
		tb.do(chromedp.KeyEvent(keys, chromedp.KeyModifiers(mods...)))
	}
	// toLine puts the cursor at the end of 1-based line n.
	toLine := func(tb *browserTab, n int) {
		tb.t.Helper()
		browserEval[chromedp.Void](tb, edRoot+`.querySelector(".cm-content").focus()`)
		key(tb, kb.Home, chromedp.ModifierCtrl)
		for range n - 1 {
			key(tb, kb.ArrowDown)
		}
		key(tb, kb.End)
	}
	lineOf := func(tb *browserTab, n int) string {
		tb.t.Helper()
		return strings.Split(browserEval[string](tb, edArea+`.value`), "\n")[n-1]
	}

	t.Run("StyledUnderCSP", func(t *testing.T) {
		for _, scheme := range []struct {
			name, keyword, gutter string
		}{{"light", "rgb(166, 38, 164)", "rgb(243, 241, 236)"}, {"dark", "rgb(215, 166, 255)", "rgb(34, 37, 44)"}} {
			tb := b.newTab(t, tabOption{})
			tb.emulate(1280, 900, false, scheme.name)
			tb.open("/editor")
			tb.waitFor("the editor", edRoot+`?.querySelector(".cm-editor .cm-line")`)
			// CodeMirror's layout is its own style sheet: without it the gutter is a block above
			// the text rather than a column beside it.
			geometry := browserEval[map[string]float64](tb, `(() => { const g = `+edRoot+`.querySelector(".cm-lineNumbers").getBoundingClientRect(),
				l = `+edLines+`[0].getBoundingClientRect(); return {width: g.width, gutterRight: g.right, lineLeft: l.left, lineTop: l.top, gutterTop: g.top}; })()`)
			if geometry["width"] <= 0 || geometry["gutterRight"] > geometry["lineLeft"] || geometry["lineTop"] > geometry["gutterTop"]+20 {
				t.Errorf("%s: the line numbers are not a column beside the text: %v", scheme.name, geometry)
			}
			if d := browserEval[string](tb, `getComputedStyle(`+edRoot+`.querySelector(".cm-editor")).display`); d != "flex" {
				t.Errorf("%s: .cm-editor is display %q, want CodeMirror's flex", scheme.name, d)
			}
			style := browserEval[map[string]string](tb, `(() => { const s = [...`+edRoot+`.querySelectorAll(".cm-line span")].find(s => s.textContent === "def");
				const cs = s && getComputedStyle(s); return {color: cs ? cs.color : "", weight: cs ? cs.fontWeight : "",
				gutter: getComputedStyle(`+edRoot+`.querySelector(".cm-gutters")).backgroundColor}; })()`)
			if style["color"] != scheme.keyword || style["weight"] != "600" {
				t.Errorf("%s: the keyword def is %s at weight %s, want %s at 600", scheme.name, style["color"], style["weight"], scheme.keyword)
			}
			if style["gutter"] != scheme.gutter {
				t.Errorf("%s: the gutter is %s, want the site's --code-bg %s", scheme.name, style["gutter"], scheme.gutter)
			}
			// The styles are a constructed sheet adopted by the editor's shadow root: nothing was
			// written into the page as a <style> element, which the CSP refuses.
			if n := browserEval[int](tb, `document.querySelectorAll("style").length + `+edRoot+`.querySelectorAll("style").length`); n != 0 {
				t.Errorf("%s: %d <style> elements in the page", scheme.name, n)
			}
			if n := browserEval[int](tb, edRoot+`.adoptedStyleSheets.length`); n == 0 {
				t.Errorf("%s: the editor's shadow root adopted no style sheet", scheme.name)
			}
			for _, p := range tb.takeProblems() {
				t.Errorf("%s: %s", scheme.name, p)
			}
		}
	})

	t.Run("FollowsTheSchemeWhenItChanges", func(t *testing.T) {
		tb := b.newTab(t, tabOption{})
		tb.emulate(1280, 900, false, "light")
		tb.open("/editor")
		tb.waitFor("the editor", edRoot+`?.querySelector(".cm-editor .cm-line")`)
		tb.emulate(1280, 900, false, "dark")
		tb.waitFor("the dark keyword colour", `getComputedStyle([...`+edRoot+`.querySelectorAll(".cm-line span")].find(s => s.textContent === "def")).color === "rgb(215, 166, 255)"`)
	})

	t.Run("MountIsIdempotent", func(t *testing.T) {
		tb := open(t, tabOption{})
		if n := browserEval[int](tb, `window.eoEditor.mount(document); window.eoEditor.mount(document.body); window.eoEditor.mount(document.createElement("div")); document.querySelectorAll(".editor").length`); n != 1 {
			t.Errorf("%d editors after mounting again, want 1", n)
		}
		if !browserEval[bool](tb, edArea+`.hidden && `+edArea+`.closest("form") && `+edHost+`.previousElementSibling === `+edArea) {
			t.Error("the textarea is not kept, hidden, in the form just before the editor")
		}
		if hint := browserEval[string](tb, edHost+`.nextElementSibling.textContent`); !strings.Contains(hint, "Esc, then Tab") {
			t.Errorf("the hint under the editor reads %q, want the way out (Esc, then Tab)", hint)
		}
		if l := browserEval[string](tb, edRoot+`.querySelector(".cm-content").getAttribute("aria-label")`); l != "Handler" {
			t.Errorf("the editor's text is labelled %q, want the label's Handler", l)
		}
		for _, p := range tb.takeProblems() {
			t.Error(p)
		}
	})

	// What a screen reader is given for the editor's text: the label's name, and the hint and
	// the server's errors as its description, although the text sits in a shadow root.
	t.Run("NameAndDescription", func(t *testing.T) {
		tb := open(t, tabOption{})
		var name, desc string
		tb.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			tree, err := cdp.Call(ctx, tg, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
			if err != nil {
				return err
			}
			for _, n := range tree.Nodes {
				if n.Role != nil && strings.Contains(string(n.Role.Value), "textbox") && n.Name != nil && strings.Contains(string(n.Name.Value), "Handler") {
					name = string(n.Name.Value)
					if n.Description != nil {
						desc = string(n.Description.Value)
					}
				}
			}
			return nil
		}))
		if name != `"Handler"` {
			t.Fatalf("the editor's textbox is named %s, want Handler", name)
		}
		if !strings.Contains(desc, "Esc, then Tab") || !strings.Contains(desc, "undefined: quux") {
			t.Errorf("the editor's textbox is described as %s, want the hint and the errors", desc)
		}
	})

	t.Run("TypingTabAndUndo", func(t *testing.T) {
		tb := open(t, tabOption{})
		toLine(tb, 1)
		key(tb, "  # mine")
		if l := lineOf(tb, 1); l != "def handle(job, queue, db, bus):  # mine" {
			t.Errorf("line 1 of the textarea is %q after typing", l)
		}
		if fd := browserEval[string](tb, `new FormData(`+edArea+`.form).get("source")`); !strings.Contains(fd, "# mine") {
			t.Errorf("the form's data holds %q, not the typed text", fd)
		}
		toLine(tb, 2)
		key(tb, kb.Tab)
		if l := lineOf(tb, 2); !strings.HasPrefix(l, "        note") {
			t.Errorf("line 2 after Tab is %q, want it indented by four more spaces", l)
		}
		if !browserEval[bool](tb, edFocused) {
			t.Error("Tab moved focus out of the editor instead of indenting")
		}
		key(tb, kb.Tab, chromedp.ModifierShift)
		if l := lineOf(tb, 2); !strings.HasPrefix(l, "    note") || strings.HasPrefix(l, "     ") {
			t.Errorf("line 2 after Shift-Tab is %q, want four spaces", l)
		}
		for range 3 {
			key(tb, "z", chromedp.ModifierCtrl)
		}
		if v := browserEval[string](tb, edArea+`.value`); v != editorSource {
			t.Errorf("after three undos the textarea holds %q, want the source as it came", v)
		}
	})

	t.Run("KeyboardInAndOut", func(t *testing.T) {
		tb := open(t, tabOption{})
		browserEval[chromedp.Void](tb, `document.getElementById("before").focus()`)
		key(tb, kb.Tab)
		tb.waitFor("focus in the editor after Tab", edFocused)
		key(tb, kb.Tab)
		if !browserEval[bool](tb, edFocused) {
			t.Fatal("a second Tab left the editor; it should indent")
		}
		key(tb, kb.Escape)
		key(tb, kb.Tab)
		tb.waitFor("focus on Check after Esc, then Tab", `document.activeElement === document.getElementById("check")`)
		key(tb, kb.Tab, chromedp.ModifierShift)
		tb.waitFor("focus back in the editor after Shift-Tab", edFocused)
	})

	t.Run("ErrorMarks", func(t *testing.T) {
		tb := open(t, tabOption{})
		tb.waitFor("a mark", edRoot+`.querySelector(".cm-lint-marker-error")`)
		if got := browserEval[[]int](tb, edMarkedLines); len(got) != 1 || got[0] != 3 {
			t.Fatalf("marks beside lines %v, want line 3 (the server's error)", got)
		}
		if got := browserEval[[]string](tb, edUnderlined); len(got) != 1 || got[0] != "quux" {
			t.Errorf("underlined %q, want the undefined name quux", got)
		}
		// Editing another line keeps the mark; editing its line clears it at once.
		toLine(tb, 1)
		key(tb, " ")
		if got := browserEval[[]int](tb, edMarkedLines); len(got) != 1 || got[0] != 3 {
			t.Fatalf("after an edit on line 1 the marks are beside lines %v, want still line 3", got)
		}
		toLine(tb, 3)
		key(tb, "(")
		if got := browserEval[[]int](tb, edMarkedLines); len(got) != 0 {
			t.Errorf("after an edit on line 3 the marks are beside lines %v, want none", got)
		}
		if !browserEval[bool](tb, `document.querySelector('#src-errors li[data-line="3"]').hasAttribute("data-edited")`) {
			t.Error("the list's item for line 3 is not marked as edited")
		}

		// Check posts the editor's text; the list htmx swaps in marks the new error, at the
		// code-point column the server counts (after two characters that are two UTF-16 units each).
		toLine(tb, 2)
		key(tb, "; oops")
		before := browserEval[int](tb, `document.querySelectorAll("#src-errors").length`)
		tb.do(chromedp.Click(chromedp.CSS("#check")))
		tb.waitFor("the new list", `document.querySelector('#src-errors li[data-line="2"]')`)
		if before != 1 || browserEval[int](tb, `document.querySelectorAll("#src-errors").length`) != 1 {
			t.Error("the swap did not replace the one errors list")
		}
		posted, _ := pg.lastPosted()
		if want := browserEval[string](tb, edArea+`.value`); posted != want || !strings.Contains(posted, "; oops") {
			t.Errorf("Check posted %q, want the editor's text %q", posted, want)
		}
		tb.waitFor("marks for the new list", `JSON.stringify(`+edMarkedLines+`) === "[2,3]"`)
		if got := browserEval[[]string](tb, edUnderlined); len(got) != 2 || got[0] != "oops" || got[1] != "quux" {
			t.Errorf("underlined %q, want oops on line 2 and quux on line 3", got)
		}
		for _, p := range tb.takeProblems() {
			t.Error(p)
		}
	})

	t.Run("WithoutJavaScript", func(t *testing.T) {
		tb := open(t, tabOption{noScript: true})
		if n := browserEval[int](tb, `document.querySelectorAll(".editor, [data-editor-ready]").length`); n != 0 {
			t.Fatal("the editor mounted although script execution is disabled")
		}
		if !browserEval[bool](tb, `!`+edArea+`.hidden && `+edArea+`.getBoundingClientRect().height > 100`) {
			t.Fatal("the textarea is not shown without JavaScript")
		}
		_, n := pg.lastPosted()
		tb.do(chromedp.SendKeys(chromedp.CSS("#src"), "oops = 1\n"))
		if _, err := chromedp.Run(tb.ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS("#check")))); err != nil {
			t.Fatal(err)
		}
		// A form sends a textarea's line breaks as CRLF (HTML's form encoding); htmx sends the value.
		posted, m := pg.lastPosted()
		posted = strings.ReplaceAll(posted, "\r\n", "\n")
		if m != n+1 || !strings.Contains(posted, "oops = 1\n") || !strings.Contains(posted, "quux.ack()") {
			t.Fatalf("the form posted %q, want the handler with the typed line", posted)
		}
		want := strings.Count(posted[:strings.Index(posted, "oops")], "\n") + 1
		if got := browserEval[string](tb, `[...document.querySelectorAll("#src-errors li")].find(li => li.textContent.includes("oops"))?.dataset.line`); got != fmt.Sprint(want) {
			t.Errorf("the page after the post lists oops on line %q, want %d", got, want)
		}
		if v := browserEval[string](tb, edArea+`.value`); v != posted {
			t.Errorf("the textarea after the post holds %q, want what was posted", v)
		}
	})

	// Screenshots for a person to look at, with the server's error marked, on a desktop and a
	// phone in both schemes; on the phone nothing may stick out sideways.
	t.Run("Screenshots", func(t *testing.T) {
		dir := os.Getenv("ARTIFACTS_DIR")
		if dir == "" {
			dir = filepath.Join("..", "..", "testdata-artifacts", "screenshots")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, vp := range []struct {
			width, height int64
			mobile        bool
		}{{1280, 900, false}, {390, 844, true}} {
			for _, scheme := range []string{"light", "dark"} {
				tb := b.newTab(t, tabOption{})
				tb.emulate(vp.width, vp.height, vp.mobile, scheme)
				tb.open("/editor")
				tb.waitFor("the mark", edRoot+`?.querySelector(".cm-lint-marker-error")`)
				toLine(tb, 2)
				if vp.mobile {
					for _, w := range browserEval[[]string](tb, tb.script("sideways-overflow.js")) {
						t.Errorf("%s at %dpx: overflows sideways: %s", scheme, vp.width, w)
					}
				}
				png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
				if err != nil || len(png) < 8 || string(png[1:4]) != "PNG" {
					t.Fatalf("screenshot: %v", err)
				}
				name := fmt.Sprintf("%dx%d-%s-editor.png", vp.width, vp.height, scheme)
				if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
					t.Fatal(err)
				}
				for _, p := range tb.takeProblems() {
					t.Errorf("%s at %dpx: %s", scheme, vp.width, p)
				}
			}
		}
		t.Logf("screenshots in %s", dir)
	})
}
