package site

// The room's lab run as the QA pass found it, in a browser: the host's Cancel is never replaced
// by the box's polls (focus stays on it; a press that straddles a poll still lands), the box
// says whose run it is in the room's words, the bar's summary line follows the run to its end,
// and on a phone the bar keeps the run folded to that line so the page comes first. Beside it,
// what the bar says around it: where the host opens a round, and that a member who wandered off
// is not on the host's page.

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

func TestBrowserRoomLabBox(t *testing.T) {
	b := startBrowserSuite(t)
	host, roomPath, code := hostRoomTab(t, b, "Lab box")
	fay := openRoomTab(t, b)
	fay.open("/j/" + code)
	fay.retype("#join-name", "Fay")
	fay.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
	within(fay, "the member's room page", `!!document.querySelector(".you strong")`)
	// Following moves notebook pages, never the room's own page: Fay reads block 1 meanwhile.
	fay.open("/blocks/1")
	streamOpen(fay)

	// No round yet: the host's bar on a notebook page points to where one is opened.
	host.open("/blocks/4")
	within(host, "the host's bar", `!!document.querySelector(".roombar .room-round")`)
	hint := browserEval[string](host, `document.querySelector(".roombar .room-round").textContent.replace(/\s+/g, " ").trim()`)
	if strings.Contains(hint, "Open one below") || !strings.Contains(hint, "Ask about a number of this page below") {
		t.Errorf("the host's bar with no round says %q", hint)
	}
	if href := browserEval[string](host, `document.querySelector(".roombar .room-round a")?.getAttribute("href") || ""`); href != roomPath+"#new-round" {
		t.Errorf("the bar's way to open a round leads to %q, not the room page's form", href)
	}
	host.click(".roombar details.roombar-round summary")
	viewShot(t, host, "roomlab-host-bar-no-round-1280", "body")

	// A member who follows, then goes elsewhere: the bar says they are not on the host's page.
	host.click(`.roombar form[action$="/present"] button`)
	within(host, "the host presenting /blocks/4", `!!document.querySelector(".roombar [data-present-path]")`)
	within(fay, "the member following to the presented page", `location.pathname === "/blocks/4" && document.readyState === "complete"`)
	within(fay, "the bar saying the page follows", `document.querySelector(".roombar [data-follow-on]")?.hidden === false`)
	fay.open("/workbench")
	within(fay, "the bar on another page", `document.querySelector(".roombar [data-follow-on]")?.hidden === true && document.querySelector(".roombar [data-follow-away]")?.hidden === false`)
	if said := browserEval[string](fay, `document.querySelector(".roombar [data-follow]").innerText.trim()`); !strings.Contains(said, "You are on another page") {
		t.Errorf("the member away from the host's page reads %q", said)
	}

	// A run long enough to watch: the largest stream, a third of whose jobs crash, each then
	// waiting out the ack wait. Cancel ends it.
	host.open(roomPath)
	streamOpen(host)
	host.do(chromedp.Click(chromedp.CSS("details.room-lab-form summary")))
	browserEval[chromedp.Void](host, `document.querySelectorAll('.room-lab-run input[name=design]').forEach(c => { c.checked = c.value === "ack-after-work" })`)
	host.retype("#room-lab-jobs", "5000")
	host.retype("#room-lab-crash-rate", "0.3")
	host.do(chromedp.Click(chromedp.CSS(".room-lab-run button[type=submit]")))
	within(host, "the host's run with Cancel", `!!document.querySelector(".room-lab .lab-status[data-running] .lab-cancel button")`)
	within(fay, "the run in the member's bar", `!!document.querySelector(".roombar-lab .lab-status[data-running]")`)
	whose := func(tb *browserTab, sel string) string {
		return browserEval[string](tb, `document.querySelector("`+sel+` .lab-whose strong")?.textContent || ""`)
	}

	// Focus on Cancel outlives the polls, which swap the counts beside it and not Cancel.
	browserEval[chromedp.Void](host, `(() => { window.__livePolls = 0;
		document.addEventListener("htmx:afterSwap", e => { if (e.target.classList?.contains("lab-live")) window.__livePolls++; });
		const c = document.querySelector(".room-lab .lab-cancel button"); c.__mine = true; c.focus(); })()`)
	if err := host.poll(`window.__livePolls >= 3`, 30*time.Second); err != nil {
		t.Fatalf("the box did not poll three times: %v (box: %s)", err, browserEval[string](host, `document.querySelector(".room-lab .lab-status")?.innerText || "none"`))
	}
	if !browserEval[bool](host, `!!document.querySelector(".room-lab .lab-status[data-running]")`) {
		t.Fatal("the run ended before three polls: the check below would prove nothing")
	}
	if focus := browserEval[string](host, `(a => a.__mine && a.isConnected ? "Cancel" : a.tagName + " " + a.textContent.trim().slice(0, 40))(document.activeElement)`); focus != "Cancel" {
		t.Errorf("after three polls the focus is on %q, not the Cancel it was on", focus)
	}
	if got := whose(host, ".room-lab"); got != "Your run" {
		t.Errorf("the host's box says %q", got)
	}

	// The member's box and bar, after polls: the host's run, and the summary line moving.
	if got := whose(fay, ".roombar-lab"); got != "The host's run" {
		t.Errorf("the member's box says %q", got)
	}
	state := func() string {
		return browserEval[string](fay, `document.querySelector(".roombar-lab-state")?.textContent.replace(/\s+/g, " ").trim() || ""`)
	}
	first := state()
	if !strings.HasSuffix(first, "of 5,000 jobs") {
		t.Errorf("the bar's summary of the running run reads %q", first)
	}
	if err := fay.poll(`(document.querySelector(".roombar-lab-state")?.textContent || "").replace(/\s+/g, " ").trim() !== `+jsString(first), 30*time.Second); err != nil {
		t.Errorf("the bar's summary never moved from %q: %v", first, err)
	}

	// On a phone the bar keeps the run folded to its summary line, and the page comes first.
	fay.emulate(390, 844, true, "dark")
	fay.open("/blocks/4") // the presented page (the workbench's editor has axe findings of its own)
	within(fay, "the bar with the run at 390 px", `!!document.querySelector(".roombar-lab .lab-status")`)
	if browserEval[bool](fay, `document.querySelector("details.roombar-lab").open`) {
		t.Error("at 390 px the bar's lab run is unfolded")
	}
	type geo struct{ Bar, Main float64 }
	g := browserEval[geo](fay, `({Bar: document.querySelector(".roombar").getBoundingClientRect().height,
		Main: document.querySelector("main h1, main").getBoundingClientRect().top + scrollY})`)
	t.Logf("at 390 px with the lab run: the bar is %.0f px tall, the page's heading at y = %.0f", g.Bar, g.Main)
	if g.Main > 844 {
		t.Errorf("at 390 px the page's heading starts at y = %.0f, below the first screen", g.Main)
	}
	for _, wide := range browserEval[[]string](fay, fay.script("sideways-overflow.js")) {
		t.Errorf("the bar with the folded lab run at 390 px overflows sideways: %s", wide)
	}
	viewShot(t, fay, "roomlab-member-bar-390-dark-folded", "body")
	fay.click("details.roombar-lab summary")
	within(fay, "the lab run unfolded on demand", `document.querySelector("details.roombar-lab").open`)
	viewShot(t, fay, "roomlab-member-bar-390-dark-open", "body")
	roomAxe(t, map[string]*browserTab{"member's bar with the run at 390 px": fay})
	fay.emulate(390, 844, true, "dark")
	viewShot(t, host, "roomlab-host-room-running-1280", ".room-lab")

	// A press on Cancel that straddles a poll still lands: down, the counts beside it swapped,
	// then up.
	xy := browserEval[[]float64](host, `(() => { const c = document.querySelector(".room-lab .lab-cancel button"); c.scrollIntoView({block: "center"});
		const r = c.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	mouse := func(kind input.DispatchMouseEventType) {
		host.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: kind, X: xy[0], Y: xy[1], Button: input.MouseButtonLeft, ClickCount: 1})
			return err
		}))
	}
	polls := browserEval[int](host, `window.__livePolls`)
	mouse(input.DispatchMouseEventTypeMousePressed)
	if err := host.poll(`window.__livePolls > `+strconv.Itoa(polls)+` || !document.querySelector(".room-lab .lab-status[data-running]")`, 30*time.Second); err != nil {
		t.Fatalf("no poll while the button was held: %v", err)
	}
	if !browserEval[bool](host, `!!document.querySelector(".room-lab .lab-status[data-running]")`) {
		t.Fatalf("the run ended while the button was held: %s", browserEval[string](host, `document.querySelector(".room-lab [data-ended]")?.textContent || "no box"`))
	}
	mouse(input.DispatchMouseEventTypeMouseReleased)
	within(host, "the run cancelled by the press", `(document.querySelector(".room-lab [data-ended]")?.textContent || "").startsWith("Cancelled")`)

	// The member's summary line follows the run to its end.
	if err := fay.poll(`(document.querySelector(".roombar-lab-state")?.textContent || "").trim() === "cancelled"`, 30*time.Second); err != nil {
		t.Errorf("the bar's summary after the run was cancelled reads %q: %v", state(), err)
	}
	if got := whose(fay, ".roombar-lab"); got != "The host's run" {
		t.Errorf("the member's box after the run says %q", got)
	}
	viewShot(t, fay, "roomlab-member-bar-390-dark-cancelled", "body")
	fay.emulate(1280, 900, false, "light")
	fay.open("/workbench")
	within(fay, "the bar with the ended run at 1280 px", `!!document.querySelector(".roombar-lab [data-ended]")`)
	viewShot(t, fay, "roomlab-member-bar-1280-cancelled", "body")
	viewShot(t, host, "roomlab-host-room-cancelled-1280", ".room-lab")
	for _, tb := range []*browserTab{host, fay} {
		for _, p := range tb.takeProblems() {
			t.Errorf("the page reported: %s", p)
		}
	}
}
