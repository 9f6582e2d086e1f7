package site

// The live lab in a browser, as a class uses it. One reader starts a long run; a second reader,
// arriving fresh, sees it in progress as someone else's, with every value it runs with, no
// Cancel, and when they can start their own; the first reader's Cancel ends it. The first reader
// then sets small values, presses Run, watches the progress box count up without reloading the
// page, and reads the final tables, with the form and the address still holding the run's
// values, so that the address opened anywhere puts them in the form again. The page is then
// checked as it stands with results on it: axe in both themes, nothing sideways at 390 px.

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// labFormValues is what a tab's lab form holds: the numbers, and the designs ticked.
type labFormValues struct {
	Jobs, Workers, CrashRate, Seed string
	Designs                        []string
}

func readLabForm(tb *browserTab) labFormValues {
	return browserEval[labFormValues](tb, `({Jobs: document.querySelector("#lab-jobs").value, Workers: document.querySelector("#lab-workers").value,
		CrashRate: document.querySelector("#lab-crash-rate").value, Seed: document.querySelector("#lab-seed").value,
		Designs: [...document.querySelectorAll('.lab-designs input[type="checkbox"]:checked')].map(b => b.value)})`)
}

// pickLabDesigns ticks exactly the given designs.
func pickLabDesigns(tb *browserTab, designs ...string) {
	list := make([]string, len(designs))
	for i, d := range designs {
		list[i] = jsString(d)
	}
	browserEval[chromedp.Void](tb, `(() => { const want = [`+strings.Join(list, ",")+`];
		document.querySelectorAll('.lab-designs input[type="checkbox"]').forEach(b => { b.checked = want.includes(b.value); }); })()`)
}

func TestBrowserLab(t *testing.T) {
	b := startBrowserSuite(t)
	tb := b.newTab(t, tabOption{ownStorage: true, deadline: 180 * time.Second})
	tb.open("/lab")
	designs := browserEval[int](tb, `document.querySelectorAll('.lab-designs input[type="checkbox"]:checked').length`)
	if designs < 4 {
		t.Fatalf("%d designs checked by default, want every one", designs)
	}

	// A run long enough to be looked at, which its owner will cancel: the largest stream on a
	// single worker, which also waits out the ack wait of each of its 250 or so crashed jobs.
	pickLabDesigns(tb, "ack-after-work")
	tb.retype("#lab-jobs", "5000")
	tb.retype("#lab-workers", "1")
	tb.do(chromedp.Click(chromedp.CSS(`.lab-form button[type="submit"]`)))
	tb.waitFor("the owner's progress box", `document.querySelector('#lab-status[data-running][data-whose="yours"] .lab-cancel button')`)

	other := b.newTab(t, tabOption{ownStorage: true})
	other.open("/lab")
	type box struct {
		Running, Cancel bool
		Whose, Wait     string
	}
	seen := browserEval[box](other, `(() => { const s = document.querySelector("#lab-status"); return s ? {Running: s.hasAttribute("data-running"),
		Cancel: !!s.querySelector(".lab-cancel button"), Whose: s.querySelector(".lab-whose").textContent.replace(/\s+/g, " ").trim(),
		Wait: (s.querySelector(".lab-wait") || {}).textContent || ""} : {} })()`)
	if !seen.Running {
		t.Fatalf("a fresh visitor to /lab does not see the run in progress: %q", browserEval[string](other, `(document.querySelector("#lab-status") || {}).textContent || "no box"`))
	}
	if seen.Cancel {
		t.Error("a fresh visitor is offered Cancel for someone else's run")
	}
	if want := "Someone else's run, with Ack after work, on 5,000 jobs with 1 worker process; crash rate 0.05, stream seed 13; confirmed acks. Put these values in the form"; seen.Whose != want {
		t.Errorf("the fresh visitor reads %q, want %q", seen.Whose, want)
	}
	if !strings.Contains(seen.Wait, "you can start your own run when this one ends, in about") {
		t.Errorf("the fresh visitor is not told when they can start their own: %q", seen.Wait)
	}
	tb.do(chromedp.Click(chromedp.CSS(`#lab-status .lab-cancel button`)))
	if err := tb.poll(`(document.querySelector("#lab-status [data-ended]") || {}).textContent?.startsWith("Cancelled")`, 60*time.Second); err != nil {
		t.Fatalf("the owner's Cancel did not end the run: %v", err)
	}
	if got := readLabForm(tb); got.Jobs != "5000" || got.Workers != "1" || strings.Join(got.Designs, ",") != "ack-after-work" {
		t.Errorf("after Cancel the form holds %+v, not the cancelled run's values", got)
	}

	// Two crash designs (their counts agree exactly), a small stream.
	pickLabDesigns(tb, "dedup-outside-tx", "dedup-in-tx")
	tb.retype("#lab-jobs", "300")
	tb.retype("#lab-workers", "2")
	tb.retype("#lab-seed", "21")
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

	// The form still holds the run's values, and so does the address: opened in a browser that
	// has never seen the lab, it puts them in the form again.
	want := labFormValues{Jobs: "300", Workers: "2", CrashRate: "0.05", Seed: "21", Designs: []string{"dedup-outside-tx", "dedup-in-tx"}}
	same := func(a, b labFormValues) bool {
		return a.Jobs == b.Jobs && a.Workers == b.Workers && a.CrashRate == b.CrashRate && a.Seed == b.Seed && strings.Join(a.Designs, ",") == strings.Join(b.Designs, ",")
	}
	if got := readLabForm(tb); !same(got, want) {
		t.Errorf("after the run the form holds %+v, want the run's %+v", got, want)
	}
	address := browserEval[string](tb, `location.pathname + location.search`)
	fresh := b.newTab(t, tabOption{ownStorage: true})
	fresh.open(address)
	if got := readLabForm(fresh); !same(got, want) {
		t.Errorf("the run's address %s puts %+v in a fresh browser's form, want %+v", address, got, want)
	}

	// The page with results on it, logs open: axe in both themes, then a phone's width.
	browserEval[chromedp.Void](tb, `document.querySelectorAll(".lab-log").forEach(d => { d.open = true; })`)
	roomAxe(t, map[string]*browserTab{"the lab page with results": tb})
	tb.emulate(390, 844, true, "light")
	for _, w := range browserEval[[]string](tb, tb.script("sideways-overflow.js")) {
		t.Errorf("/lab at 390 px: overflows sideways: %s", w)
	}
}
