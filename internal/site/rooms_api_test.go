package site

import (
	"effectivelyonce/internal/web/roomsweb"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// call sends a JSON request with a bearer key (none when key is "") through the whole middleware
// stack. header adds or overrides headers.
func call(t *testing.T, s *Server, method, target, key, body string, header ...string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

// must checks the status and decodes the body into v (when v is not nil).
func must(t *testing.T, r response, status int, v any) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.body), v); err != nil {
			t.Fatalf("%v: %s", err, r.body)
		}
	}
}

func createRoom(t *testing.T, s *Server, title string) created {
	t.Helper()
	var c created
	must(t, call(t, s, "POST", "/api/rooms", "", `{"title":`+quote(title)+`}`), http.StatusCreated, &c)
	return c
}

func join(t *testing.T, s *Server, code, name string) string {
	t.Helper()
	var j struct {
		Key string `json:"member_key"`
	}
	must(t, call(t, s, "POST", "/api/rooms/"+code+"/members", "", `{"name":`+quote(name)+`}`), http.StatusCreated, &j)
	if j.Key == "" {
		t.Fatal("no member key")
	}
	return j.Key
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRoomSession scripts a whole session through the API, as a host's script would.
func TestRoomSession(t *testing.T) {
	s := newTestServer(t, testConfig())
	room := createRoom(t, s, "Tuesday group")
	if len(room.Code) != 6 || room.HostKey == "" || !strings.HasSuffix(room.JoinURL, "/j/"+room.Code) ||
		!strings.Contains(room.HostURL, "/rooms/") || !strings.Contains(room.HostURL, "/host?token=") || strings.Contains(room.HostURL, room.HostKey) {
		t.Fatalf("created %+v", room)
	}
	base := "/api/rooms/" + room.Code
	ada := join(t, s, room.Code, "Ada")
	bob := join(t, s, room.Code, "Bob")
	if r := call(t, s, "POST", base+"/members", "", `{"name":"ada"}`); r.status != http.StatusConflict || !strings.Contains(r.body, `"field":"name"`) {
		t.Errorf("duplicate name: %d %s", r.status, r.body)
	}
	if r := call(t, s, "POST", "/api/rooms/ZZZZZZ/members", "", `{"name":"Cy"}`); r.status != http.StatusNotFound {
		t.Errorf("unknown code: %d %s", r.status, r.body)
	}

	var round struct{ Seq int }
	must(t, call(t, s, "POST", base+"/rounds", room.HostKey, `{"question":"q1"}`), http.StatusCreated, &round)
	if round.Seq != 1 {
		t.Fatalf("seq %d", round.Seq)
	}
	if r := call(t, s, "POST", base+"/rounds", ada, `{"question":"q2"}`); r.status != http.StatusForbidden {
		t.Errorf("member opened a round: %d", r.status)
	}
	guess := base + "/rounds/1/guess"
	must(t, call(t, s, "PUT", guess, ada, `{"value":100}`), http.StatusNoContent, nil)
	must(t, call(t, s, "PUT", guess, ada, `{"value":350}`), http.StatusNoContent, nil) // a change of mind
	must(t, call(t, s, "PUT", guess, bob, `{"value":500}`), http.StatusNoContent, nil)
	if r := call(t, s, "PUT", guess, room.HostKey, `{"value":1}`); r.status != http.StatusForbidden {
		t.Errorf("host guessed: %d", r.status)
	}

	var st roomJSON
	must(t, call(t, s, "GET", base, room.HostKey, ""), http.StatusOK, &st)
	if st.Role != "host" || len(st.Roster) != 2 || len(st.Rounds) != 1 {
		t.Fatalf("host state %+v", st)
	}
	if rd := st.Rounds[0]; rd.Answered != 2 || rd.Of != 2 || rd.Result != nil || rd.State != "open" {
		t.Errorf("before reveal the host sees %+v, want 2 of 2 answered and no values", rd)
	}
	// Ids are random hex, which may hold "500"; a value would come as a "value" or "your_guess".
	if r := call(t, s, "GET", base, room.HostKey, ""); strings.Contains(r.body, `"value"`) || strings.Contains(r.body, `"guesses"`) || strings.Contains(r.body, "your_guess") {
		t.Errorf("a guess's value shows before the reveal: %s", r.body)
	}
	for _, path := range []string{"/rounds/1/lock", "/rounds/1/reveal"} {
		if r := call(t, s, "POST", base+path, ada, ""); r.status != http.StatusForbidden {
			t.Errorf("member %s: %d %s", path, r.status, r.body)
		}
	}

	var res resultJSON
	must(t, call(t, s, "POST", base+"/rounds/1/reveal", room.HostKey, ""), http.StatusOK, &res)
	if res.Measured != 398 || res.Median != 425 || len(res.Guesses) != 2 ||
		res.Guesses[0] != (guessJSON{Name: "Ada", Value: 350}) || res.Guesses[1] != (guessJSON{Name: "Bob", Value: 500}) {
		t.Errorf("reveal %+v, want measured 398, median 425 and both named guesses", res)
	}
	if r := call(t, s, "PUT", guess, bob, `{"value":398}`); r.status != http.StatusConflict {
		t.Errorf("guess after the reveal: %d %s", r.status, r.body)
	}
	var mine roomJSON
	must(t, call(t, s, "GET", base, ada, ""), http.StatusOK, &mine)
	if g := mine.Rounds[0].Result.Guesses; len(g) != 2 || g[0].Name != "" {
		t.Errorf("a member sees names by default: %+v", g)
	}

	// A second round locked before its reveal refuses guesses at once.
	must(t, call(t, s, "POST", base+"/rounds", room.HostKey, `{"experiment":"window","params":"max_delay=5000&windows=1000","measure":"escaped"}`), http.StatusCreated, &round)
	must(t, call(t, s, "POST", base+"/rounds/2/lock", room.HostKey, ""), http.StatusOK, nil)
	if r := call(t, s, "PUT", base+"/rounds/2/guess", ada, `{"value":3}`); r.status != http.StatusConflict {
		t.Errorf("guess after lock: %d %s", r.status, r.body)
	}
	must(t, call(t, s, "POST", base+"/rounds/2/reveal", room.HostKey, ""), http.StatusOK, &res)
	if res.Measured != 317 || len(res.Guesses) != 0 {
		t.Errorf("window's escaped duplicates at max_delay=5000, window 1,000: %+v, want 317 (its table's figure)", res)
	}
	if r := call(t, s, "POST", base+"/rounds", room.HostKey, `{"experiment":"window","params":"nope=1","measure":"x"}`); r.status != http.StatusBadRequest {
		t.Errorf("unknown parameter: %d %s", r.status, r.body)
	}

	must(t, call(t, s, "POST", base+"/pins", bob, `{"path":"/blocks/4?max_delay=5000","note":"look at the tail"}`), http.StatusCreated, nil)
	if r := call(t, s, "POST", base+"/pins", room.HostKey, `{"path":"/blocks/4","note":"x"}`); r.status != http.StatusForbidden {
		t.Errorf("host pinned: %d", r.status)
	}
	must(t, call(t, s, "POST", base+"/present", room.HostKey, `{"path":"/blocks/4?max_delay=5000"}`), http.StatusNoContent, nil)
	if r := call(t, s, "POST", base+"/present", bob, `{"path":"/"}`); r.status != http.StatusForbidden {
		t.Errorf("member presented: %d", r.status)
	}
	must(t, call(t, s, "GET", base, bob, ""), http.StatusOK, &mine)
	if mine.Presenting != "/blocks/4?max_delay=5000" || len(mine.Pins) != 1 || mine.Pins[0].Name != "Bob" {
		t.Errorf("member state %+v", mine)
	}

	var ex struct {
		Version string
		Rounds  []struct {
			Measured *float64
			Guesses  []struct{ Name string }
		}
		Pins []struct{ Note string }
	}
	must(t, call(t, s, "GET", base+"/export?format=json", room.HostKey, ""), http.StatusOK, &ex)
	if ex.Version != "devel" || len(ex.Rounds) != 2 || ex.Rounds[0].Measured == nil || *ex.Rounds[0].Measured != 398 || len(ex.Rounds[0].Guesses) != 2 || len(ex.Pins) != 1 {
		t.Errorf("export %+v", ex)
	}
	csv := call(t, s, "GET", base+"/export?format=csv", room.HostKey, "")
	if csv.status != 200 || !strings.HasPrefix(csv.header.Get("Content-Type"), "text/csv") || !strings.HasPrefix(csv.body, "# version=devel\r\nrecord,") ||
		!strings.Contains(csv.body, "Ada") || !strings.Contains(csv.body, "look at the tail") {
		t.Errorf("csv export %d:\n%s", csv.status, csv.body)
	}
	if r := call(t, s, "GET", base+"/export", ada, ""); r.status != http.StatusForbidden {
		t.Errorf("member exported: %d", r.status)
	}
}

// TestRoomHostileInput: markup is stored as text and comes back escaped, bodies over 8 KB are
// refused before decoding, and wrong keys, kicked members, locked rooms and cross-site changes
// get a clear 4xx with nothing stored.
func TestRoomHostileInput(t *testing.T) {
	s := newTestServer(t, testConfig())
	room := createRoom(t, s, "Hostile")
	base := "/api/rooms/" + room.Code
	mark := join(t, s, room.Code, `<b>Mallory</b>`)
	r := call(t, s, "POST", base+"/pins", mark, `{"path":"/blocks/1","note":"<script>alert(1)</script>"}`)
	must(t, r, http.StatusCreated, nil)
	for _, target := range []string{base, base + "/export"} {
		r := call(t, s, "GET", target, room.HostKey, "")
		if r.status != 200 || strings.Contains(r.body, "<script>") || strings.Contains(r.body, "<b>") ||
			!strings.Contains(r.body, `\u003cscript\u003ealert(1)\u003c/script\u003e`) || !strings.Contains(r.body, `\u003cb\u003eMallory`) {
			t.Errorf("%s reflects markup raw or lost it: %s", target, r.body)
		}
	}

	big := `{"title":"` + strings.Repeat("x", 9000) + `"}`
	if r := call(t, s, "POST", "/api/rooms", "", big); r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.body, `"errors"`) {
		t.Errorf("9 KB body: %d %s", r.status, r.body)
	}
	if r := call(t, s, "PUT", base+"/rounds/1/guess", mark, `{"value":1}`+strings.Repeat(" ", 9000)); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("9 KB guess: %d", r.status)
	}
	if r := call(t, s, "POST", base+"/rounds", "not-the-key", `{"question":"q1"}`); r.status != http.StatusForbidden {
		t.Errorf("wrong key: %d %s", r.status, r.body)
	}
	if r := call(t, s, "POST", base+"/rounds", room.HostKey, `{"question":"q9"}`); r.status != http.StatusBadRequest || !strings.Contains(r.body, `"field":"question"`) {
		t.Errorf("unknown question: %d %s", r.status, r.body)
	}
	if r := call(t, s, "POST", base+"/rounds", room.HostKey, `{"question":"q1","extra":1}`); r.status != http.StatusBadRequest {
		t.Errorf("unknown field: %d %s", r.status, r.body)
	}
	if r := call(t, s, "POST", "/api/rooms", "", `{"title":"x"}`, "Sec-Fetch-Site", "cross-site"); r.status != http.StatusForbidden {
		t.Errorf("cross-site POST: %d %s", r.status, r.body)
	}
	if r := call(t, s, "PUT", base+"/rounds/1/guess", mark, `{"value":1}`, "Origin", "https://evil.example"); r.status != http.StatusForbidden {
		t.Errorf("cross-origin PUT by Origin: %d %s", r.status, r.body)
	}
	if r := call(t, s, "GET", base, mark, "", "Sec-Fetch-Site", "cross-site"); r.status != http.StatusOK {
		t.Errorf("a cross-site read is harmless and allowed: %d", r.status)
	}

	// Kick the member: their key stops at once, their name stays taken.
	var st roomJSON
	must(t, call(t, s, "GET", base, room.HostKey, ""), http.StatusOK, &st)
	must(t, call(t, s, "DELETE", base+"/members/"+st.Roster[0].ID, mark, ""), http.StatusForbidden, nil)
	must(t, call(t, s, "DELETE", base+"/members/"+st.Roster[0].ID, room.HostKey, ""), http.StatusNoContent, nil)
	if r := call(t, s, "POST", base+"/pins", mark, `{"path":"/","note":"still here"}`); r.status != http.StatusForbidden {
		t.Errorf("kicked member pinned: %d %s", r.status, r.body)
	}
	if r := call(t, s, "GET", base, mark, ""); r.status != http.StatusForbidden {
		t.Errorf("kicked member read the room: %d", r.status)
	}
	// Lock the room: nobody new gets a seat.
	must(t, call(t, s, "PUT", base+"/locked", room.HostKey, `{"locked":true}`), http.StatusNoContent, nil)
	if r := call(t, s, "POST", base+"/members", "", `{"name":"Late"}`); r.status != http.StatusForbidden {
		t.Errorf("join a locked room: %d %s", r.status, r.body)
	}
	must(t, call(t, s, "GET", base, room.HostKey, ""), http.StatusOK, &st)
	if len(st.Roster) != 0 || len(st.Pins) != 1 {
		t.Errorf("after the refusals the room holds %+v", st)
	}
	if r := call(t, s, "GET", base, "", ""); r.status != 200 || strings.Contains(r.body, "Mallory") {
		t.Errorf("an anonymous caller learns names: %s", r.body)
	}
}

// TestRoomSecretsStayOutOfLogs: the host key travels in bodies and headers only, so the request
// log never holds it.
func TestRoomSecretsStayOutOfLogs(t *testing.T) {
	var logs strings.Builder
	s := newLoggingServer(t, testConfig(), &logs)
	room := createRoom(t, s, "Quiet")
	must(t, call(t, s, "GET", "/api/rooms/"+room.Code, room.HostKey, ""), http.StatusOK, nil)
	call(t, s, "POST", "/api/rooms/"+room.Code+"/rounds", room.HostKey, `{"question":"q6"}`)
	if !strings.Contains(logs.String(), room.Code) || strings.Contains(logs.String(), room.HostKey) {
		t.Errorf("log:\n%s", logs.String())
	}
}

// TestRoomsSurviveRestart: a room made through one server is found by a second one on the same
// data directory, with its members and rounds.
func TestRoomsSurviveRestart(t *testing.T) {
	cfg := testConfig()
	cfg.DataDir = t.TempDir()
	first := newTestServer(t, cfg)
	room := createRoom(t, first, "Durable")
	ada := join(t, first, room.Code, "Ada")
	must(t, call(t, first, "POST", "/api/rooms/"+room.Code+"/rounds", room.HostKey, `{"question":"q5"}`), http.StatusCreated, nil)
	must(t, call(t, first, "PUT", "/api/rooms/"+room.Code+"/rounds/1/guess", ada, `{"value":7}`), http.StatusNoContent, nil)

	second := newTestServer(t, cfg)
	var st roomJSON
	must(t, call(t, second, "GET", "/api/rooms/"+room.Code, ada, ""), http.StatusOK, &st)
	if st.Title != "Durable" || len(st.Rounds) != 1 || st.Rounds[0].YourGuess == nil || *st.Rounds[0].YourGuess != 7 {
		t.Errorf("after the restart: %+v", st)
	}
}

// TestRoomRateLimits: creations are limited per address per hour and joins per minute, with a
// 429 that says when to try again; a failed code look-up costs a join, so codes cannot be guessed
// for free; another address keeps its own allowance.
func TestRoomRateLimits(t *testing.T) {
	cfg := testConfig()
	cfg.RoomCreatesPerHour, cfg.RoomJoinsPerMinute = 2, 3
	s := newTestServer(t, cfg)
	room := createRoom(t, s, "one")
	createRoom(t, s, "two")
	r := call(t, s, "POST", "/api/rooms", "", `{"title":"three"}`)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("third room in the hour: status %d, Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	join(t, s, room.Code, "Ada")
	if r := call(t, s, "POST", "/api/rooms/ZZZZZZ/members", "", `{"name":"Bob"}`); r.status != http.StatusNotFound {
		t.Errorf("unknown code: status %d", r.status)
	}
	join(t, s, room.Code, "Cy")
	if r := call(t, s, "POST", "/api/rooms/"+room.Code+"/members", "", `{"name":"Di"}`); r.status != http.StatusTooManyRequests {
		t.Errorf("fourth join in the minute (one of them a failed look-up): status %d, want 429", r.status)
	}
	req := httptest.NewRequest("POST", "/api/rooms/"+room.Code+"/members", strings.NewReader(`{"name":"Ed"}`))
	req.Header.Set("Content-Type", "application/json")
	req.RemoteAddr = "127.0.0.9:4000"
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		t.Errorf("another address was refused too: status %d", rec.Code)
	}
}

// TestJoinCodeLimitIsNoOracle: once an address has spent its allowance on wrong codes, a right
// code answers 429 as well, on every route that takes a code (the API, the join link, the
// export), so the answer says nothing about the code; before that, a right code costs nothing.
func TestJoinCodeLimitIsNoOracle(t *testing.T) {
	cfg := testConfig()
	cfg.RoomJoinsPerMinute = 3
	s := newTestServer(t, cfg)
	room := createRoom(t, s, "Hidden")
	for i := range 10 {
		if r := call(t, s, "GET", "/api/rooms/"+room.Code, "", ""); r.status != http.StatusOK {
			t.Fatalf("look-up %d of a right code: status %d, want 200 (a hit costs nothing)", i+1, r.status)
		}
	}
	for _, code := range []string{"ZZZZZZ", "YYYYYY", "XXXXXX"} {
		if r := call(t, s, "GET", "/api/rooms/"+code, "", ""); r.status != http.StatusNotFound {
			t.Fatalf("wrong code %s: status %d, want 404", code, r.status)
		}
	}
	for _, target := range []string{"/api/rooms/" + room.Code, "/api/rooms/WWWWWW", "/j/" + room.Code,
		"/api/rooms/" + room.Code + "/export", "/join?code=" + room.Code} {
		r := call(t, s, "GET", target, room.HostKey, "")
		if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
			t.Errorf("GET %s over the allowance: status %d, Retry-After %q; want 429 whether the code is right or not",
				target, r.status, r.header.Get("Retry-After"))
		}
	}
}

// TestConcurrentOpensLeaveOneRoundOpen: a host who opens rounds twice at once (a double submit
// without script, or two devices) ends with one open round, and a guess on the other is refused.
func TestConcurrentOpensLeaveOneRoundOpen(t *testing.T) {
	s := newTestServer(t, testConfig())
	room := createRoom(t, s, "Double submit")
	ada := join(t, s, room.Code, "Ada")
	path := "/api/rooms/" + room.Code
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if r := call(t, s, "POST", path+"/rounds", room.HostKey, `{"question":"q1"}`); r.status != http.StatusCreated {
				t.Errorf("open: %d %s", r.status, r.body)
			}
		})
	}
	wg.Wait()
	var st roomJSON
	must(t, call(t, s, "GET", path, room.HostKey, ""), http.StatusOK, &st)
	open := 0
	for _, rd := range st.Rounds {
		if rd.State == "open" {
			open++
		}
	}
	if len(st.Rounds) != 8 || open != 1 || st.Rounds[7].State != "open" {
		t.Fatalf("%d rounds, %d open, last %q; want 8 with only the last open", len(st.Rounds), open, st.Rounds[len(st.Rounds)-1].State)
	}
	if r := call(t, s, "PUT", path+"/rounds/1/guess", ada, `{"value":5}`); r.status != http.StatusConflict {
		t.Errorf("guess on an earlier round: %d %s, want 409", r.status, r.body)
	}
}

// TestLookAlikeNamesAreNotSeated: through the API, every look-alike of a seated "Ada" is refused
// (400 for an invisible character, 409 for a name that reads the same), and a title with a
// zero-width space is refused naming the title.
func TestLookAlikeNamesAreNotSeated(t *testing.T) {
	s := newTestServer(t, testConfig())
	room := createRoom(t, s, "Look-alikes")
	join(t, s, room.Code, "Ada")
	for _, name := range []string{"A\u034Fda", "Ada\uFE0F", "\u3164Ada", "Ada\u2800", "\u0410da"} {
		r := call(t, s, "POST", "/api/rooms/"+room.Code+"/members", "", `{"name":`+quote(name)+`}`)
		if r.status != http.StatusConflict && r.status != http.StatusBadRequest || !strings.Contains(r.body, `"field":"name"`) {
			t.Errorf("%q: %d %s; want a refusal naming the name", name, r.status, r.body)
		}
	}
	r := call(t, s, "POST", "/api/rooms", "", `{"title":"Tuesday\u200bgroup"}`)
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, `"field":"title"`) {
		t.Errorf("title with U+200B: %d %s", r.status, r.body)
	}
}

// TestChangesAreLimitedPerKey: one member's key may make a burst of changes, then 429 with
// Retry-After, guesses included, through the API and the room's page alike; another member and the
// host keep their own allowance.
func TestChangesAreLimitedPerKey(t *testing.T) {
	cfg := testConfig()
	cfg.RoomChangesPerMinute = 60 // a burst of 10
	s := newTestServer(t, cfg)
	room := createRoom(t, s, "Busy")
	ada, bob := join(t, s, room.Code, "Ada"), join(t, s, room.Code, "Bob")
	path := "/api/rooms/" + room.Code
	must(t, call(t, s, "POST", path+"/rounds", room.HostKey, `{"question":"q1"}`), http.StatusCreated, nil)
	accepted := 0
	var last response
	for range 50 {
		last = call(t, s, "PUT", path+"/rounds/1/guess", ada, `{"value":5}`)
		if last.status == http.StatusNoContent {
			accepted++
		}
	}
	if accepted != roomsweb.ChangeBurst(60) || last.status != http.StatusTooManyRequests || last.header.Get("Retry-After") == "" {
		t.Errorf("50 guesses at once with one key: %d accepted, last %d (Retry-After %q); want %d, then 429",
			accepted, last.status, last.header.Get("Retry-After"), roomsweb.ChangeBurst(60))
	}
	if r := call(t, s, "POST", path+"/pins", ada, `{"path":"/blocks/1"}`); r.status != http.StatusTooManyRequests {
		t.Errorf("a pin after the burst: %d, want 429", r.status)
	}
	must(t, call(t, s, "PUT", path+"/rounds/1/guess", bob, `{"value":6}`), http.StatusNoContent, nil)
	must(t, call(t, s, "POST", path+"/rounds/1/lock", room.HostKey, ""), http.StatusOK, nil)

	// The room's pages charge the same key: a browser seated with a key of its own.
	b := newBrowser(t, s)
	joinAs(t, b, room.Code, "Cy")
	roomPath := ""
	for name := range b.cookies {
		if strings.HasPrefix(name, seatCookie) {
			roomPath = "/rooms/" + strings.TrimPrefix(name, seatCookie)
		}
	}
	accepted, last = 0, response{}
	for range 20 {
		last = b.send("POST", roomPath+"/pins", url.Values{"path": {"/blocks/2"}}, true)
		if last.status == http.StatusNoContent {
			accepted++
		}
	}
	// htmx shows a refusal beside the form, so the page's answer is a 422 that says to wait.
	if accepted != roomsweb.ChangeBurst(60) || last.status != http.StatusUnprocessableEntity || last.header.Get("Retry-After") == "" ||
		!strings.HasPrefix(last.body, "Too many changes") || !strings.Contains(last.body, "Try again in") {
		t.Errorf("20 pins at once from a page: %d accepted, last %d %q; want %d, then a 422 saying to wait", accepted, last.status, last.body, roomsweb.ChangeBurst(60))
	}
}
