package site

// What a host and members see and use in a room, through the whole middleware stack: the top bar
// inside a room, the notebook page a back button restores, what a host may present, removing a
// member, the numbers a round can ask about.

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"effectivelyonce/pages"
)

// TestTopBarInsideARoom checks that a visitor inside a room (on the room's page, or on a notebook
// page under the room bar) is not offered to start or join another room, and that anyone else is.
func TestTopBarInsideARoom(t *testing.T) {
	s := newTestServer(t, testConfig())
	host, ada, stranger := newBrowser(t, s), newBrowser(t, s), newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Top bar")
	joinAs(t, ada, codeOf(t, host, roomPath), "Ada")
	const offer = "Start a study room"
	for _, c := range []struct {
		who    string
		b      *browser
		target string
		offers bool
	}{
		{"the host on the room page", host, roomPath, false},
		{"the host under the bar", host, "/blocks/4", false},
		{"a member on the room page", ada, roomPath, false},
		{"a member under the bar", ada, "/blocks/2", false},
		{"a stranger", stranger, "/blocks/4", true},
	} {
		r := c.b.get(c.target)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %s answered %d", c.who, c.target, r.status)
		}
		top := r.body[strings.Index(r.body, `<header class="top">`):]
		top = top[:strings.Index(top, "</header>")]
		if got := strings.Contains(top, offer); got != c.offers {
			t.Errorf("%s at %s: the top bar offers %q: %v, want %v", c.who, c.target, offer, got, c.offers)
		}
	}
	// A member who hid the bar keeps the seat: under the top bar, one line offers the bar back
	// (the room's page is no longer the only way), in place of the offer of another room.
	ada.post(roomPath+"/leave", url.Values{"return": {"/blocks/2"}})
	if r := ada.get("/blocks/2"); !strings.Contains(r.body, "Show the bar") || !strings.Contains(r.body, roomPath+"/show") {
		t.Errorf("after hiding the bar the page does not offer it back")
	}
}

// TestBackButtonKeepsTheRoomBar checks what htmx's history restore gets: it asks for a page it has
// no copy of with HX-Request and HX-History-Restore-Request, and swaps the whole body with the
// answer, so the answer must be the whole page, the room bar included; and every answer that
// depends on HX-Request says so in Vary, so no cache hands a fragment to a plain visit.
func TestBackButtonKeepsTheRoomBar(t *testing.T) {
	s := newTestServer(t, testConfig())
	host, ada := newBrowser(t, s), newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Back and forth")
	joinAs(t, ada, codeOf(t, host, roomPath), "Ada")
	restore := ada.send("GET", "/blocks/4?max_delay=5000", nil, true, "HX-History-Restore-Request", "true", "HX-Current-URL", "http://example.com/blocks/4")
	if restore.status != http.StatusOK || !strings.Contains(restore.body, `class="roombar"`) || !strings.Contains(restore.body, "<html") {
		t.Errorf("history restore: %d, full page %v, room bar %v", restore.status, strings.Contains(restore.body, "<html"), strings.Contains(restore.body, `class="roombar"`))
	}
	for _, r := range []response{restore, ada.get("/blocks/4"), ada.send("GET", "/blocks/4", nil, true, "HX-Target", "exp-window")} {
		if !strings.Contains(strings.Join(r.header.Values("Vary"), ","), "HX-Request") {
			t.Errorf("Vary %q, want it to name HX-Request", r.header.Values("Vary"))
		}
	}
}

// TestPresentRefusesWhatFollowersCannotOpen checks that the host can present only a page of the
// notebook with parameters it takes, and is told why otherwise, from the page and from the API;
// followers are never sent to an error.
func TestPresentRefusesWhatFollowersCannotOpen(t *testing.T) {
	s := newTestServer(t, testConfig())
	host := newBrowser(t, s)
	roomPath, hostKey := startRoom(t, host, "Presenting")
	code := codeOf(t, host, roomPath)
	for path, want := range map[string]string{
		"/nope":                             "/nope is not a page of the notebook",
		"/blocks/4?max_delay=abc":           "max_delay",
		"/blocks/4?window-grid.windows=0":   "window-grid.windows",
		"/rooms/" + roomPath[7:]:            "is not a page of the notebook",
		"/jobs/window?outcome=escaped":      "is not a page of the notebook",
		"/blocks/4?max_delay=5000&jobs=%zz": "URL-encoded",
		"https://evil.example/blocks/4":     "path of this site",
	} {
		r := host.send("POST", roomPath+"/present", url.Values{"path": {path}}, true)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, want) {
			t.Errorf("presenting %s: %d %q, want 422 saying %q", path, r.status, r.body, want)
		}
		api := call(t, s, "POST", "/api/rooms/"+code+"/present", hostKey, `{"path":`+quote(path)+`}`)
		if api.status != http.StatusBadRequest || !strings.Contains(api.body, `"field":"path"`) {
			t.Errorf("presenting %s through the API: %d %s, want 400 naming path", path, api.status, api.body)
		}
	}
	var st roomJSON
	must(t, call(t, s, "GET", "/api/rooms/"+code, hostKey, ""), http.StatusOK, &st)
	if st.Presenting != "" {
		t.Errorf("a refused path is presented: %q", st.Presenting)
	}
	for _, path := range []string{"/blocks/4?max_delay=5,000", "/", "/lab", "/blocks/6?timeouts=5,30"} {
		if r := host.send("POST", roomPath+"/present", url.Values{"path": {path}}, true); r.status != http.StatusNoContent {
			t.Errorf("presenting %s: %d %s", path, r.status, r.body)
		}
	}
}

// TestPresentingLineNamesThePage checks the line followers read: the page's name and only the
// parameters that differ from its defaults, in words and decoded, however long the permalink
// the host presented (after a Run it carries every field of every form on the page).
func TestPresentingLineNamesThePage(t *testing.T) {
	s := newTestServer(t, testConfig())
	host, ada := newBrowser(t, s), newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Lines")
	joinAs(t, ada, codeOf(t, host, roomPath), "Ada")
	long := "/blocks/4?jobs=20000&crash_rate=0.02&seed=13&delay_seed=17&max_delay=5000&windows=100%2C500%2C1000%2C1500%2C2000%2C5000" +
		"&window-grid.max_delays=200%2C1000%2C5000%2C20000&window-grid.windows=500%2C2000%2C10000"
	if r := host.send("POST", roomPath+"/present", url.Values{"path": {long}}, true); r.status != http.StatusNoContent {
		t.Fatalf("present: %d %s", r.status, r.body)
	}
	const want = "4 · The bounded dedup window (max redelivery delay 5,000 jobs)"
	for who, page := range map[string]string{"the member's bar": ada.get("/blocks/2").body, "the member's room page": ada.get(roomPath).body,
		"the host's room page": host.get(roomPath).body} {
		i := strings.Index(page, `<div class="presenting"`)
		if i < 0 {
			t.Fatalf("%s: no presenting line", who)
		}
		line := text(page[i : i+strings.Index(page[i:], "</p>")])
		if !strings.Contains(line, want) || strings.Contains(line, "%2C") || strings.Contains(line, "crash_rate") {
			t.Errorf("%s says %q, want %q", who, line, want)
		}
	}
	if r := host.send("POST", roomPath+"/present", url.Values{"path": {"/blocks/4?windows=100,500&window-grid.windows=700"}}, true); r.status != http.StatusNoContent {
		t.Fatal(r.status)
	}
	page := ada.get("/blocks/2").body
	if !strings.Contains(page, "(dedup windows 100, 500 ids; dedup windows 700 ids)") {
		i := strings.Index(page, `<div class="presenting"`)
		t.Errorf("both forms' moved values: %q", text(page[max(i, 0):max(i, 0)+600]))
	}
}

// optionFor finds, in a page, the value of the option of the host's number list whose words are
// words, or "" when there is none.
func optionFor(page, words string) string {
	m := regexp.MustCompile(`<option value="([^"]*)">` + regexp.QuoteMeta(words) + `</option>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// TestRoundOnANumberInWords checks a round on an experiment's number: the host picks it from a list
// in words with its row (the presented page's numbers, once its runs are made; or any
// experiment's, listed by title at parameters the host types), never a CSV column; members read
// the question naming it; the reveal measures that very number from the run's typed counts; and
// the API refuses a number reported at several rows unless the row is named.
func TestRoundOnANumberInWords(t *testing.T) {
	s := newTestServer(t, testConfig())
	host, ada := newBrowser(t, s), newBrowser(t, s)
	roomPath, hostKey := startRoom(t, host, "Numbers")
	code := codeOf(t, host, roomPath)
	joinAs(t, ada, code, "Ada")
	if page := host.get(roomPath).body; strings.Contains(page, `id="round-number"`) {
		t.Fatal("numbers offered while nothing is presented")
	}
	if r := host.send("POST", roomPath+"/present", url.Values{"path": {"/blocks/4?max_delay=5000"}}, true); r.status != http.StatusNoContent {
		t.Fatalf("present: %d %s", r.status, r.body)
	}
	host.get("/blocks/4?max_delay=5000") // the host looks at the page presented, which runs it
	page := host.get(roomPath).body
	const words = "escaped duplicates at window 1,000"
	number := optionFor(page, words)
	if number == "" || !strings.Contains(page, `label="Escape rate versus dedup window, with max redelivery delay 5,000 jobs"`) {
		t.Fatalf("the presented page's numbers are not offered in words at its parameters")
	}
	if strings.Contains(page, "escaped_duplicates") || !strings.Contains(page, ">Double executions versus visibility timeout</option>") {
		t.Errorf("the round form shows a CSV column, or lists experiments by id")
	}
	if r := host.send("POST", roomPath+"/rounds", url.Values{"number": {number}}, true); r.status != http.StatusNoContent {
		t.Fatalf("open a round on %q: %d %s", number, r.status, r.body)
	}
	const question = "How many escaped duplicates at window 1,000? (Escape rate versus dedup window, with max redelivery delay 5,000 jobs)"
	if !strings.Contains(ada.get(roomPath).body, question) || !strings.Contains(ada.get("/blocks/1").body, question) {
		t.Errorf("the member's page and bar do not ask %q", question)
	}
	r := call(t, s, "POST", "/api/rooms/"+code+"/rounds/1/reveal", hostKey, "")
	var res resultJSON
	must(t, r, http.StatusOK, &res)
	if res.Measured != 317 {
		t.Errorf("measured %v, want 317: the escaped duplicates at window 1,000 with max delay 5,000", res.Measured)
	}

	// Any experiment, listed by title at parameters the host types; a refusal says why in the form.
	page = host.get(roomPath + "?experiment=lease&params=" + url.QueryEscape("timeouts=5,30")).body
	if optionFor(page, "jobs run twice without renewal at timeout 30 s") == "" || !strings.Contains(page, `<details class="room-new-round" id="new-round" open`) {
		t.Errorf("the lease's numbers at timeouts 5 and 30 are not listed")
	}
	if bad := host.get(roomPath + "?experiment=lease&params=" + url.QueryEscape("timeouts=abc")); bad.status != http.StatusOK ||
		!strings.Contains(bad.body, `id="list-params-error"`) || !strings.Contains(bad.body, `value="timeouts=abc"`) {
		t.Errorf("listing at parameters the experiment refuses: %d, no error beside the field, or the value lost", bad.status)
	}

	// The API: a count at several rows needs its row; named, it is found.
	base := "/api/rooms/" + code + "/rounds"
	if r := call(t, s, "POST", base, hostKey, `{"experiment":"window","params":"max_delay=5000","measure":"escaped"}`); r.status != http.StatusBadRequest || !strings.Contains(r.body, `"field":"point"`) {
		t.Errorf("a count at several rows without its row: %d %s", r.status, r.body)
	}
	must(t, call(t, s, "POST", base, hostKey, `{"experiment":"window","params":"max_delay=5000","measure":"escaped","point":"1000"}`), http.StatusCreated, nil)
	var st roomJSON
	must(t, call(t, s, "GET", "/api/rooms/"+code, hostKey, ""), http.StatusOK, &st)
	if q := st.Rounds[len(st.Rounds)-1].Question; q.Point != "1000" || q.Text != question || q.Unit != "escaped duplicates" {
		t.Errorf("the API's round asks %+v", q)
	}
}

// TestPinHeadlineInTheBackground checks that no render waits for a pin's run: with every run
// slot held, a pin still reaches the board at once (without its headline), the room page answers,
// and once a slot frees the headline arrives on the open stream by itself, with nobody acting.
func TestPinHeadlineInTheBackground(t *testing.T) {
	cfg := testConfig()
	cfg.QueueWait = time.Minute // a run waits for a slot for as long as the test holds them all
	s := newTestServer(t, cfg)
	base := serveLoopback(t, s)
	api := memberClient()
	var room created
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Headlines"}`, http.StatusCreated, &room)
	var ada struct {
		Key string `json:"member_key"`
	}
	mustAPI(t, api, "POST", base+"/api/rooms/"+room.Code+"/members", "", `{"name":"Ada"}`, http.StatusCreated, &ada)
	status, stream, err := openStream(t.Context(), streamClient(), base+"/api/rooms/"+room.Code+"/events", room.HostKey)
	if err != nil || status != http.StatusOK {
		t.Fatalf("host stream: %d %v", status, err)
	}
	defer stream.Close()
	if _, err := stream.Snapshot(streamWait, pages.RoomParts); err != nil {
		t.Fatal(err)
	}

	release := s.runner.Hold(true)
	defer release()

	mustAPI(t, api, "POST", base+"/api/rooms/"+room.Code+"/pins", ada.Key, `{"path":"/blocks/2?seed=99","note":"while busy"}`, http.StatusCreated, nil)
	board, _, err := stream.Until(streamWait, named(pages.PartBoard, "while busy"))
	if err != nil {
		t.Fatalf("the pin did not reach the board while every run slot was held: %v", err)
	}
	if strings.Contains(board.Data, "pin-headline") {
		t.Fatalf("a headline was shown while no run could be made: %s", board.Data)
	}
	id := roomIDOf(t, map[string]string{"board": board.Data})
	code, page, err := apiCall(api, "GET", base+"/rooms/"+id, room.HostKey, "")
	if err != nil || code != http.StatusOK || !strings.Contains(page, "while busy") {
		t.Fatalf("the room page while every slot was held: %d %v", code, err)
	}

	release()
	if _, _, err := stream.Until(streamWait, named(pages.PartBoard, "while busy", `class="pin-headline"`)); err != nil {
		t.Errorf("the headline never arrived on the stream once a slot was free: %v", err)
	}
}

// TestRemovingAMember checks that removing a member asks first (the button says what it asks
// with script; without script the server asks on a page of its own, and only its yes removes), and
// that the removed member's bar offers nothing any more: no "Stop following", no pin form.
func TestRemovingAMember(t *testing.T) {
	s := newTestServer(t, testConfig())
	host := newBrowser(t, s)
	roomPath, hostKey := startRoom(t, host, "Removals")
	code := codeOf(t, host, roomPath)
	ada := newBrowser(t, s)
	joinAs(t, ada, code, "Ada")
	id := memberID(t, s, code, hostKey)
	kick := roomPath + "/members/" + id + "/kick"

	page := host.get(roomPath).body
	if !strings.Contains(page, `action="`+kick+`"`) || !strings.Contains(page, `data-confirm="`+html.EscapeString(pages.KickQuestion("Ada"))+`"`) {
		t.Errorf("the remove button does not ask before it removes")
	}
	ask := host.post(kick, url.Values{})
	if ask.status != http.StatusOK || !strings.Contains(ask.body, html.EscapeString(pages.KickQuestion("Ada"))) ||
		!strings.Contains(ask.body, `name="confirmed" value="yes"`) {
		t.Fatalf("removing without script: %d, want a page that asks", ask.status)
	}
	if r := ada.get(roomPath); r.status != http.StatusOK {
		t.Fatalf("a member was removed before the host confirmed: %d", r.status)
	}
	if r := ada.post(kick, url.Values{}); r.status != http.StatusForbidden {
		t.Errorf("a member asking to remove another: %d, want 403 before any question", r.status)
	}

	// Ada follows the host on a notebook page; then the host confirms.
	if r := host.send("POST", roomPath+"/present", url.Values{"path": {"/blocks/4"}}, true); r.status != http.StatusNoContent {
		t.Fatal(r.status)
	}
	base := serveLoopback(t, s)
	var seat struct {
		Key string `json:"member_key"`
	}
	mustAPI(t, memberClient(), "POST", base+"/api/rooms/"+code+"/members", "", `{"name":"Bea"}`, http.StatusCreated, &seat)
	status, bar, err := openStream(t.Context(), streamClient(), base+"/api/rooms/"+code+"/events?view=bar", seat.Key)
	if err != nil || status != http.StatusOK {
		t.Fatalf("Bea's bar stream: %d %v", status, err)
	}
	defer bar.Close()
	snap, err := bar.Snapshot(streamWait, pages.BarParts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(snap[pages.PartPresenting], "data-follow-stop") || !strings.Contains(snap[pages.PartTools], "pin-form") {
		t.Fatalf("Bea's bar before the removal offers no following or no pin form")
	}
	bea := memberIDNamed(t, s, code, hostKey, "Bea")
	if r := host.post(roomPath+"/members/"+bea+"/kick", url.Values{"confirmed": {"yes"}}); r.status != http.StatusSeeOther {
		t.Fatalf("confirmed removal: %d", r.status)
	}
	_, before, err := bar.Until(streamWait, named(pages.PartStatus, "the host removed your seat"))
	if err != nil {
		t.Fatal(err)
	}
	emptied := map[string]bool{}
	for _, ev := range before {
		emptied[ev.Name] = strings.TrimSpace(ev.Data) == ""
	}
	for _, part := range []string{pages.PartPresenting, pages.PartTools, pages.PartRound} {
		if !emptied[part] {
			t.Errorf("after the removal Bea's bar still holds its %s part (Stop following, the pin form or the guess)", part)
		}
	}
}

// memberIDNamed is the id of the seated member called name, from the host's view.
func memberIDNamed(t *testing.T, s *Server, code, hostKey, name string) string {
	t.Helper()
	var st roomJSON
	must(t, call(t, s, "GET", "/api/rooms/"+code, hostKey, ""), http.StatusOK, &st)
	for _, m := range st.Roster {
		if m.Name == name {
			return m.ID
		}
	}
	t.Fatalf("no member called %s", name)
	return ""
}

// partRenders reads how many times the streams drew each room part, from /metrics.
func partRenders(t *testing.T, s *Server) map[string]int {
	t.Helper()
	out := map[string]int{}
	r := call(t, s, "GET", "/metrics", "", "")
	for _, m := range regexp.MustCompile(`site_room_part_renders_total\{part="(\w+)"\} (\d+)`).FindAllStringSubmatch(r.body, -1) {
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = n
	}
	return out
}

// TestRoomBoundsAndRedraws checks that a room's rounds and its board are bounded (a refusal that
// names what is full), and that a stream does not draw the board or the earlier rounds again for
// a change that touches neither: a guess redraws the count alone.
func TestRoomBoundsAndRedraws(t *testing.T) {
	cfg := testConfig()
	cfg.Rooms.MaxRounds, cfg.Rooms.MaxBoard = 3, 4
	s := newTestServer(t, cfg)
	base := serveLoopback(t, s)
	api := memberClient()
	var room created
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Bounded"}`, http.StatusCreated, &room)
	rb := base + "/api/rooms/" + room.Code
	keys := map[string]string{}
	for _, name := range []string{"Ada", "Bea", "Cy"} {
		var j struct {
			Key string `json:"member_key"`
		}
		mustAPI(t, api, "POST", rb+"/members", "", `{"name":"`+name+`"}`, http.StatusCreated, &j)
		keys[name] = j.Key
	}
	for i := range 3 {
		mustAPI(t, api, "POST", rb+"/rounds", room.HostKey, `{"question":"q`+strconv.Itoa(i+1)+`"}`, http.StatusCreated, nil)
	}
	if code, body, _ := apiCall(api, "POST", rb+"/rounds", room.HostKey, `{"question":"q4"}`); code != http.StatusConflict ||
		!strings.Contains(body, `"field":"rounds"`) || !strings.Contains(body, "at most 3") {
		t.Errorf("a fourth round in a room of 3: %d %s", code, body)
	}
	for i := range 4 {
		who := []string{"Ada", "Bea"}[i%2]
		mustAPI(t, api, "POST", rb+"/pins", keys[who], `{"path":"/blocks/`+strconv.Itoa(i+1)+`","note":"pin `+strconv.Itoa(i)+`"}`, http.StatusCreated, nil)
	}
	if code, body, _ := apiCall(api, "POST", rb+"/pins", keys["Cy"], `{"path":"/blocks/6","note":"one too many"}`); code != http.StatusConflict ||
		!strings.Contains(body, `"field":"board"`) {
		t.Errorf("a fifth pin on a board of 4: %d %s", code, body)
	}

	status, stream, err := openStream(t.Context(), streamClient(), rb+"/events", keys["Ada"])
	if err != nil || status != http.StatusOK {
		t.Fatalf("Ada's stream: %d %v", status, err)
	}
	defer stream.Close()
	snap, err := stream.Snapshot(streamWait, pages.RoomParts)
	if err != nil {
		t.Fatal(err)
	}
	// The board's headlines arrive in the background: wait until the board shows all four.
	if strings.Count(snap[pages.PartBoard], `class="pin-headline"`) < 4 {
		if _, _, err := stream.Until(streamWait, func(ev sseEvent) bool {
			return ev.Name == pages.PartBoard && strings.Count(ev.Data, `class="pin-headline"`) == 4
		}); err != nil {
			t.Fatalf("the board's headlines: %v", err)
		}
	}
	before := partRenders(t, s)
	mustAPI(t, api, "PUT", rb+"/rounds/3/guess", keys["Bea"], `{"value":12}`, http.StatusNoContent, nil)
	if _, _, err := stream.Until(streamWait, func(ev sseEvent) bool {
		return ev.Name == pages.PartCount && text(ev.Data) == "1 of 3 answered"
	}); err != nil {
		t.Fatal(err)
	}
	after := partRenders(t, s)
	if after[pages.PartCount] <= before[pages.PartCount] {
		t.Fatalf("the count was not drawn for the guess: %v then %v", before, after)
	}
	for _, part := range []string{pages.PartBoard, pages.PartHistory} {
		if after[part] != before[part] {
			t.Errorf("a guess drew the %s again (%d times before, %d after)", part, before[part], after[part])
		}
	}
	// A change of the board's own draws it again.
	mustAPI(t, api, "POST", rb+"/rounds/3/lock", room.HostKey, "", http.StatusOK, nil)
	if _, _, err := stream.Until(streamWait, named(pages.PartRound, "answers locked")); err != nil {
		t.Fatal(err)
	}
	if got := partRenders(t, s); got[pages.PartBoard] != after[pages.PartBoard] {
		t.Errorf("locking the round drew the board again")
	}
}
