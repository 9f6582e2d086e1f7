package site

// Peer instruction in a browser: a host and three members, each in a browser context of their own,
// run a timed two-vote round with confidence through the pages: the first vote's spread is the
// host's alone, the second vote shows each member their first answer, and the reveal draws both
// histograms. One member answers by keyboard alone, and the host works the countdown by keyboard.
// The bar on a notebook page keeps the revealed histogram open, small enough on a phone; the export
// carries both votes, the confidences and the timer. A second round's countdown then runs out on
// the server, and every screen shows the round locked without a reload.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

func TestBrowserRoomTwoVotes(t *testing.T) {
	b := startBrowserSuite(t)
	host, _, code := hostRoomTab(t, b, "Peer instruction")
	streamOpen(host)
	alice, bob, cy := openRoomTab(t, b), openRoomTab(t, b), openRoomTab(t, b)
	members := []*browserTab{alice, bob, cy}
	for i, m := range members {
		m.open("/j/" + code)
		m.retype("#join-name", []string{"Alice", "Bob", "Cy"}[i])
		m.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
		within(m, "the member's room page", `!!document.querySelector(".you strong")`)
		streamOpen(m)
	}
	within(host, "the three members on the roster", `document.querySelectorAll("#room-roster .roster li").length === 3`)
	// The projector is a second tab of the host's browser (the host's cookie opens it).
	screen := siblingTab(t, host)
	screen.open(browserEval[string](host, `document.querySelector('a[href$="/projector"]').getAttribute("href")`))
	within(screen, "the projector with the join code", `document.querySelector("[data-join-code]")?.textContent.trim() === `+jsString(code))
	streamOpen(screen)

	// A custom question, two votes, two minutes each.
	host.do(chromedp.Click(chromedp.CSS(".room-new-round summary")),
		chromedp.Click(chromedp.CSS(`input[name="question"][value="custom"]`)),
		chromedp.SendKeys(chromedp.CSS("#custom-text"), "How many duplicates escape?"),
		chromedp.Click(chromedp.CSS(`.room-new-round form input[name="votes"][value="2"]`)),
		chromedp.SendKeys(chromedp.CSS("#round-seconds-q"), "120"),
		chromedp.Click(chromedp.CSS(`.room-new-round form button[type="submit"]`)))
	within(host, "the round open", `document.querySelector("#room-round [data-state]")?.dataset.state === "open"`)
	within(host, "who has not answered", `/Not answered yet \(3\)/.test(document.querySelector("#room-tally").textContent) && /Alice, Bob, Cy/.test(document.querySelector("#room-tally").textContent)`)
	for _, m := range members {
		mark(m, "before the round")
		within(m, "the first vote with its countdown", `/first vote/.test(document.querySelector("#room-round .badge")?.textContent) && /^[12]:\d\d$/.test(document.querySelector("#room-timer [data-left]")?.textContent)`)
	}
	// The countdown ticks in the page, from the server's deadline.
	before := browserEval[string](alice, `document.querySelector("#room-timer [data-left]").textContent`)
	within(alice, "the countdown ticking", `document.querySelector("#room-timer [data-left]").textContent !== `+jsString(before))

	answer := func(m *browserTab, value, confidence string) {
		t.Helper()
		m.retype("#room-round form.guess input[name=value]", value)
		m.do(chromedp.Click(chromedp.CSS(`#room-round form.guess input[name=confidence][value=`+confidence+`]`)),
			chromedp.Click(chromedp.CSS("#room-round form.guess button")))
	}
	answer(alice, "100", "low")
	answer(bob, "300", "high")
	keyboardAnswer(t, cy, "50", 0) // not sure
	within(alice, "Alice's guess with its confidence", `/100 \(not sure\)/.test(document.querySelector("#room-round .your-guess")?.textContent)`)
	within(cy, "Cy's guess, by keyboard, with its confidence", `/50 \(not sure\)/.test(document.querySelector("#room-round .your-guess")?.textContent)`)
	within(host, "everyone answered", `/Everyone seated has answered/.test(document.querySelector("#room-tally").textContent)`)
	within(host, "the first vote's spread, the host's alone", `!!document.querySelector('#room-tally [data-histogram="first"] rect.hist-bar')`)
	within(screen, "3 of 3 answered on the projector, with its countdown", `/3 of 3\s+answered/.test(document.querySelector("[data-count]")?.textContent) && !!document.querySelector("#room-screen [data-deadline]")`)
	keyboardTimer(t, host)
	for _, m := range members {
		if leak := browserEval[bool](m, `!!document.querySelector("#room-tally [data-first-vote], #room-tally .unanswered")`); leak {
			t.Error("a member sees the first vote's spread or who has not answered")
		}
	}

	host.do(chromedp.Click(chromedp.CSS(`#room-round form[action$="/second-vote"] button`)))
	for _, m := range members {
		within(m, "the second vote with the first answer", `/second vote/.test(document.querySelector("#room-round .badge")?.textContent) && /Your first answer/.test(document.querySelector("#room-round .your-first")?.textContent)`)
	}
	if v := browserEval[string](alice, `document.querySelector("#room-round form.guess input[name=value]").value`); v != "100" {
		t.Errorf("Alice's second-vote field starts with %q, want her first answer 100", v)
	}
	answer(alice, "190", "medium")
	answer(bob, "210", "high")
	keyboardAnswer(t, cy, "150", 1) // fairly sure, over the first answer the field starts with
	within(host, "everyone answered again", `/Everyone seated has answered/.test(document.querySelector("#room-tally").textContent)`)
	within(bob, "Bob's second answer", `/210 \(sure\)/.test(document.querySelector("#room-round .your-guess")?.textContent)`)
	roundShots(t, map[string]*browserTab{"host": host, "member": alice, "projector": screen}, "second-vote")
	roomAxe(t, map[string]*browserTab{"host in the second vote": host, "member in the second vote": alice, "projector in the second vote": screen})

	host.do(chromedp.SendKeys(chromedp.CSS(`#room-round form[action$="/reveal"] input[name=measured]`), "200"),
		chromedp.Click(chromedp.CSS(`#room-round form[action$="/reveal"] button`)))
	revealed := `!!document.querySelector('#room-round [data-histogram="first"] rect.hist-bar') && !!document.querySelector('#room-round [data-histogram="second"] line.hist-truth') && document.querySelector("#room-round [data-moved-closer]")?.textContent.trim() === "3 of 3" && !!document.querySelector("#room-round [data-calibration]")`
	for _, m := range append(members, host) {
		if err := m.poll(revealed, 30*time.Second); err != nil {
			t.Errorf("the reveal with both votes: %v", err)
		}
	}
	onScreen := `!!document.querySelector('#room-screen [data-histogram="first"] rect.hist-bar') && !!document.querySelector('#room-screen [data-histogram="second"] line.hist-truth') && document.querySelector("#room-screen [data-moved-closer]")?.textContent.trim() === "3 of 3"`
	if err := screen.poll(onScreen, 30*time.Second); err != nil {
		t.Errorf("the reveal on the projector: %v", err)
	}
	if text := browserEval[string](screen, `document.querySelector("main").textContent`); strings.Contains(text, "Alice") || strings.Contains(text, "Bob") || strings.Contains(text, "Cy") {
		t.Errorf("the projector shows a name: %.300s", text)
	}
	if n := browserEval[int](screen, `document.querySelectorAll("main form, main button").length`); n != 0 {
		t.Errorf("the projector has %d controls", n)
	}
	for _, m := range members {
		assertMarked(m, "before the round")
	}
	exportCarriesTheVotes(t, host)
	// The bar on a notebook page shows the histogram with the measured value, where people are:
	// open, since the newest round is revealed, and on a phone the page's own heading still on its
	// first screen, in light and in dark.
	bob.open("/blocks/1")
	within(bob, "the histogram in Bob's bar, unfolded", `document.querySelector("details.roombar-round").open && !!document.querySelector('.roombar [data-histogram="bar"] line.hist-truth') && document.querySelector(".roombar [data-measured]")?.textContent.trim() === "200"`)
	for _, c := range []struct {
		w      int64
		scheme string
	}{{1280, "light"}, {390, "light"}, {390, "dark"}} {
		bob.emulate(c.w, 844, c.w < 500, c.scheme)
		bob.open("/blocks/1") // loaded at this width, as the phone loads it
		within(bob, "the page loaded, its bar's round open", `document.readyState === "complete" && document.querySelector("details.roombar-round").open`)
		_ = bob.poll(`document.documentElement.scrollWidth <= window.innerWidth`, 10*time.Second) // the charts take the width; the script below says what, if not
		if top := browserEval[float64](bob, `document.querySelector("main h1, main h2").getBoundingClientRect().top`); top > 844-120 {
			t.Errorf("at %d px the bar pushes the page's heading to %.0f px, off the first screen of 844", c.w, top)
		}
		if c.w < 500 {
			for _, wide := range browserEval[[]string](bob, bob.script("sideways-overflow.js")) {
				t.Errorf("the bar at %d px overflows sideways: %s", c.w, wide)
			}
		}
		png, err := chromedp.Run(bob.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shotDir(t), fmt.Sprintf("room-revealed-bar-%d-%s.png", c.w, c.scheme)), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bob.emulate(1280, 900, false, "light")
	// Bob folds it: it stays folded on the next page he opens, for this round.
	bob.do(chromedp.Click(chromedp.CSS("details.roombar-round summary")))
	within(bob, "the bar's round folded", `!document.querySelector("details.roombar-round").open`)
	bob.open("/blocks/2")
	within(bob, "the fold kept on the next page", `document.readyState === "complete" && !document.querySelector("details.roombar-round").open`)
	bob.open(browserEval[string](alice, `location.pathname`))
	streamOpen(bob)
	mark(bob, "before the round")
	within(alice, "Alice's own calibration", `/fairly sure.*\(you: 10 off\)/.test(document.querySelector("#room-round [data-calibration]").textContent)`)
	roundShots(t, map[string]*browserTab{"host": host, "member": alice, "projector": screen}, "revealed")
	roomAxe(t, map[string]*browserTab{"host after the reveal": host, "member after the reveal": alice, "projector after the reveal": screen})

	// The shortest countdown, left to run out: the server locks the round, and its reader redraws
	// every screen at zero, though nobody did anything.
	host.do(chromedp.Click(chromedp.CSS(".room-new-round summary")),
		chromedp.Click(chromedp.CSS(`input[name="question"][value="q1"]`)),
		chromedp.SendKeys(chromedp.CSS("#round-seconds-q"), "15"),
		chromedp.Click(chromedp.CSS(`.room-new-round form button[type="submit"]`)))
	for _, m := range members {
		within(m, "the timed round", `document.querySelector("#room-round [data-state]")?.dataset.state === "open" && !!document.querySelector("#room-timer [data-deadline]")`)
	}
	for _, m := range append(members, host) {
		if err := m.poll(`/Time is up/.test(document.querySelector("#room-timer").textContent) && document.querySelector("#room-round [data-state]")?.dataset.state === "locked"`, 30*time.Second); err != nil {
			t.Errorf("the lock at zero: %v", err)
		}
	}
	if browserEval[bool](alice, `!!document.querySelector("#room-round form.guess")`) {
		t.Error("a member is still offered the guess form after the time ran out")
	}
	for _, m := range members {
		assertMarked(m, "before the round")
	}
}

// shotDir is where screenshots go: ARTIFACTS_DIR, else testdata-artifacts/screenshots.
func shotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ARTIFACTS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata-artifacts", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// siblingTab opens another tab in parent's browser context: the same person's cookies, as the
// host's laptop showing the projector view in a second window.
func siblingTab(t *testing.T, parent *browserTab) *browserTab {
	t.Helper()
	tb := &browserTab{t: t, base: parent.base}
	ctx, cancel := chromedp.NewContext(parent.ctx, chromedp.WithListener(tb.listen))
	t.Cleanup(cancel)
	tb.ctx = ctx
	src := browserScript(t, "room-recorder.js")
	tb.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
		return err
	}))
	return tb
}

// roundShots writes screenshots of each tab at a laptop's and a phone's width, for a person to
// look at (ARTIFACTS_DIR, else testdata-artifacts/screenshots).
func roundShots(t *testing.T, tabs map[string]*browserTab, stage string) {
	t.Helper()
	dir := shotDir(t)
	for who, tb := range tabs {
		for _, w := range []int64{1280, 390} {
			tb.emulate(w, 900, w < 500, "light")
			time.Sleep(300 * time.Millisecond) // the layout settles
			if w < 500 {
				for _, wide := range browserEval[[]string](tb, tb.script("sideways-overflow.js")) {
					t.Errorf("%s's room at %dpx overflows sideways: %s", who, w, wide)
				}
			}
			png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("room-%s-%s-%d.png", stage, who, w)), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tb.emulate(1280, 900, false, "light")
	}
}
