package site

// What issue 19 asked of the notebook as a new reader sees it, in the browser: the plain mechanism
// in view and the optimised code folded (item 14), every table's columns on screen at a desktop's
// width and a phone's (item 15), a live region that is in the page from the start and says
// "Result updated: ..." after a rerun (item 17), and no empty chart boxes without script (item 19).

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"
)

// TestBrowserReader runs the reader's scenarios against one chromium and one server.
func TestBrowserReader(t *testing.T) {
	b := startBrowserSuite(t)
	t.Run("PlainMechanismInViewCodeFolded", func(t *testing.T) { browserPlainMechanismInView(t, b) })
	t.Run("TablesShowEveryColumn", func(t *testing.T) { browserTablesShowEveryColumn(t, b) })
	t.Run("LiveRegionAnnouncesRuns", func(t *testing.T) { browserLiveRegionAnnouncesRuns(t, b) })
	t.Run("NoEmptyChartBoxesWithoutScript", func(t *testing.T) { browserNoEmptyChartBoxes(t, b) })
	t.Run("PredictionRefusesWhatIsNoNumber", func(t *testing.T) { browserPredictionRefusesWhatIsNoNumber(t, b) })
}

// browserPredictionRefusesWhatIsNoNumber (item 16): "abc" typed as a prediction is refused next to
// its field, in the words of the site's other refusals, stays in the field, is not counted as
// saved, and reveals no measurement; a good answer beside it is saved and revealed.
func browserPredictionRefusesWhatIsNoNumber(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{ownStorage: true})
	tb.open("/")
	tb.waitFor("app.js to bind the form", `document.querySelector("form[data-predictions]").dataset.bound === "1"`)
	tb.do(chromedp.SendKeys(chromedp.ID("predict-q1"), "abc"), chromedp.SendKeys(chromedp.ID("predict-q2"), "1,200"))
	tb.do(chromedp.Click(chromedp.CSS(`form[data-predictions] button[type="submit"]`)))
	tb.waitFor("the status", `document.querySelector("form[data-predictions] .status").textContent !== ""`)
	type state struct {
		Status   string `json:"status"`
		Error    string `json:"error"`
		Shown    bool   `json:"shown"`
		Invalid  string `json:"invalid"`
		Value    string `json:"value"`
		Stored   string `json:"stored"`
		Revealed []bool `json:"revealed"`
		Focus    string `json:"focus"`
	}
	got := browserEval[state](tb, `(() => { const e = document.getElementById("predict-q1-error"); return {
		status: document.querySelector("form[data-predictions] .status").textContent,
		error: e.textContent, shown: e.checkVisibility(),
		invalid: document.getElementById("predict-q1").getAttribute("aria-invalid") || "",
		value: document.getElementById("predict-q1").value,
		stored: String(localStorage.getItem("eo.predict.q1")),
		revealed: [...document.querySelectorAll(".prediction .reveal")].slice(0, 2).map(r => r.checkVisibility()),
		focus: document.activeElement.id}; })()`)
	want := state{
		Status: "1 prediction saved in this browser. 1 answer was not saved; the message beside it says why.",
		Error:  "Prediction 1: “abc” is not a number; write a count of 0 or more, such as 350 or 1,200.",
		Shown:  true, Invalid: "true", Value: "abc", Stored: "null", Revealed: []bool{false, true}, Focus: "predict-q1",
	}
	if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
		t.Errorf("after saving abc and 1,200:\n got %s\nwant %s", g, w)
	}
	// A decimal comma is no thousands separator: "1,5" is refused with what to write, not read as 15.
	tb.retype("#predict-q1", "1,5")
	tb.do(chromedp.Click(chromedp.CSS(`form[data-predictions] button[type="submit"]`)))
	tb.waitFor("the comma's refusal", `document.getElementById("predict-q1-error").textContent.includes("1,5")`)
	if got, want := browserEval[string](tb, `document.getElementById("predict-q1-error").textContent`),
		"Prediction 1: “1,5”: write decimals with a point (0.5); commas only group thousands (1,200)."; got != want {
		t.Errorf("after saving 1,5: %q, want %q", got, want)
	}
	if got := browserEval[string](tb, `String(localStorage.getItem("eo.predict.q1"))`); got != "null" {
		t.Errorf("1,5 was saved as %q", got)
	}
	// A number that is no count is called what it is: negative, or too large for any number.
	for _, c := range []struct{ typed, want string }{
		{"-5", "Prediction 1: “-5” is negative; write a count of 0 or more, such as 350 or 1,200."},
		{strings.Repeat("9", 400), "Prediction 1: “99999999999999999999999…” is too large to be a count; write one such as 350 or 1,200."},
	} {
		tb.retype("#predict-q1", c.typed)
		tb.do(chromedp.Click(chromedp.CSS(`form[data-predictions] button[type="submit"]`)))
		tb.waitFor("the refusal of "+c.typed[:2], `document.getElementById("predict-q1-error").textContent === `+jsString(c.want))
		if got := browserEval[string](tb, `String(localStorage.getItem("eo.predict.q1"))`); got != "null" {
			t.Errorf("%.10s was saved as %q", c.typed, got)
		}
	}
	// Fixed, it is saved and the message goes.
	tb.retype("#predict-q1", "398")
	tb.do(chromedp.Click(chromedp.CSS(`form[data-predictions] button[type="submit"]`)))
	tb.waitFor("the second status", `document.querySelector("form[data-predictions] .status").textContent.startsWith("2 predictions saved")`)
	if browserEval[bool](tb, `document.getElementById("predict-q1-error").checkVisibility() || document.getElementById("predict-q1").hasAttribute("aria-invalid")`) {
		t.Error("the refusal stays after the answer was fixed")
	}
	for _, prob := range tb.takeProblems() {
		t.Errorf("predictions: %s", prob)
	}
}

// browserPlainMechanismInView: on every block page the plain mechanism is open and its code on
// screen, and the optimised code that runs is there, folded, its code not drawn until opened.
func browserPlainMechanismInView(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{})
	for _, p := range pagePaths() {
		if !strings.HasPrefix(p, "/blocks/") {
			continue
		}
		tb.open(p)
		type source struct {
			Kind  string `json:"kind"`
			Open  bool   `json:"open"`
			Shown bool   `json:"shown"`
		}
		got := browserEval[[]source](tb, `[...document.querySelectorAll("details.source")].map(d => ({
			kind: d.dataset.source || "", open: d.open, shown: d.querySelector("pre").checkVisibility()}))`)
		plain, folded := 0, 0
		for _, s := range got {
			switch {
			case s.Kind == "plain" && s.Open && s.Shown:
				plain++
			case s.Kind == "optimised" && !s.Open && !s.Shown:
				folded++
			default:
				t.Errorf("%s: a source block %+v, want the plain mechanism open and the optimised code folded", p, s)
			}
		}
		if plain == 0 || folded == 0 {
			t.Errorf("%s: %d plain mechanisms in view and %d optimised functions folded, want at least one of each", p, plain, folded)
		}
		// Opening the fold shows the code.
		browserEval[bool](tb, `(() => { const d = document.querySelector('details.source[data-source="optimised"]'); d.open = true; return true; })()`)
		if !browserEval[bool](tb, `document.querySelector('details.source[data-source="optimised"] pre').checkVisibility()`) {
			t.Errorf("%s: the optimised code does not show once its fold is opened", p)
		}
	}
}

// browserTablesShowEveryColumn opens every page, and pages with a spread over seeds, at 1280 px and
// 390 px, and checks that no table hides a column: nothing scrolls sideways in a table's box, and
// every cell of a table lies inside its box (a table too wide for a phone shows cards instead).
func browserTablesShowEveryColumn(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{deadline: 120 * time.Second})
	spreads := []string{"/blocks/1?spread=20", "/blocks/4?spread=20", "/blocks/6?spread=20", "/assembly?spread=20"}
	for _, vp := range layoutViewports {
		tb.emulate(vp.width, vp.height, vp.mobile, "light")
		for _, p := range append(pagePaths(), spreads...) {
			tb.open(p)
			tb.waitCharts()
			if strings.Contains(p, "spread=") {
				tb.waitFor(p+": the spread table", `document.querySelector('[aria-label^="Data table: Spread over"]')`)
			}
			hidden := browserEval[[]string](tb, `(() => {
				const out = [];
				for (const box of document.querySelectorAll(".table-wrap, .prose table")) {
					if (!box.getClientRects().length) continue;
					const name = (box.getAttribute("aria-label") || box.querySelector("th, td").textContent).slice(0, 60);
					if (box.scrollWidth > box.clientWidth + 1) out.push(name + ": scrolls, " + box.scrollWidth + " px in " + box.clientWidth);
					const edge = box.getBoundingClientRect().right + 1;
					const cut = [...box.querySelectorAll("tbody td, tbody th")].filter(c => c.getClientRects().length && c.getBoundingClientRect().right > edge);
					if (cut.length) out.push(name + ": " + cut.length + " cells past the edge, first " + cut[0].textContent.slice(0, 30));
					// A box with nothing to scroll is as wide as its table: a wider one showed its
					// background, and the scroll shadow, past the table's edge.
					const table = box.querySelector("table.data");
					if (table && !table.classList.contains("stack") && box.scrollWidth <= box.clientWidth + 1 &&
						box.getBoundingClientRect().width > table.getBoundingClientRect().width + 1) {
						out.push(name + ": a box of " + Math.round(box.getBoundingClientRect().width) + " px round a table of " + Math.round(table.getBoundingClientRect().width));
					}
				}
				return out;
			})()`)
			for _, h := range hidden {
				t.Errorf("%s at %d px: %s", p, vp.width, h)
			}
		}
	}
	// On a phone a table too wide for the column shows its rows as cards, each value under its
	// column's name: the assembly's duplicated column is on screen, named.
	tb.emulate(390, 844, true, "light")
	tb.open("/assembly")
	tb.waitCharts()
	label := browserEval[string](tb, `(() => { const td = document.querySelector("#exp-assembly table.data tbody td:nth-of-type(3)");
		return getComputedStyle(td, "::before").content + " " + td.textContent.trim() + " " + (td.getBoundingClientRect().width > 0); })()`)
	if label != `"duplicated" 0 true` {
		t.Errorf("the assembly's first card shows %q for its duplicated cell, want the column's name and 0", label)
	}
	// The card of the row the page is about has its mark down its left edge, clear of its text.
	tb.open("/blocks/2")
	tb.waitCharts()
	gap := browserEval[float64](tb, `(() => { const tr = document.querySelector("#exp-assembly table.stack tr.focus");
		const r = document.createRange(); r.selectNodeContents(tr.querySelector("th"));
		return r.getBoundingClientRect().left - tr.getBoundingClientRect().left; })()`)
	if gap < 8 {
		t.Errorf("block 2's focus card starts its text %.1f px from its left edge, under the 4 px mark", gap)
	}
}

// browserLiveRegionAnnouncesRuns: the page arrives with its live region (a region made by script
// at load, or swapped in with a block, is often not yet watched by a screen reader when it
// speaks), and after a rerun the same region, exposed as a polite status, says "Result updated:"
// and the first sentence of the new reading.
func browserLiveRegionAnnouncesRuns(t *testing.T, b *browserSuite) {
	resp, err := http.Get(b.base + "/blocks/4")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `role="status" aria-live="polite" aria-atomic="true" data-announcer`) {
		t.Fatal("/blocks/4 arrives without its live region: the server must draw it, not script")
	}
	tb := b.newTab(t, tabOption{})
	tb.open("/blocks/4")
	tb.waitCharts()
	browserEval[bool](tb, `(document.querySelector("[data-announcer]").dataset.fromServer = "yes") === "yes"`)
	tb.rerun("exp-window", map[string]string{"max_delay": "3000"})
	tb.waitFor("the announcement", `document.querySelector("[data-announcer]").textContent.startsWith("Result updated: ")`)
	said := browserEval[string](tb, `document.querySelector("[data-announcer]").dataset.fromServer + "|" + document.querySelector("[data-announcer]").textContent`)
	reading := browserEval[string](tb, `document.querySelector("#exp-window .reading p").textContent.trim()`)
	first, _, _ := strings.Cut(reading, ". ")
	if want := "yes|Result updated: " + strings.TrimSuffix(first, ".") + "."; said != want {
		t.Errorf("after the rerun the region says %q, want %q (in the region the server drew)", said, want)
	}
	// What a screen reader is told: a status node, live and polite, whose text is the announcement.
	tree, err := chromedp.Call(tb.ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[accessibility.NodeID]*accessibility.Node{}
	for _, n := range tree.Nodes {
		byID[n.NodeID] = n
	}
	var text func(n *accessibility.Node) string
	text = func(n *accessibility.Node) string {
		s := ""
		if n.Role != nil && string(n.Role.Value) == `"StaticText"` && n.Name != nil {
			var v string
			_ = json.Unmarshal(n.Name.Value, &v)
			s += v
		}
		for _, c := range n.ChildIDs {
			if k := byID[c]; k != nil {
				s += text(k)
			}
		}
		return s
	}
	found := false
	for _, n := range tree.Nodes {
		if n.Ignored || n.Role == nil || string(n.Role.Value) != `"status"` {
			continue
		}
		live := ""
		for _, p := range n.Properties {
			if p.Name == accessibility.PropertyNameLive && p.Value != nil {
				_ = json.Unmarshal(p.Value.Value, &live)
			}
		}
		if live == "polite" && strings.HasPrefix(text(n), "Result updated: ") {
			found = true
		}
	}
	if !found {
		t.Error("the accessibility tree has no polite live status saying \"Result updated: ...\"")
	}
}

// browserNoEmptyChartBoxes: without script nothing draws the charts, so their boxes take no room
// (the tables under them hold the numbers), where they were blank boxes 340 px high.
func browserNoEmptyChartBoxes(t *testing.T, b *browserSuite) {
	tb := b.newTab(t, tabOption{noScript: true})
	for _, p := range []string{"/blocks/4", "/blocks/6", "/assembly", "/boundaries"} {
		tb.open(p)
		type box struct {
			Charts int `json:"charts"`
			Tall   int `json:"tall"`
			Tables int `json:"tables"`
		}
		got := browserEval[box](tb, `({charts: document.querySelectorAll(".chart-figure").length,
			tall: [...document.querySelectorAll(".chart-figure")].filter(f => f.getBoundingClientRect().height > 0).length,
			tables: [...document.querySelectorAll("table.data")].filter(t => t.getBoundingClientRect().height > 0).length})`)
		if got.Charts == 0 || got.Tall != 0 || got.Tables == 0 {
			t.Errorf("%s without script: %+v, want every chart's box out of the way and the tables shown", p, got)
		}
	}
}
