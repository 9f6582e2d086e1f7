package site

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"effectivelyonce/experiments"
)

// TestBrowserJobs clicks "which jobs?" on block 4's escaped count at window 1,000, reads the list
// htmx loads into the block, opens a job's timeline in the same panel and checks that its events
// tell an escape (first delivery, crash, scheduled redelivery, eviction before the redelivery, a
// second application); then checks the timeline on a phone and the pages without JavaScript.
func TestBrowserJobs(t *testing.T) {
	b := startBrowserSuite(t)
	w, _ := experiments.Lookup("window")
	list, err := w.Jobs(context.Background(), w.Defaults(), "escaped", "1000")
	if err != nil || list.Total == 0 {
		t.Fatalf("the engine lists no escaped jobs at window 1000: %v", err)
	}
	total := experiments.Thousands(list.Total)

	t.Run("ListAndTimelineInPanel", func(t *testing.T) {
		tb := b.newTab(t, tabOption{})
		tb.open("/blocks/4")
		tb.waitCharts()
		browserEval[chromedp.Void](tb, `window.__sameDocument = true`)
		link := `#exp-window a.which-jobs[aria-label="which jobs? ` + total + ` escaped at window 1,000"]`
		tb.waitFor("the link on the escaped count at window 1,000", `document.querySelector(`+jsString(link)+`)`)
		if cell := browserEval[string](tb, `document.querySelector(`+jsString(link)+`).closest("td").firstChild.textContent`); cell != total {
			t.Errorf("the cell reads %q before its link, want the count %s", cell, total)
		}
		tb.do(chromedp.Click(chromedp.CSS(link)))
		tb.waitFor("the list in the block's panel", `document.querySelector("#exp-window-which-jobs .jobs-list")`)
		// Focus follows the swap to the list's heading, not left on the link the page scrolled away
		// from; the panel is no live region, which would read all 50 ids aloud.
		tb.waitFor("focus on the list's heading", `document.activeElement === document.querySelector("#exp-window-which-jobs .jobs-list h4")`)
		if live := browserEval[bool](tb, `document.querySelector("#exp-window-which-jobs").hasAttribute("aria-live")`); live {
			t.Error("the jobs panel is a live region")
		}
		heading := browserEval[string](tb, `document.querySelector("#exp-window-which-jobs .jobs-list h4").textContent`)
		if !strings.HasPrefix(heading, total+" jobs escaped at window 1,000") {
			t.Errorf("list heading %q, want it to start with %q", heading, total+" jobs escaped at window 1,000")
		}
		ids := browserEval[[]string](tb, `[...document.querySelectorAll("#exp-window-which-jobs .job-ids a")].map(a => a.textContent)`)
		if want := min(len(list.IDs), 50); len(ids) != want || ids[0] != strconv.FormatInt(list.IDs[0], 10) {
			t.Fatalf("the panel lists %d ids starting %v, want %d starting %d", len(ids), ids[:min(len(ids), 3)], want, list.IDs[0])
		}
		if csv := browserEval[string](tb, `document.querySelector("#exp-window-which-jobs .jobs-list a[href*='format=csv']").href`); !strings.Contains(csv, "/api/experiments/window/jobs?") {
			t.Errorf("the CSV link is %q", csv)
		}

		// Click once htmx has taken the new links over, or the click would follow the plain link.
		tb.waitFor("htmx to process the list", `document.querySelector("#exp-window-which-jobs .job-ids a")["htmx-internal-data"]`)
		tb.do(chromedp.Click(chromedp.CSS(`#exp-window-which-jobs .job-ids a`)))
		tb.waitFor("the timeline in the panel", `document.querySelector("#exp-window-which-jobs .job-trace")`)
		tb.waitFor("focus on the timeline's heading", `document.activeElement === document.querySelector("#exp-window-which-jobs .job-trace h4")`)
		kinds := browserEval[[]string](tb, `[...document.querySelectorAll("#exp-window-which-jobs .job-events li")].map(e => e.dataset.kind)`)
		at := func(k string) int { return slices.Index(kinds, k) }
		applied := 0
		for _, k := range kinds {
			if k == "applied" {
				applied++
			}
		}
		if at("delivered") != 0 || at("crashed") < 0 || at("redelivery_scheduled") < at("crashed") ||
			at("evicted") < 0 || at("redelivered") < at("evicted") || applied != 2 {
			t.Errorf("the timeline's events %v do not tell an escape", kinds)
		}
		if n := browserEval[int](tb, `document.querySelectorAll("#exp-window-which-jobs svg.job-timeline circle").length`); n < 3 {
			t.Errorf("the figure has %d marks, want one per step (at least 3)", n)
		}
		if desc := browserEval[string](tb, `document.querySelector("#exp-window-which-jobs svg.job-timeline desc").textContent`); !strings.Contains(desc, "evicted") {
			t.Errorf("the figure's description %q does not mention the eviction", desc)
		}
		if !browserEval[bool](tb, `window.__sameDocument === true`) {
			t.Error("the list or the timeline reloaded the page instead of loading into the panel")
		}

		// On a phone the timeline stays inside the page's width.
		tb.emulate(390, 844, true, "dark")
		tb.waitFor("the phone layout", `window.innerWidth === 390`)
		if over := browserEval[int](tb, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
			t.Errorf("the page is %d px wider than a 390 px phone with the timeline open", over)
		}
		if right := browserEval[float64](tb, `document.querySelector("#exp-window-which-jobs svg.job-timeline").getBoundingClientRect().right`); right > 390 {
			t.Errorf("the timeline figure ends at %.0f px, past the phone's 390", right)
		}

		// Back to the list, in the panel again.
		tb.waitFor("htmx to process the timeline", `document.querySelector("#exp-window-which-jobs .job-links a")["htmx-internal-data"]`)
		tb.do(chromedp.Click(chromedp.CSS(`#exp-window-which-jobs .job-links a`)))
		tb.waitFor("the list back in the panel", `document.querySelector("#exp-window-which-jobs .jobs-list")`)
		// Back on the list, focus returns to the id of the job just viewed.
		tb.waitFor("focus back on the viewed job's id", `document.activeElement && document.activeElement.matches("#exp-window-which-jobs .job-ids a") && document.activeElement.textContent === `+jsString(ids[0]))
		if tag := browserEval[string](tb, `document.activeElement.tagName`); tag == "BODY" {
			t.Error("focus fell to the body after Back to the list")
		}
		for _, prob := range tb.takeProblems() {
			t.Errorf("which jobs: %s", prob)
		}
	})

	t.Run("WithoutJavaScript", func(t *testing.T) {
		tb := b.newTab(t, tabOption{noScript: true})
		tb.open("/blocks/4")
		href := browserEval[string](tb, `document.querySelector('#exp-window a.which-jobs[aria-label$="at window 1,000"]').getAttribute("href")`)
		tb.open(href)
		if h1 := browserEval[string](tb, `document.querySelector("main h1").textContent`); h1 != "Which jobs?" {
			t.Errorf("the list page's h1 is %q", h1)
		}
		first := browserEval[string](tb, `document.querySelector(".job-ids a").getAttribute("href")`)
		tb.open(first)
		if n := browserEval[int](tb, `document.querySelectorAll(".job-events li").length`); n < 5 {
			t.Errorf("the timeline page lists %d events", n)
		}
		if back := browserEval[string](tb, `(document.querySelector(".jobs-foot a") || {}).textContent || ""`); !strings.HasPrefix(back, "Back to Block 4") {
			t.Errorf("the timeline page leads back with %q, want the notebook page of block 4", back)
		}
	})
}
