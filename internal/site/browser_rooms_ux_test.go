package site

// What a host and two members see of a room in a browser, each in a browser context of their own:
// the host link page survives a reload (post, redirect, get); the presenting line on a phone names
// the page and only the moved parameters, and nothing scrolls sideways; the back button brings
// back a notebook page with its room bar; a round on an experiment's number is picked in words
// and asked in words.

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

func TestBrowserRoomsUX(t *testing.T) {
	b := startBrowserSuite(t)
	host, alice, bob := openRoomTab(t, b), openRoomTab(t, b), openRoomTab(t, b)

	// 19.7: starting a room lands on the host link page; a reload shows it again, with the same
	// link, and opens no second room (the browser still holds one host key).
	host.open("/rooms/new")
	host.do(chromedp.SendKeys(chromedp.CSS("#room-title"), "Reload group"),
		chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
	within(host, "the host link page", `location.pathname.endsWith("/host-link") && !!document.querySelector("#host-link")`)
	link := browserEval[string](host, `document.querySelector("#host-link").value`)
	if !strings.Contains(link, "/host?token=") {
		t.Fatalf("the host link page shows %q", link)
	}
	mark(host, "before the reload")
	host.do(chromedp.Reload())
	within(host, "the host link page after a reload", `document.readyState === "complete" && window.__marker === undefined && !!document.querySelector("#host-link")`)
	if again := browserEval[string](host, `document.querySelector("#host-link").value`); again != link {
		t.Errorf("after a reload the page shows %q, not the link %q it showed", again, link)
	}
	hostKeys := func() int {
		res, err := chromedp.Call(host.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{b.base + "/"}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range res.Cookies {
			if strings.HasPrefix(c.Name, hostCookie) {
				n++
			}
		}
		return n
	}
	if n := hostKeys(); n != 1 {
		t.Errorf("after a reload the host's browser holds %d host keys, want 1 (one room)", n)
	}
	host.do(chromedp.Click(chromedp.CSS(`main a.button`)))
	within(host, "the host's room page", `!!document.querySelector("[data-join-code]")`)
	roomPath := browserEval[string](host, `location.pathname`)
	code := browserEval[string](host, `document.querySelector("[data-join-code]").textContent.trim()`)
	for m, name := range map[*browserTab]string{alice: "Alice", bob: "Bob"} {
		m.open("/j/" + code)
		m.retype("#join-name", name)
		m.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
		within(m, name+" in the room", `location.pathname === `+jsString(roomPath))
		streamOpen(m)
	}
	// Bob reads the room page on his phone and does not follow the presenter (his tab's choice).
	room := strings.TrimPrefix(roomPath, "/rooms/")
	browserEval[any](bob, `localStorage.setItem("eo-follow:`+room+`", "off")`)
	bob.emulate(390, 844, true, "light")

	// 19.6: the host presents block 4 after a Run, its permalink carrying every field of both forms
	// with one value moved; Alice, on a phone, follows, and her bar and Bob's room page name the
	// page and that one value, and nothing scrolls sideways.
	const permalink = "/blocks/4?jobs=20000&crash_rate=0.02&seed=13&delay_seed=17&max_delay=5000&windows=100%2C500%2C1000%2C1500%2C2000%2C5000" +
		"&window-grid.max_delays=200%2C1000%2C5000%2C20000&window-grid.windows=500%2C2000%2C10000"
	alice.emulate(390, 844, true, "light")
	alice.open("/blocks/1") // following moves notebook pages, not the room's own page
	streamOpen(alice)
	host.open(permalink)
	streamOpen(host)
	host.do(chromedp.Click(chromedp.CSS(`.roombar .room-tools form[action$="/present"] button`)))
	const line = "The host is showing 4 · The bounded dedup window (max redelivery delay 5,000 jobs)."
	within(alice, "Alice on the presented page", `location.pathname === "/blocks/4" && document.readyState === "complete"`)
	streamOpen(alice)
	alice.waitCharts()
	for who, tb := range map[string]*browserTab{"Alice's bar": alice, "Bob's room page": bob} {
		within(tb, who+" naming the page", `document.querySelector(".presenting p")?.textContent.replace(/\s+/g, " ").trim() === `+jsString(line))
		for _, w := range browserEval[[]string](tb, tb.script("sideways-overflow.js")) {
			t.Errorf("%s at 390 px overflows sideways: %s", who, w)
		}
	}
	if got := browserEval[string](bob, `location.pathname`); got != roomPath {
		t.Errorf("Bob, who does not follow, was moved to %s", got)
	}

	// 19.11: Alice reruns the window with another delay (htmx pushes the URL), then goes back:
	// the page htmx restores from the server has the room bar, and its stream opens again.
	alice.rerun("exp-window", map[string]string{"max_delay": "3000"})
	within(alice, "the rerun's URL", `new URLSearchParams(location.search).get("max_delay") === "3000"`)
	mark(alice, "before going back")
	opened := browserEval[int](alice, `window.__room.open`)
	alice.do(chromedp.NavigateBack())
	within(alice, "the page before the rerun", `new URLSearchParams(location.search).get("max_delay") === "5000"`)
	within(alice, "the room bar after going back", `!!document.querySelector("aside.roombar [data-present-path]")`)
	within(alice, "the bar's stream open again", `window.__room.open > `+strconv.Itoa(opened))
	assertMarked(alice, "before going back") // restored in place by htmx, not reloaded

	// 19.5: the host opens a round on a number of the presented page, picked from a list in words
	// with its row; the experiments to list are named by title; members read the number asked.
	host.open(roomPath)
	streamOpen(host)
	host.do(chromedp.Click(chromedp.CSS("details.room-new-round summary")))
	if opts := browserEval[string](host, `[...document.querySelectorAll("#list-experiment option")].map(o => o.textContent).join("|")`); !strings.Contains(opts, "Escape rate versus dedup window") || strings.Contains(opts, "|window|") {
		t.Errorf("the experiments are not listed by title: %s", opts)
	}
	value := browserEval[string](host, `[...document.querySelectorAll("#round-number option")].find(o => o.textContent.trim() === "escaped duplicates at window 1,000")?.value || ""`)
	if value == "" {
		t.Fatalf("no number called %q in the host's list", "escaped duplicates at window 1,000")
	}
	browserEval[any](host, `document.querySelector("#round-number").value = `+jsString(value))
	host.do(chromedp.Click(chromedp.CSS(`#round-number ~ button, form:has(#round-number) button[type="submit"]`)))
	const question = "How many escaped duplicates at window 1,000? (Escape rate versus dedup window, with max redelivery delay 5,000 jobs)"
	for who, tb := range map[string]*browserTab{"Alice's bar": alice, "Bob's room page": bob} {
		within(tb, who+" asking the number", `document.querySelector("[data-state='open'] .question")?.textContent.trim() === `+jsString(question))
	}
	for _, w := range browserEval[[]string](bob, bob.script("sideways-overflow.js")) {
		t.Errorf("Bob's room page with the question at 390 px overflows sideways: %s", w)
	}

	for what, tb := range map[string]*browserTab{"host": host, "Alice": alice, "Bob": bob} {
		for _, p := range tb.takeProblems() {
			t.Errorf("%s's tab: %s", what, p)
		}
	}
}
