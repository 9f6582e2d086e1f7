package site

// The second QA pass on study rooms, in a browser: the bar's lab box stays bounded on a laptop and
// a phone (it unfolded with seven designs' tables, 2,540 px tall, the page's heading at y = 2,619),
// the room page's follow line says what moves, the room page passes axe as host and member, a
// handler shows whole on a 1,920 px projector, and a projector a newer tab replaced says so.

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"effectivelyonce/internal/web/roomsweb"
	"effectivelyonce/pages"
)

// roomPost posts a room's form from tb's page (its cookies), as htmx does, and wants 204.
func roomPost(t *testing.T, tb *browserTab, path, form string) {
	t.Helper()
	st := browserEval[int](tb, `fetch(`+jsString(path)+`, {method: "POST", headers: {"HX-Request": "true", "Content-Type": "application/x-www-form-urlencoded"}, body: `+jsString(form)+`}).then(r => r.status)`,
		chromedp.EvalAwaitPromise)
	if st != http.StatusNoContent {
		t.Fatalf("POST %s %s: %d", path, form, st)
	}
}

// barGeometry is where the page's heading starts under the bar, and the lab box's height.
type barGeometry struct {
	H1, Bar, Body, BodyScroll float64
	Open                      bool
}

const barGeometryJS = `(() => { const d = document.querySelector("details.roombar-lab"), b = d && d.querySelector(".roombar-lab-body");
	return {H1: document.querySelector("main h1").getBoundingClientRect().top + scrollY,
		Bar: document.querySelector(".roombar").getBoundingClientRect().height,
		Body: b && d.open ? b.clientHeight : 0, BodyScroll: b && d.open ? b.scrollHeight : 0, Open: !!d && d.open}; })()`

func TestBrowserRoomsQA2(t *testing.T) {
	b := startBrowserSuite(t)
	host, roomPath, code := hostRoomTab(t, b, "QA2")
	cat := openRoomTab(t, b)
	cat.emulate(1280, 800, false, "light")
	cat.open("/j/" + code)
	cat.retype("#join-name", "Cat")
	cat.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
	within(cat, "Cat's room page", `!!document.querySelector(".you strong")`)
	streamOpen(cat)

	// Defect 5: on the room page, which never moves, the follow line says so.
	roomPost(t, host, roomPath+"/present", "path=/blocks/4")
	within(cat, "the follow line on the room page", `document.querySelector("article.room [data-follow-on]")?.hidden === false`)
	follow := func() string {
		return browserEval[string](cat, `document.querySelector("article.room [data-follow]").innerText.replace(/\s+/g, " ").trim()`)
	}
	if said := follow(); !strings.Contains(said, "Your notebook pages follow the host; this page stays here.") || strings.Contains(said, "another page") || strings.Contains(said, "goes there") {
		t.Errorf("a member on the room page reads %q", said)
	}
	mark(cat, "the room page")
	cat.click("article.room [data-follow-stop]")
	within(cat, "following stopped", `document.querySelector("article.room [data-follow-off]")?.hidden === false`)
	cat.click("article.room [data-follow-start]")
	within(cat, "following again", `document.querySelector("article.room [data-follow-on]")?.hidden === false`)
	assertMarked(cat, "the room page") // Follow the host moved the room page before
	viewShot(t, cat, "qa2-member-room-follow-1280", "article.room .room-presenting")

	// Defect 4: the host's lab run, long enough to watch, while Cat reads block 2 on a laptop.
	cat.open("/blocks/2")
	streamOpen(cat)
	host.open(roomPath)
	streamOpen(host)
	host.click("details.room-lab-form summary")
	host.retype("#room-lab-jobs", "2000")
	host.click(".room-lab-run button[type=submit]")
	if err := cat.poll(`document.querySelector("details.roombar-lab")?.open && !!document.querySelector(".roombar-lab .lab-status[data-running]")`, 30*time.Second); err != nil {
		t.Fatalf("the running lab box unfolded in Cat's bar at 1,280: %v", err)
	}
	g := browserEval[barGeometry](cat, barGeometryJS)
	t.Logf("1280x800, run going: bar %.0f px, lab box %.0f px (of %.0f), heading at y = %.0f", g.Bar, g.Body, g.BodyScroll, g.H1)
	if g.H1 > 800 || g.Body > 0.35*800+1 {
		t.Errorf("1280x800 with the run going: the heading at y = %.0f, the lab box %.0f px tall", g.H1, g.Body)
	}
	viewShot(t, cat, "qa2-member-bar-lab-running-1280", "")
	if err := cat.poll(`!!document.querySelector(".roombar-lab [data-ended]")`, 3*time.Minute); err != nil {
		t.Fatalf("the run never ended in Cat's bar: %v", err)
	}
	if err := cat.poll(`!document.querySelector("details.roombar-lab").open`, roomWait); err != nil {
		g := browserEval[barGeometry](cat, barGeometryJS)
		t.Errorf("the ended run stays unfolded in the bar at 1,280: bar %.0f px, heading at y = %.0f", g.Bar, g.H1)
	}
	g = browserEval[barGeometry](cat, barGeometryJS)
	t.Logf("1280x800, run ended: bar %.0f px, heading at y = %.0f", g.Bar, g.H1)
	if g.H1 > 800 {
		t.Errorf("1280x800 with the run ended: the heading at y = %.0f", g.H1)
	}
	viewShot(t, cat, "qa2-member-bar-lab-ended-1280", "")
	// Opened by the reader: it stays open, bounded, scrolling inside.
	cat.click("details.roombar-lab summary")
	g = browserEval[barGeometry](cat, barGeometryJS)
	t.Logf("1280x800, opened by the reader: lab box %.0f px of %.0f, heading at y = %.0f", g.Body, g.BodyScroll, g.H1)
	if !g.Open || g.Body > 0.35*800+1 || g.BodyScroll <= g.Body || g.H1 > 800 {
		t.Errorf("1280x800, the ended run opened by the reader: %+v; want open, at most 280 px tall and scrolling inside, the heading on screen", g)
	}
	browserEval[chromedp.Void](cat, `window.scrollTo(0, 0)`)
	viewShot(t, cat, "qa2-member-bar-lab-opened-1280", "")
	for _, wide := range browserEval[[]string](cat, cat.script("sideways-overflow.js")) {
		t.Errorf("the bar with the lab box open at 1,280 overflows sideways: %s", wide)
	}
	// A change in the room redraws the bar; the box the reader opened stays open.
	mark(cat, "the lab box opened")
	roomPost(t, host, roomPath+"/locked", "locked=true")
	within(cat, "the bar saying the room is locked", `/locked/.test(document.querySelector(".roombar .room-status")?.textContent)`)
	if !browserEval[bool](cat, `document.querySelector("details.roombar-lab").open`) {
		t.Error("the lab box the reader opened folded when the room changed")
	}
	assertMarked(cat, "the lab box opened")
	roomPost(t, host, roomPath+"/locked", "locked=false")

	// On a phone, light and dark: folded, and bounded when opened.
	for _, scheme := range []string{"light", "dark"} {
		cat.emulate(390, 844, true, scheme)
		cat.open("/blocks/2")
		within(cat, "the bar at 390", `!!document.querySelector(".roombar-lab [data-ended]")`)
		g = browserEval[barGeometry](cat, barGeometryJS)
		if g.Open || g.H1 > 844 {
			t.Errorf("390x844 %s: the ended run's box open %v, the heading at y = %.0f", scheme, g.Open, g.H1)
		}
		cat.click("details.roombar-lab summary")
		g = browserEval[barGeometry](cat, barGeometryJS)
		t.Logf("390x844 %s, opened: bar %.0f px, lab box %.0f px of %.0f, heading at y = %.0f", scheme, g.Bar, g.Body, g.BodyScroll, g.H1)
		if !g.Open || g.Body > 0.35*844+1 || g.H1 > 844 {
			t.Errorf("390x844 %s, opened by the reader: %+v", scheme, g)
		}
		for _, wide := range browserEval[[]string](cat, cat.script("sideways-overflow.js")) {
			t.Errorf("the bar at 390 %s overflows sideways: %s", scheme, wide)
		}
		browserEval[chromedp.Void](cat, `window.scrollTo(0, 0)`)
		viewShot(t, cat, "qa2-member-bar-lab-opened-390-"+scheme, "")
	}

	// Defect 10: a revealed round and an open one (the earlier rounds' table, the round), the lab
	// box and the host's forms: axe finds nothing on the room page, as host and as member.
	roomPost(t, host, roomPath+"/rounds", "question=custom&text=How+many+escape%3F&min=0&max=2000")
	roomPost(t, cat, roomPath+"/rounds/1/guess", "value=450")
	roomPost(t, host, roomPath+"/rounds/1/reveal", "measured=195")
	roomPost(t, host, roomPath+"/rounds", "question=custom&text=How+many+now%3F&min=0&max=2000")
	cat.emulate(390, 844, true, "dark")
	for _, tb := range []*browserTab{host, cat} {
		tb.open(roomPath)
		within(tb, "the room page with its history", `!!document.querySelector("#room-history table") && !!document.querySelector(".room-lab .lab-status")`)
		if dup := browserEval[[]string](tb, `[...document.querySelectorAll("[id]")].map(e => e.id).filter((id, i, all) => all.indexOf(id) !== i)`); len(dup) > 0 {
			t.Errorf("ids used twice on the room page: %v", dup)
		}
	}
	viewShot(t, cat, "qa2-member-room-390-dark", "")
	roomAxe(t, map[string]*browserTab{"host's room page": host, "member's room page": cat})

	// Defect 6: a handler with lines of 77 characters on the projector, whole at 1,920 and 1,280.
	roomPost(t, host, roomPath+"/rounds/2/reveal", "measured=10")
	// A window no handler survives: the host confirms opening it (the round teaches just that).
	roomPost(t, host, roomPath+"/rounds", "kind=handler&template=window&reference=window&confirmed=yes&params="+url.QueryEscape("key_window=1000&max_delay=2000"))
	roomPost(t, host, roomPath+"/rounds/3/reveal", "")
	roomPost(t, host, roomPath+"/rounds/3/projector", "shown=reference")
	screen := siblingTab(t, host)
	for _, view := range []struct{ w, h int64 }{{1920, 1080}, {1280, 800}} {
		screen.emulate(view.w, view.h, false, "light")
		screen.open(roomPath + "/projector")
		within(screen, "the reference on the projector", `!!document.querySelector("[data-shown-handler] pre")`)
		type fit struct{ Client, Scroll, Longest float64 }
		f := browserEval[fit](screen, `(() => { const p = document.querySelector("[data-shown-handler] pre");
			return {Client: p.clientWidth, Scroll: p.scrollWidth, Longest: Math.max(...p.textContent.split("\n").map(l => l.length))}; })()`)
		t.Logf("projector %dx%d: the source %.0f px wide, %.0f px of content, longest line %.0f characters", view.w, view.h, f.Client, f.Scroll, f.Longest)
		if f.Longest < 70 {
			t.Fatalf("the source's longest line is %.0f characters: the check proves nothing", f.Longest)
		}
		if f.Scroll > f.Client+1 {
			t.Errorf("projector %dx%d: the source shows %.0f px of %.0f", view.w, view.h, f.Client, f.Scroll)
		}
		for _, wide := range browserEval[[]string](screen, screen.script("sideways-overflow.js")) {
			t.Errorf("the projector at %d overflows sideways: %s", view.w, wide)
		}
		// Nor is the check beside it cut: its table shows every column.
		if cut := browserEval[float64](screen, `(w => w.scrollWidth - w.clientWidth)(document.querySelector("[data-shown-handler] .table-wrap"))`); cut > 1 {
			t.Errorf("projector %dx%d: the check's table is cut by %.0f px", view.w, view.h, cut)
		}
		viewShot(t, screen, "qa2-projector-handler-"+strconv.FormatInt(view.w, 10), "[data-shown-handler]")
	}
	for who, tb := range map[string]*browserTab{"host": host, "Cat": cat, "projector": screen} {
		for _, p := range tb.takeProblems() {
			t.Errorf("%s's tab reported: %s", who, p)
		}
	}
}

// TestBrowserProjectorSaysItStopped: over a real listener (its stream bounds), the host opens the
// projector in a browser a host link made the host, then their other screens take every stream
// the host's key may hold and one more. The projector, the oldest, keeps what it showed under a
// line saying it stopped updating and how to take it back; it used to freeze without a word.
func TestBrowserProjectorSaysItStopped(t *testing.T) {
	cfg := testConfig()
	cfg.RoomStreamsPerKey = 1 // the host's key may hold 1 + HostExtraStreams
	s := newTestServer(t, cfg)
	base := serveLoopback(t, s)
	b := &browserSuite{ctx: startChromium(t, findChromium(t)), base: base}
	api := memberClient()
	var room created
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Two screens"}`, http.StatusCreated, &room)
	rb := base + "/api/rooms/" + room.Code
	mustAPI(t, api, "POST", rb+"/rounds", room.HostKey, `{"question":"q1"}`, http.StatusCreated, nil)

	screen := openRoomTab(t, b)
	screen.emulate(1920, 1080, false, "light")
	u, err := url.Parse(room.HostURL)
	if err != nil {
		t.Fatal(err)
	}
	screen.open(u.RequestURI())
	screen.click(`main form button[type="submit"]`) // "Yes, make this browser the host"
	within(screen, "the host's room page", `!!document.querySelector("article.room [data-join-code]")`)
	roomPath := browserEval[string](screen, `location.pathname`)
	screen.open(roomPath + "/projector")
	within(screen, "the projector's round", `!!document.querySelector(".projector [data-round]")`)
	streamOpen(screen)
	// The room page's stream goes when its tab leaves; the projector's is then the host's only one.
	deadline := time.Now().Add(roomWait)
	for s.conns.OpenStreams() != 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := s.conns.OpenStreams(); n != 1 {
		t.Fatalf("%d streams held with the projector alone open", n)
	}
	for i := range cfg.RoomStreamsPerKey + roomsweb.HostExtraStreams { // the last one ends the projector's
		status, st, err := openStream(t.Context(), streamClient(), rb+"/events", room.HostKey)
		if err != nil || status != http.StatusOK {
			t.Fatalf("the host's stream %d from another screen: %d %v", i+1, status, err)
		}
		defer st.Close()
		if _, err := st.Snapshot(streamWait, pages.RoomParts); err != nil {
			t.Fatal(err)
		}
	}
	within(screen, "the projector saying it stopped", `!!document.querySelector(".projector [data-stream-ended]")`)
	said := browserEval[string](screen, `document.querySelector(".projector [data-stream-ended]").innerText.trim()`)
	if said != "This view stopped updating: the room is open in another tab of this browser or on another of your devices. Reload to take it back." {
		t.Errorf("the ended projector reads %q", said)
	}
	if !browserEval[bool](screen, `!!document.querySelector(".projector [data-join-code]") && !!document.querySelector(".projector [data-round]")`) {
		t.Error("the ended projector lost what it showed")
	}
	browserEval[chromedp.Void](screen, `window.scrollTo(0, 0)`)
	viewShot(t, screen, "qa2-projector-stopped-1920", "")
	if p := screen.takeProblems(); len(p) > 0 {
		t.Errorf("the projector's tab reported: %v", p)
	}
}
