package site

// A study session in a browser, beside the two-vote round of browser_rounds_test.go: the host asks
// about the page on screen, and a member on that page reads the result only after the reveal;
// keyboard use for a member's answer and the host's countdown; the export a host downloads.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// tabTo presses Tab until the focused element matches sel, as a reader without a mouse reaches a
// control, and fails after n presses.
func tabTo(t *testing.T, tb *browserTab, sel string, n int) {
	t.Helper()
	for range n {
		if browserEval[bool](tb, `!!document.activeElement && document.activeElement.matches(`+jsString(sel)+`)`) {
			return
		}
		tb.do(chromedp.KeyEvent(kb.Tab))
	}
	t.Fatalf("%d presses of Tab never reached %s (focus on %s)", n, sel,
		browserEval[string](tb, `document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : "nothing"`))
}

// keyboardAnswer answers the room page's open round with the keyboard alone: Tab to the answer,
// type it over what the field holds, Tab into the confidence and move to level (0 not sure, 1
// fairly sure, 2 sure) with the arrows, Tab to the button and press Enter.
func keyboardAnswer(t *testing.T, m *browserTab, value string, level int) {
	t.Helper()
	tabTo(t, m, "#room-round form.guess input[name=value]", 120)
	m.do(chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.KeyEvent(value), chromedp.KeyEvent(kb.Tab))
	if got := browserEval[string](m, `document.querySelector("#room-round form.guess input[name=value]").value`); got != value {
		t.Fatalf("the answer field holds %q after typing %q", got, value)
	}
	radios := `[...document.querySelectorAll("#room-round form.guess input[name=confidence]")]`
	for range 6 {
		focused := browserEval[int](m, radios+`.indexOf(document.activeElement)`)
		checked := browserEval[int](m, radios+`.findIndex(r => r.checked)`)
		switch {
		case focused < 0:
			t.Fatalf("Tab from the answer did not reach the confidence (focus on %s)", browserEval[string](m, `document.activeElement.outerHTML.slice(0, 120)`))
		case focused == level && checked == level:
		case focused == level:
			m.do(chromedp.KeyEvent(" "))
			continue
		case focused < level:
			m.do(chromedp.KeyEvent(kb.ArrowRight))
			continue
		default:
			m.do(chromedp.KeyEvent(kb.ArrowLeft))
			continue
		}
		break
	}
	if checked := browserEval[int](m, radios+`.findIndex(r => r.checked)`); checked != level {
		t.Fatalf("the arrows left confidence %d checked, want %d", checked, level)
	}
	m.do(chromedp.KeyEvent(kb.Tab))
	if !browserEval[bool](m, `document.activeElement.matches("#room-round form.guess button[type=submit]")`) {
		t.Fatalf("Tab from the confidence did not reach the button")
	}
	m.do(chromedp.KeyEvent(kb.Enter))
}

// leftSeconds reads the countdown's time left on tb's page, in seconds.
func leftSeconds(t *testing.T, tb *browserTab) int {
	t.Helper()
	var m, s int
	text := browserEval[string](tb, `document.querySelector("#room-timer [data-left]")?.textContent || ""`)
	if _, err := fmt.Sscanf(text, "%d:%d", &m, &s); err != nil {
		t.Fatalf("the countdown reads %q", text)
	}
	return 60*m + s
}

// keyboardTimer works the open round's countdown from the host's room page with the keyboard
// alone: pause it, resume it, and give it 30 s more.
func keyboardTimer(t *testing.T, host *browserTab) {
	t.Helper()
	pause := `#room-round form[action$="/timer"]:has(input[name=paused]) button`
	tabTo(t, host, pause, 120)
	if label := browserEval[string](host, `document.activeElement.textContent.trim()`); label != "Pause the countdown" {
		t.Fatalf("the first countdown control reached is %q", label)
	}
	host.do(chromedp.KeyEvent(kb.Enter))
	within(host, "the countdown paused", `/Countdown paused/.test(document.querySelector("#room-timer").textContent)`)
	tabTo(t, host, pause, 120) // the redrawn form keeps focus on its button, now Resume
	if label := browserEval[string](host, `document.activeElement.textContent.trim()`); label != "Resume the countdown" {
		t.Fatalf("after the pause the control reads %q", label)
	}
	host.do(chromedp.KeyEvent(kb.Enter))
	within(host, "the countdown running again", `!!document.querySelector("#room-timer [data-deadline]")`)
	before := leftSeconds(t, host)
	tabTo(t, host, `#room-round form[action$="/timer"]:has(input[name=extend]) button`, 120)
	host.do(chromedp.KeyEvent(kb.Enter))
	within(host, "30 s more on the countdown", fmt.Sprintf(`(() => { const m = /(\d+):(\d\d)/.exec(document.querySelector("#room-timer [data-left]")?.textContent || ""); return m && 60*+m[1] + +m[2] >= %d })()`, before+20))
}

// exportRound is one round of the JSON export, as far as the tests read it.
type exportRound struct {
	Seq      int    `json:"seq"`
	Text     string `json:"text"`
	Votes    int    `json:"votes"`
	Question struct {
		Kind       string `json:"kind"`
		Experiment string `json:"experiment"`
		Params     string `json:"params"`
		Measure    string `json:"measure"`
		Point      string `json:"point"`
	} `json:"question"`
	Measured *float64 `json:"measured"`
	Guesses  []struct {
		Name       string  `json:"name"`
		Value      float64 `json:"value"`
		Vote       int     `json:"vote"`
		Confidence string  `json:"confidence"`
	} `json:"guesses"`
	MovedCloser *int `json:"moved_closer"`
	Timer       *struct {
		Seconds int `json:"seconds"`
	} `json:"timer"`
}

// exported downloads the session as the host's settings link gives it, as JSON.
func exported(t *testing.T, host *browserTab) (title, code string, rounds []exportRound) {
	t.Helper()
	type export struct {
		Title  string        `json:"title"`
		Code   string        `json:"code"`
		Rounds []exportRound `json:"rounds"`
	}
	e := browserEval[export](host, `fetch(document.querySelector('a[download][href$="/export?format=json"]').href).then(r => r.ok ? r.json() : Promise.reject(r.status))`,
		chromedp.EvalAwaitPromise)
	return e.Title, e.Code, e.Rounds
}

// exportCarriesTheVotes downloads the two-vote round's session and checks it holds the question,
// both votes of every member with their confidences, how many moved closer and the countdown.
func exportCarriesTheVotes(t *testing.T, host *browserTab) {
	t.Helper()
	title, code, rounds := exported(t, host)
	if title != "Peer instruction" || code == "" || len(rounds) == 0 {
		t.Fatalf("the export: title %q, code %q, %d rounds", title, code, len(rounds))
	}
	r := rounds[0]
	if r.Text != "How many duplicates escape?" || r.Votes != 2 || r.Measured == nil || *r.Measured != 200 || r.MovedCloser == nil || *r.MovedCloser != 3 {
		t.Errorf("the two-vote round in the export: %+v", r)
	}
	if r.Timer == nil || r.Timer.Seconds != 120 {
		t.Errorf("the export's timer: %+v, want 120 s a vote", r.Timer)
	}
	want := map[string]string{"Alice/1": "100 low", "Alice/2": "190 medium", "Bob/1": "300 high", "Bob/2": "210 high", "Cy/1": "50 low", "Cy/2": "150 medium"}
	for _, g := range r.Guesses {
		key := fmt.Sprintf("%s/%d", g.Name, g.Vote)
		if w, ok := want[key]; !ok || w != fmt.Sprintf("%g %s", g.Value, g.Confidence) {
			t.Errorf("the export's guess %s: %g %s, want %s", key, g.Value, g.Confidence, want[key])
		}
		delete(want, key)
	}
	if len(want) > 0 {
		t.Errorf("the export lacks the guesses %v", want)
	}
}

// TestBrowserRoomAskAboutThisPage: the host presents block 4 at a delay of 5,000 and, from the bar,
// asks about the escaped duplicates at window 1,000. The members, who followed the host there, see
// that block's result hidden without a reload, while the host's and the page's other block stay;
// a member answers in the bar; the reveal brings the result back on the member's page, again
// without a reload, with the histogram open in the bar; and the export names the experiment, its
// parameters and the row. At a phone's width, in the dark, the hidden block and the bar are
// checked by axe and by eye.
func TestBrowserRoomAskAboutThisPage(t *testing.T) {
	b := startBrowserSuite(t)
	host, _, code := hostRoomTab(t, b, "Block 4 together")
	dana, eli := openRoomTab(t, b), openRoomTab(t, b)
	members := []*browserTab{dana, eli}
	for i, m := range members {
		m.open("/j/" + code)
		m.retype("#join-name", []string{"Dana", "Eli"}[i])
		m.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
		within(m, "the member's room page", `!!document.querySelector(".you strong")`)
		// Following moves notebook pages, never the room's own page: the members read one.
		m.open("/blocks/1")
		streamOpen(m)
	}

	// The host moves the delay with the block's own form (htmx, no new page): the bar's list of
	// numbers follows the page's new address.
	page := "/blocks/4?max_delay=5000"
	host.open("/blocks/4")
	streamOpen(host)
	host.rerun("exp-window", map[string]string{"max_delay": "5000"})
	within(host, "the ask list at the new delay", `[...document.querySelectorAll("#ask-number option")].some(o => o.value.includes("max_delay%3D5000"))`)
	host.do(chromedp.Click(chromedp.CSS(`.roombar form[action$="/present"] button`)))
	for _, m := range members {
		within(m, "the member following the host to block 4", `location.pathname === "/blocks/4" && new URLSearchParams(location.search).get("max_delay") === "5000" && document.readyState === "complete" && !!document.querySelector("#exp-window table")`)
		streamOpen(m)
		mark(m, "on block 4")
	}

	// Ask about this page: the escaped duplicates at window 1,000, in words with its row.
	host.do(chromedp.Click(chromedp.CSS("details.roombar-ask summary")))
	option := browserEval[string](host, `[...document.querySelectorAll("#ask-number option")].find(o => o.textContent === "escaped duplicates at window 1,000")?.value || ""`)
	if option == "" {
		t.Fatalf("the ask list lacks the escaped duplicates at window 1,000: %s", browserEval[string](host, `document.querySelector("#ask-number").textContent`))
	}
	if !browserEval[bool](host, `[...document.querySelectorAll("#ask-number option")].some(o => o.textContent === "jobs crashed")`) {
		t.Error("the ask list lacks the reading's headline")
	}
	host.do(chromedp.SetValue(chromedp.CSS("#ask-number"), option), chromedp.Click(chromedp.CSS(".roombar .ask-form button[type=submit]")))
	question := "How many escaped duplicates at window 1,000? (Escape rate versus dedup window, with max redelivery delay 5,000 jobs)"
	within(host, "the round in the host's bar", `document.querySelector(".roombar .question")?.textContent === `+jsString(question))

	for _, m := range members {
		within(m, "the block hidden on the member's page", `!!document.querySelector("#exp-window .sealed") && !document.querySelector("#exp-window table") && !!document.querySelector("#exp-window-grid .sealed")`)
		within(m, "the question in the member's bar", `document.querySelector(".roombar .question")?.textContent === `+jsString(question))
		assertMarked(m, "on block 4")
	}
	if browserEval[bool](host, `!!document.querySelector("#exp-window .sealed") || !document.querySelector("#exp-window table")`) {
		t.Error("the host's copy of the block is hidden")
	}
	dana.emulate(390, 844, true, "dark")
	// The charts redraw at the new width a moment after it changes: the page settles first.
	_ = dana.poll(`document.documentElement.scrollWidth <= window.innerWidth`, 10*time.Second) // the script below says what, if not
	for _, wide := range browserEval[[]string](dana, dana.script("sideways-overflow.js")) {
		t.Errorf("the page with the hidden block at 390 px overflows sideways: %s", wide)
	}
	browserEval[chromedp.Void](dana, `document.querySelector("#exp-window .sealed").scrollIntoView({block: "center"})`)
	shot(t, dana, "room-ask-sealed-390-dark")
	dana.emulate(1280, 900, false, "light")
	roomAxe(t, map[string]*browserTab{"host's bar asking": host, "member's hidden block": dana})

	// Dana answers in the bar; Eli does not; the host reveals from the bar.
	dana.retype(".roombar form.guess input[name=value]", "150")
	dana.do(chromedp.Click(chromedp.CSS(`.roombar form.guess input[name=confidence][value=medium]`)),
		chromedp.Click(chromedp.CSS(".roombar form.guess button[type=submit]")))
	within(host, "1 of 2 answered in the host's bar", `/1 of 2\s+answered/.test(document.querySelector(".roombar .room-count")?.textContent)`)
	host.do(chromedp.Click(chromedp.CSS(`.roombar form[action$="/reveal"] button`)))
	for _, m := range members {
		if err := m.poll(`!document.querySelector("#exp-window .sealed") && !!document.querySelector("#exp-window table") && document.querySelector("details.roombar-round").open && !!document.querySelector('.roombar [data-histogram="bar"] line.hist-truth')`, 30*time.Second); err != nil {
			t.Errorf("the reveal on a member's page: %v", err)
		}
		assertMarked(m, "on block 4")
	}
	measured := browserEval[string](dana, `document.querySelector(".roombar [data-measured]").textContent.trim()`)
	if !strings.Contains(browserEval[string](dana, `document.querySelector("#exp-window table").textContent`), measured) {
		t.Errorf("the measured %s is not in the block's table", measured)
	}
	// On a phone the revealed round stays open in the bar, and the page's own heading is still on
	// the first screen.
	dana.emulate(390, 844, true, "light")
	dana.open(page)
	within(dana, "the bar's revealed round open after a reload", `document.readyState === "complete" && document.querySelector("details.roombar-round").open`)
	if top := browserEval[float64](dana, `document.querySelector("main h1").getBoundingClientRect().top`); top > 844-120 {
		t.Errorf("at 390 px the bar pushes the page's heading to %.0f px, off the first screen of 844", top)
	}
	shot(t, dana, "room-ask-revealed-390")
	dana.emulate(1280, 900, false, "light")

	// The export names the experiment, its parameters and the row of the round's question.
	host.open(browserEval[string](host, `document.querySelector(".roombar-title a").getAttribute("href")`))
	_, _, rounds := exported(t, host)
	if len(rounds) != 1 {
		t.Fatalf("%d rounds exported, want 1", len(rounds))
	}
	r := rounds[0]
	if r.Text != question || r.Question.Kind != "measure" || r.Question.Experiment != "window" || r.Question.Params != "max_delay=5000" ||
		r.Question.Measure != "escaped" || r.Question.Point != "1000" || r.Measured == nil || len(r.Guesses) != 1 || r.Guesses[0].Confidence != "medium" {
		t.Errorf("the asked round in the export: %+v", r)
	}
	if fmt.Sprint(*r.Measured) != strings.ReplaceAll(measured, ",", "") {
		t.Errorf("the export measured %v, the page %s", *r.Measured, measured)
	}
	for _, tb := range append(members, host) {
		for _, p := range tb.takeProblems() {
			t.Errorf("the page reported: %s", p)
		}
	}
}

// TestBrowserRoomWatchesALabRun: the host starts a lab run from the room's page; a member's room
// page shows its progress box without a reload, with no Cancel, and its table when it ends, and
// the member's bar on a notebook page shows it too; the host's page has Cancel. axe checks the
// host's page with the form open and the member's page and bar with the run, light and dark.
func TestBrowserRoomWatchesALabRun(t *testing.T) {
	b := startBrowserSuite(t)
	host, _, code := hostRoomTab(t, b, "Lab together")
	streamOpen(host)
	fay := openRoomTab(t, b)
	fay.open("/j/" + code)
	fay.retype("#join-name", "Fay")
	fay.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
	within(fay, "the member's room page", `!!document.querySelector(".you strong")`)
	streamOpen(fay)
	mark(fay, "in the room")

	host.do(chromedp.Click(chromedp.CSS("details.room-lab-form summary")))
	browserEval[chromedp.Void](host, `document.querySelectorAll('.room-lab-run input[name=design]').forEach(c => { c.checked = c.value === "ack-after-work" })`)
	host.retype("#room-lab-jobs", "300")
	roomAxe(t, map[string]*browserTab{"host's room page with the lab form": host})
	host.do(chromedp.Click(chromedp.CSS(".room-lab-run button[type=submit]")))
	within(host, "the host's run with Cancel", `document.querySelector("#room-lab .lab-status, .room-lab .lab-status")?.dataset.whose === "yours" && !!document.querySelector(".room-lab form.lab-cancel button")`)
	within(fay, "the run on the member's room page, live", `!!document.querySelector(".room-lab .lab-status")`)
	if browserEval[bool](fay, `!!document.querySelector(".room-lab form.lab-cancel")`) {
		t.Error("the member is offered Cancel")
	}
	if err := fay.poll(`!!document.querySelector(".room-lab [data-design-result]")`, 60*time.Second); err != nil {
		t.Fatalf("the run's table on the member's page: %v", err)
	}
	assertMarked(fay, "in the room")
	roomAxe(t, map[string]*browserTab{"member's room page with the lab run": fay})
	fay.open("/blocks/1")
	within(fay, "the run in the member's bar", `!!document.querySelector(".roombar details.roombar-lab [data-design-result]")`)
	fay.do(chromedp.Click(chromedp.CSS("details.roombar-lab summary")))
	within(fay, "the bar's lab run unfolded", `document.querySelector("details.roombar-lab").open`)
	fay.emulate(390, 844, true, "dark")
	fay.open("/blocks/1")
	fay.do(chromedp.Click(chromedp.CSS("details.roombar-lab summary")))
	_ = fay.poll(`document.documentElement.scrollWidth <= window.innerWidth`, 10*time.Second) // the script below says what, if not
	for _, wide := range browserEval[[]string](fay, fay.script("sideways-overflow.js")) {
		t.Errorf("the bar with the lab run at 390 px overflows sideways: %s", wide)
	}
	shot(t, fay, "room-lab-bar-390-dark")
	fay.emulate(1280, 900, false, "light")
	roomAxe(t, map[string]*browserTab{"member's bar with the lab run": fay})
	for _, tb := range []*browserTab{host, fay} {
		for _, p := range tb.takeProblems() {
			t.Errorf("the page reported: %s", p)
		}
	}
}
