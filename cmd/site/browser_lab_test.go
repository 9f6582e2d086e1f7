package main

// The live lab in a browser: a reader opens /lab, sets small values, presses Run, watches the
// progress box count up without reloading the page, and reads the final tables. The page is
// then checked as it stands with results on it: axe in both themes, nothing sideways at 390 px.

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestBrowserLab(t *testing.T) {
	b := startBrowserSuite(t)
	tb := b.newTab(t, tabOption{deadline: 120 * time.Second})
	tb.open("/lab")
	designs := browserEval[int](tb, `document.querySelectorAll('.lab-designs input[type="checkbox"]:checked').length`)
	if designs < 4 {
		t.Fatalf("%d designs checked by default, want every one", designs)
	}
	// Two crash designs (their counts agree exactly), a small stream.
	browserEval[chromedp.Void](tb, `(() => { const boxes = [...document.querySelectorAll('.lab-designs input[type="checkbox"]')];
		boxes.forEach(b => { b.checked = b.value === "dedup-outside-tx" || b.value === "dedup-in-tx"; }); })()`)
	tb.retype("#lab-jobs", "300")
	tb.retype("#lab-workers", "2")
	start := time.Now()
	tb.do(chromedp.Click(chromedp.CSS(`.lab-form button[type="submit"]`)))
	tb.waitFor("the progress box", `document.querySelector("#lab-status[data-running]")`)
	// A mark on this window proves the numbers below change by polling, not by reloads.
	browserEval[chromedp.Void](tb, `window.__labMark = 1`)
	done := func() int64 {
		s := browserEval[string](tb, `(document.querySelector('#lab-status [data-count="done"]')?.textContent || "0").split(" of ")[0].replace(/,/g, "")`)
		n, _ := strconv.ParseInt(s, 10, 64)
		return n
	}
	first := done()
	// Moved: a poll brought a new count, or (on a machine fast enough to finish between two
	// polls) the box that ends the run.
	if err := tb.poll(`(() => { const d = document.querySelector('#lab-status [data-count="done"]');
		return document.querySelector("#lab-status [data-ended]") ||
			(d && d.textContent.split(" of ")[0].replace(/,/g, "") !== "`+strconv.FormatInt(first, 10)+`") })()`, 60*time.Second); err != nil {
		t.Fatalf("the progress never moved from %d jobs done: %v", first, err)
	}
	t.Logf("the progress moved %v after Run (from %d jobs done)", time.Since(start).Round(time.Millisecond), first)
	if err := tb.poll(`document.querySelector("#lab-status [data-ended]")`, 90*time.Second); err != nil {
		t.Fatalf("the run never ended on the page: %v", err)
	}
	t.Logf("the run ended on the page %v after Run", time.Since(start).Round(time.Millisecond))
	if browserEval[int](tb, `window.__labMark || 0`) != 1 {
		t.Error("the page reloaded while the run went on")
	}
	ended := browserEval[string](tb, `document.querySelector("#lab-status [data-ended]").textContent`)
	if !strings.Contains(ended, "Finished: 2 designs") {
		t.Fatalf("the run ended with %q", ended)
	}
	type row struct{ Real, Model string }
	rows := browserEval[[]row](tb, `[...document.querySelectorAll(".lab-result tbody tr")].map(tr => ({Real: tr.querySelector("[data-real]").textContent, Model: tr.querySelector("[data-model]").textContent}))`)
	if len(rows) != 6 {
		t.Fatalf("%d rows in the final tables, want 3 for each of 2 designs", len(rows))
	}
	for _, r := range rows {
		if r.Real != r.Model {
			t.Errorf("real %s, model %s", r.Real, r.Model)
		}
	}
	if problems := tb.takeProblems(); len(problems) > 0 {
		t.Errorf("the page reported: %v", problems)
	}

	// The page with results on it, logs open: axe in both themes, then a phone's width.
	browserEval[chromedp.Void](tb, `document.querySelectorAll(".lab-log").forEach(d => { d.open = true; })`)
	roomAxe(t, map[string]*browserTab{"the lab page with results": tb})
	tb.emulate(390, 844, true, "light")
	for _, w := range browserEval[[]string](tb, tb.script("sideways-overflow.js")) {
		t.Errorf("/lab at 390 px: overflows sideways: %s", w)
	}
}
