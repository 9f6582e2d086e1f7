package site

// What the QA pass of study rooms found in a browser, fixed: a following member's room page stays
// put (open it in a tab of its own and read it), the confidence choices sit on one line at a
// phone's width, a hidden bar leaves a line that brings it back, and a room that closes says so
// once on the next notebook page.

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestBrowserRoomsQA(t *testing.T) {
	b := startBrowserSuite(t)
	host, ada := openRoomTab(t, b), openRoomTab(t, b)
	host.open("/rooms/new")
	host.do(chromedp.SendKeys(chromedp.CSS("#room-title"), "Friday group"),
		chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
	within(host, "the host link page", `!!document.querySelector("#host-link")`)
	host.do(chromedp.Click(chromedp.CSS(`main a.button`)))
	within(host, "the host's room page", `!!document.querySelector("article.room [data-join-code]")`)
	roomPath := browserEval[string](host, `location.pathname`)
	room := strings.TrimPrefix(roomPath, "/rooms/")
	code := browserEval[string](host, `document.querySelector("[data-join-code]").textContent.trim()`)
	streamOpen(host)

	ada.emulate(390, 844, true, "light")
	ada.open("/j/" + code)
	ada.retype("#join-name", "Ada")
	ada.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
	within(ada, "Ada's room page", `location.pathname === `+jsString(roomPath)+` && !!document.querySelector(".you strong")`)
	streamOpen(ada)

	// Item 21: at 390 px the question of confidence has a line of its own and the three answers
	// share the next, none of them broken over two lines.
	host.do(chromedp.Click(chromedp.CSS(".room-new-round summary")),
		chromedp.Click(chromedp.CSS(`input[name="question"][value="q4"]`)),
		chromedp.Click(chromedp.CSS(`.room-new-round form button[type="submit"]`)))
	within(ada, "the guess form", `document.querySelectorAll("#room-round fieldset.confidence label.choice").length === 3`)
	for _, scheme := range []string{"light", "dark"} {
		ada.emulate(390, 844, true, scheme)
		lines := browserEval[string](ada, `(() => {
			const f = document.querySelector("#room-round fieldset.confidence");
			const ls = [...f.querySelectorAll("label.choice")].map(l => l.getBoundingClientRect());
			const lg = f.querySelector("legend").getBoundingClientRect();
			const one = Math.round(parseFloat(getComputedStyle(f.querySelector("label.choice")).lineHeight) * 1.5);
			return ls.every(r => Math.abs(r.top - ls[0].top) < 1) && lg.bottom <= ls[0].top + 1 && ls.every(r => r.height < one) ?
				"" : JSON.stringify({legend: lg, choices: ls});
		})()`)
		if lines != "" {
			t.Errorf("the confidence choices at 390 px (%s) are not one even line under the question: %s", scheme, lines)
		}
		browserEval[any](ada, `document.querySelector("#room-round fieldset.confidence").scrollIntoView({block: "center"})`)
		shot(t, ada, "roomsqa-confidence-390-"+scheme)
	}
	ada.emulate(390, 844, true, "light")

	// Item 11: the host presents a page while Ada, who follows, reads the room's page: the page
	// notes what is presented and stays. A new tab (no memory of what was presented) stays too.
	host.retype("#present-path", "/blocks/1")
	host.do(chromedp.Click(chromedp.CSS(`form.present-form button`)))
	seen := `sessionStorage.getItem("eo-presented:` + room + `") === "/blocks/1"`
	within(ada, "the presentation on Ada's room page", `!!document.querySelector("[data-present-path='/blocks/1']") && `+seen)
	if got := browserEval[string](ada, `location.pathname + "|" + window.__room.leaving`); got != roomPath+"|" {
		t.Errorf("following moved the room's own page: %s", got)
	}
	browserEval[any](ada, `sessionStorage.clear()`)
	ada.do(chromedp.Reload())
	streamOpen(ada)
	within(ada, "the reloaded room page noting the presentation", seen)
	if got := browserEval[string](ada, `location.pathname + "|" + window.__room.leaving`); got != roomPath+"|" {
		t.Errorf("a fresh tab of the room's page was moved: %s", got)
	}
	// The presentation was seen, so the notebook page Ada opens next is hers to read.
	ada.open("/blocks/2")
	streamOpen(ada)
	within(ada, "Ada's bar on block 2", `!!document.querySelector("aside.roombar [data-present-path='/blocks/1']")`)
	if got := browserEval[string](ada, `location.pathname + "|" + window.__room.leaving`); got != "/blocks/2|" {
		t.Errorf("opening a notebook page after the room's page moved Ada: %s", got)
	}

	// Item 7: hiding the bar says it stops following, and leaves a line that brings it back.
	if label := browserEval[string](ada, `document.querySelector("aside.roombar .roombar-leave button").textContent.trim()`); label != "Hide this bar and stop following" {
		t.Errorf("the hide button reads %q", label)
	}
	ada.click("aside.roombar .roombar-leave button")
	within(ada, "the hidden bar's line", `location.pathname === "/blocks/2" && document.readyState === "complete" && !!document.querySelector("aside.roombar-line form button")`)
	line := browserEval[string](ada, `document.querySelector("aside.roombar-line").textContent.replace(/\s+/g, " ").trim()`)
	if want := "Study room Friday group (" + code + "): bar hidden, so your page does not follow the host. Show the bar"; line != want {
		t.Errorf("the hidden bar's line reads %q, want %q", line, want)
	}
	for _, scheme := range []string{"light", "dark"} {
		ada.emulate(390, 844, true, scheme)
		shot(t, ada, "roomsqa-hidden-390-"+scheme)
	}
	ada.emulate(1280, 900, false, "dark")
	shot(t, ada, "roomsqa-hidden-1280-dark")
	roomAxe(t, map[string]*browserTab{"the hidden bar's line": ada})
	ada.click("aside.roombar-line form button")
	within(ada, "the bar back on block 2", `location.pathname === "/blocks/2" && !!document.querySelector("aside.roombar[data-room-stream]")`)
	streamOpen(ada)

	// Item 17: a member the host removed who opens the join link again reads what happened and
	// how to come back, in sentences.
	cat := openRoomTab(t, b)
	cat.emulate(390, 844, true, "dark")
	cat.open("/j/" + code)
	cat.retype("#join-name", "Cat")
	cat.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
	// Joining late lands on the presented page, with the room's bar, as the room page no longer
	// moves anyone there.
	within(cat, "Cat on the presented page", `location.pathname === "/blocks/1" && !!document.querySelector("aside.roombar[data-room-stream]")`)
	host.open(roomPath)
	streamOpen(host)
	catKick := `[...document.querySelectorAll("form[action$='/kick']")].find(f => f.closest("li")?.textContent.includes("Cat"))`
	within(host, "Cat on the host's roster", `!!`+catKick)
	browserEval[any](host, `fetch(`+catKick+`.action, {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: "confirmed=yes"}).then(r => r.status)`)
	within(host, "Cat gone from the roster", `!`+catKick)
	cat.do(chromedp.Navigate(b.base + "/j/" + code)) // a 403, which open refuses
	within(cat, "the page for a removed member", `document.querySelector("main h1")?.textContent === "You were removed from “Friday group”"`)
	if text := browserEval[string](cat, `document.querySelector("main").textContent`); strings.Contains(text, "host link") || !strings.Contains(text, "join again") {
		t.Errorf("the removed member's page reads: %s", text)
	}
	shot(t, cat, "roomsqa-removed-390-dark")
	cat.emulate(1280, 900, false, "light")
	shot(t, cat, "roomsqa-removed-1280-light")
	roomAxe(t, map[string]*browserTab{"the removed member's page": cat})

	// Item 19: the host closes the room. Ada's next notebook page says so, once; the host's page
	// no longer invites a presentation.
	browserEval[any](host, `fetch(location.pathname + "/close", {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: "confirmed=yes"}).then(r => r.status)`)
	within(host, "the closed banner on the host's page", `/This room is closed/.test(document.querySelector(".room-status")?.textContent || "")`)
	within(ada, "the closed banner in Ada's bar", `/This room is closed/.test(document.querySelector("aside.roombar")?.textContent || "")`)
	ada.open("/blocks/2")
	within(ada, "the closed room's line", `/Friday group is closed/.test(document.querySelector("aside.roombar-line")?.textContent || "")`)
	for _, w := range []struct {
		width  int64
		scheme string
	}{{1280, "dark"}, {390, "light"}, {390, "dark"}} {
		ada.emulate(w.width, 900, w.width < 500, w.scheme)
		shot(t, ada, "roomsqa-closed-line-"+strconv.FormatInt(w.width, 10)+"-"+w.scheme)
	}
	roomAxe(t, map[string]*browserTab{"the closed room's line": ada})
	ada.open("/blocks/2")
	if n := browserEval[int](ada, `document.querySelectorAll("aside.roombar").length`); n != 0 {
		t.Errorf("the closed room's notice came back on the next page (%d bars)", n)
	}
	host.open(roomPath)
	if text := browserEval[string](host, `document.querySelector("article.room").textContent`); strings.Contains(text, "Present this page") {
		t.Errorf("the closed room's host page still invites a presentation")
	}
	host.emulate(1280, 900, false, "dark")
	shot(t, host, "roomsqa-closed-host-1280-dark")

	for who, tb := range map[string]*browserTab{"host": host, "Ada": ada} {
		for _, p := range tb.takeProblems() {
			t.Errorf("%s's tab: %s", who, p)
		}
	}
}
