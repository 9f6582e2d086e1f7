package site

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"effectivelyonce/pages"
)

// browser is a client of the room pages that keeps cookies as a browser does, so a test can be
// a host and two members at once.
type browser struct {
	t       testing.TB
	s       *Server
	cookies map[string]string
}

func newBrowser(t *testing.T, s *Server) *browser {
	return &browser{t: t, s: s, cookies: map[string]string{}}
}

// send makes one request with this browser's cookies and keeps the cookies it is given. form is
// a POST body; htmx marks the request as htmx sends it.
func (b *browser) send(method, target string, form url.Values, htmx bool, header ...string) response {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	rec := httptest.NewRecorder()
	b.s.echo.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

func (b *browser) get(target string) response { b.t.Helper(); return b.send("GET", target, nil, false) }

func (b *browser) post(target string, form url.Values) response {
	b.t.Helper()
	return b.send("POST", target, form, false)
}

// startRoom opens a room through the start form, answering the room's page path and the host key.
func startRoom(t *testing.T, host *browser, title string) (roomPath, key string) {
	t.Helper()
	r := host.post("/rooms", url.Values{"title": {title}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("start: %d %s", r.status, r.body)
	}
	for name, v := range host.cookies {
		if strings.HasPrefix(name, hostCookie) {
			return "/rooms/" + strings.TrimPrefix(name, hostCookie), v
		}
	}
	t.Fatalf("no host cookie after starting a room: %v", host.cookies)
	return "", ""
}

// codeOf reads the join code from the host's room page.
func codeOf(t *testing.T, host *browser, roomPath string) string {
	t.Helper()
	r := host.get(roomPath)
	i := strings.Index(r.body, "/j/")
	if r.status != http.StatusOK || i < 0 {
		t.Fatalf("host page: %d, no join link", r.status)
	}
	return r.body[i+3 : i+9]
}

func joinAs(t *testing.T, b *browser, code, name string) {
	t.Helper()
	r := b.post("/join", url.Values{"code": {code}, "name": {name}})
	if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/rooms/") {
		t.Fatalf("join %s: %d %s", name, r.status, r.body)
	}
}

// TestRoomPagesFlow walks a session through the pages as a host and a member would, checking the
// cookies, the redirects and who sees what.
func TestRoomPagesFlow(t *testing.T) {
	var logs bytes.Buffer
	s := newLoggingServer(t, testConfig(), &logs)
	host, ada, stranger := newBrowser(t, s), newBrowser(t, s), newBrowser(t, s)

	if r := host.post("/rooms", url.Values{"title": {"  "}}); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `aria-invalid="true"`) {
		t.Fatalf("empty title: %d", r.status)
	}
	roomPath, hostKey := startRoom(t, host, "Tuesday <b>group</b>")
	code := codeOf(t, host, roomPath)

	// The host link, once confirmed, puts the host key into a cookie of the other browser.
	other := newBrowser(t, s)
	link := pathOf(t, hostLinkOn(t, host.get(roomPath+"/host-link").body))
	token, _ := url.QueryUnescape(link[strings.Index(link, "token=")+len("token="):])
	r := other.post(roomPath+"/host", url.Values{"token": {token}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != roomPath || other.cookies[hostCookie+roomPath[7:]] != hostKey {
		t.Fatalf("host link: %d to %q, cookies %v", r.status, r.header.Get("Location"), other.cookies)
	}
	req := httptest.NewRequest("POST", roomPath+"/host-link", nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.AddCookie(&http.Cookie{Name: hostCookie + roomPath[7:], Value: hostKey})
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	for _, c := range rec.Result().Cookies() {
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" {
			t.Errorf("cookie %s: HttpOnly %v SameSite %v Path %q", c.Name, c.HttpOnly, c.SameSite, c.Path)
		}
	}
	if r := newBrowser(t, s).get(roomPath + "/host?key=" + url.QueryEscape(hostKey)); r.status != http.StatusForbidden {
		t.Errorf("a link of the old kind, with the host key in it: %d, want 403", r.status)
	}
	if strings.Contains(logs.String(), hostKey) || strings.Contains(logs.String(), token) {
		t.Error("the request log printed a host key or a host link's token")
	}

	// Joining: a suggested name, then a seat; a taken name keeps the visitor's values.
	r = ada.get("/j/" + strings.ToLower(code))
	if r.status != http.StatusOK || !strings.Contains(r.body, `name="name"`) || !strings.Contains(r.body, "Tuesday &lt;b&gt;group&lt;/b&gt;") {
		t.Fatalf("join form: %d", r.status)
	}
	joinAs(t, ada, code, "Ada <script>")
	bob := newBrowser(t, s)
	r = bob.post("/join", url.Values{"code": {code}, "name": {"ada <SCRIPT>"}})
	if r.status != http.StatusConflict || !strings.Contains(r.body, "already uses this name") || !strings.Contains(r.body, `value="ada &lt;SCRIPT&gt;"`) {
		t.Errorf("taken name: %d", r.status)
	}
	if r := bob.post("/join", url.Values{"code": {"ZZZZZZ"}, "name": {"Bob"}}); r.status != http.StatusNotFound || !strings.Contains(r.body, "No open room has this code") {
		t.Errorf("unknown code: %d", r.status)
	}
	if r := ada.get("/j/" + code); r.status != http.StatusSeeOther {
		t.Errorf("a seated member opening the join link again: %d, want a redirect to the room", r.status)
	}

	// Who sees what.
	if r := stranger.get(roomPath); r.status != http.StatusSeeOther || r.header.Get("Location") != "/join" {
		t.Errorf("stranger on the room page: %d to %q (the code must not be given away)", r.status, r.header.Get("Location"))
	}
	hostPage, adaPage := host.get(roomPath).body, ada.get(roomPath).body
	if !strings.Contains(hostPage, `class="qr"`) || !strings.Contains(hostPage, "Open a new round") || !strings.Contains(hostPage, "Ada &lt;script&gt;") {
		t.Error("the host's page lacks the QR code, the round form or the escaped roster")
	}
	if strings.Contains(adaPage, "Open a new round") || strings.Contains(adaPage, "/export") || strings.Contains(adaPage, "<script>") && strings.Contains(adaPage, "Ada <script>") {
		t.Error("a member's page shows host controls or raw markup")
	}
	if !strings.Contains(adaPage, `sse-connect="`+roomPath+`/events"`) {
		t.Error("the room page has no event stream")
	}

	// A round through the forms: htmx answers 204 or 422 with the reason; a plain form 303s back.
	if r := host.send("POST", roomPath+"/rounds", url.Values{"question": {"q4"}}, true); r.status != http.StatusNoContent {
		t.Fatalf("open round: %d %s", r.status, r.body)
	}
	if r := ada.send("POST", roomPath+"/rounds/1/guess", url.Values{"value": {"lots <b>"}}, true); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(r.body, "a number is needed") || strings.Contains(r.body, "<b>") {
		t.Errorf("bad guess: %d %s", r.status, r.body)
	}
	if r := ada.send("POST", roomPath+"/rounds/1/guess", url.Values{"value": {"1,200"}}, true); r.status != http.StatusNoContent {
		t.Errorf("guess: %d %s", r.status, r.body)
	}
	if r := ada.post(roomPath+"/rounds/1/guess", url.Values{"value": {"150"}, "return": {"//evil.example/x"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != roomPath {
		t.Errorf("plain guess with a foreign return: %d to %q", r.status, r.header.Get("Location"))
	}
	if r := ada.send("POST", roomPath+"/rounds/1/reveal", nil, true); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a member revealing: %d", r.status)
	}
	if r := host.send("POST", roomPath+"/rounds/1/reveal", url.Values{}, true); r.status != http.StatusNoContent {
		t.Fatalf("reveal: %d %s", r.status, r.body)
	}
	adaPage = ada.get(roomPath).body
	if !strings.Contains(adaPage, "data-measured") || !strings.Contains(adaPage, "too low") && !strings.Contains(adaPage, "too high") {
		t.Error("after the reveal the member's page lacks the measured value or their distance")
	}
	if r := ada.send("POST", roomPath+"/rounds/1/guess", url.Values{"value": {"3"}}, true); r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "takes no guesses") {
		t.Errorf("guess after the reveal: %d %s", r.status, r.body)
	}

	// A cross-site form is refused before it acts.
	if r := host.send("POST", roomPath+"/close", url.Values{}, false, "Sec-Fetch-Site", "cross-site"); r.status != http.StatusForbidden {
		t.Errorf("cross-site close: %d", r.status)
	}
	// The bar follows the member through the notebook, and a stranger sees none.
	if r := ada.get("/blocks/4"); !strings.Contains(r.body, `class="roombar"`) || !strings.Contains(r.body, "view=bar") {
		t.Error("no room bar on a notebook page for a member")
	}
	if r := stranger.get("/blocks/4"); strings.Contains(r.body, `class="roombar"`) {
		t.Error("a stranger sees a room bar")
	}
	// A pin from the bar, with markup in its note, shows escaped on the board.
	if r := ada.send("POST", roomPath+"/pins", url.Values{"path": {"/blocks/4?max_delay=5000"}, "note": {"<img src=x> look"}}, true); r.status != http.StatusNoContent {
		t.Fatalf("pin: %d %s", r.status, r.body)
	}
	if page := host.get(roomPath).body; !strings.Contains(page, "&lt;img src=x&gt; look") || strings.Contains(page, "<img src=x>") {
		t.Error("a pin's note is not escaped on the board")
	}

	// Kicked: the seat stops working at once.
	id := memberID(t, s, code, hostKey)
	if r := host.send("POST", roomPath+"/members/"+id+"/kick", url.Values{"confirmed": {"yes"}}, true); r.status != http.StatusNoContent {
		t.Fatalf("kick: %d %s", r.status, r.body)
	}
	if r := ada.get(roomPath); r.status != http.StatusForbidden {
		t.Errorf("kicked member's page: %d", r.status)
	}

	// Closed: the host still exports, members are told.
	if r := host.post(roomPath+"/close", url.Values{"confirmed": {"yes"}}); r.status != http.StatusSeeOther {
		t.Fatalf("close: %d", r.status)
	}
	if page := host.get(roomPath).body; !strings.Contains(page, "This room is closed") || !strings.Contains(page, "/export?format=csv") {
		t.Error("a closed room's page does not say so or offers no export")
	}
	if r := host.get(roomPath + "/export?format=csv"); r.status != http.StatusOK || !strings.Contains(r.header.Get("Content-Disposition"), ".csv") {
		t.Errorf("export from the page: %d", r.status)
	}
	if r := stranger.get(roomPath + "/export?format=json"); r.status != http.StatusForbidden {
		t.Errorf("export without the host's cookie: %d", r.status)
	}
}

// TestReplacedHostKey checks that replacing the host key (after a confirmation) shows a new host
// link, that a browser holding the old key is host no more, and that the link made before stops
// working, while the host's own browser keeps the room.
func TestReplacedHostKey(t *testing.T) {
	s := newTestServer(t, testConfig())
	host := newBrowser(t, s)
	roomPath, oldKey := startRoom(t, host, "Rotate")
	before := pathOf(t, hostLinkOn(t, host.get(roomPath+"/host-link").body))
	if r := host.post(roomPath+"/host-key", url.Values{}); r.status != http.StatusOK || !strings.Contains(r.body, pages.HostKeyQuestion) {
		t.Fatalf("replacing without confirming: %d, want the question", r.status)
	}
	r := host.post(roomPath+"/host-key", url.Values{"confirmed": {"yes"}})
	if r.status != http.StatusSeeOther || !strings.HasSuffix(r.header.Get("Location"), "/host-link?after=replaced") {
		t.Fatalf("replace: %d to %q", r.status, r.header.Get("Location"))
	}
	page := host.get(r.header.Get("Location"))
	if !strings.Contains(page.body, "New host key") || pathOf(t, hostLinkOn(t, page.body)) == before {
		t.Errorf("the page after replacing the key: no new link")
	}
	old := newBrowser(t, s)
	old.cookies[hostCookie+roomPath[7:]] = oldKey
	if r := old.get(roomPath); r.status != http.StatusForbidden {
		t.Errorf("a browser with the old key: %d, want 403", r.status)
	}
	if r := newBrowser(t, s).get(before); r.status != http.StatusForbidden {
		t.Errorf("the link made before the key was replaced: %d, want 403", r.status)
	}
	if r := host.get(roomPath); r.status != http.StatusOK || !strings.Contains(r.body, "Open a new round") {
		t.Errorf("the host's browser lost the room after replacing the key: %d", r.status)
	}
}

func httptestCookies(t *testing.T, s *Server, target string) []*http.Cookie {
	t.Helper()
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
	if len(rec.Result().Cookies()) == 0 {
		t.Fatalf("GET %s set no cookie", target)
	}
	return rec.Result().Cookies()
}

func memberID(t *testing.T, s *Server, code, hostKey string) string {
	t.Helper()
	r := call(t, s, "GET", "/api/rooms/"+code, hostKey, "")
	i := strings.Index(r.body, `"roster":[{"id":"`)
	if i < 0 {
		t.Fatalf("no roster: %s", r.body)
	}
	rest := r.body[i+len(`"roster":[{"id":"`):]
	return rest[:strings.Index(rest, `"`)]
}

// TestJoinAllowance checks what costs from the join allowance of one address: each join and each
// code that finds nothing, on any route, but not opening a good join link, so a class behind one
// router can open the QR link and join within the minute.
func TestJoinAllowance(t *testing.T) {
	cfg := testConfig()
	cfg.RoomJoinsPerMinute = 4
	s := newTestServer(t, cfg)
	host := newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Allowance")
	code := codeOf(t, host, roomPath)
	for i := range 6 {
		if r := newBrowser(t, s).get("/j/" + code); r.status != http.StatusOK {
			t.Fatalf("opening a good join link, time %d: %d", i+1, r.status)
		}
	}
	joinAs(t, newBrowser(t, s), code, "Ada") // costs one
	misses := []string{"/api/rooms/ZZZZZZ", "/api/rooms/ZZZZZZ/events", "/j/ZZZZZZ"}
	for i, target := range misses {
		if r := newBrowser(t, s).get(target); r.status != http.StatusNotFound {
			t.Fatalf("miss %d at %s: %d, want 404", i+1, target, r.status)
		}
	}
	r := newBrowser(t, s).get("/api/rooms/ZZZZZ1")
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("the fifth costly try: %d, want 429 with Retry-After", r.status)
	}
}

// TestMeasureCheckedWhenTheRoundOpens checks that a number the experiment does not report is
// refused when the round opens, naming the field, instead of locking the round at the reveal.
func TestMeasureCheckedWhenTheRoundOpens(t *testing.T) {
	s := newTestServer(t, testConfig())
	room := createRoom(t, s, "Measures")
	r := call(t, s, "POST", "/api/rooms/"+room.Code+"/rounds", room.HostKey, `{"experiment":"window","params":"max_delay=5000","measure":"nonsense"}`)
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, `"field":"measure"`) {
		t.Errorf("unknown measure: %d %s", r.status, r.body)
	}
	if st := call(t, s, "GET", "/api/rooms/"+room.Code, room.HostKey, ""); strings.Contains(st.body, `"seq"`) {
		t.Errorf("a refused round was stored: %s", st.body)
	}
}

// TestRoomAnswersNameTheirField checks what a careful reader would: a second join from a seated browser, the headers of
// the answers that carry a host key, and refusals that name their field.
func TestRoomAnswersNameTheirField(t *testing.T) {
	s := newTestServer(t, testConfig())
	host := newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Careful")
	code := codeOf(t, host, roomPath)
	sam := newBrowser(t, s)
	joinAs(t, sam, code, "Sam")
	if r := sam.post("/join", url.Values{"code": {code}, "name": {"Sam2"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != roomPath {
		t.Errorf("a seated browser joining again: %d to %q, want its own seat back", r.status, r.header.Get("Location"))
	}
	if st := call(t, s, "GET", "/api/rooms/"+code, "", ""); !strings.Contains(st.body, `"seated":1`) {
		t.Errorf("a second seat was made: %s", st.body)
	}
	keys := newBrowser(t, s)
	if r := keys.get(keys.post("/rooms", url.Values{"title": {"Keys"}}).header.Get("Location")); r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("the page with the host link may be cached: %q", r.header.Get("Cache-Control"))
	}
	if r := call(t, s, "POST", "/api/rooms", "", `{"title":"Keys"}`); r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("the answer with the host key may be cached: %q", r.header.Get("Cache-Control"))
	}
	for _, c := range []struct {
		method, target, body, field string
		status                      int
	}{
		{"GET", "/api/rooms/ZZZZZZ", "", "code", http.StatusNotFound},
		{"POST", "/api/rooms", `{"title":"` + strings.Repeat("x", 9000) + `"}`, "body", http.StatusRequestEntityTooLarge},
	} {
		r := call(t, s, c.method, c.target, "", c.body)
		if r.status != c.status || !strings.Contains(r.body, `"field":"`+c.field+`"`) {
			t.Errorf("%s %s: %d %s, want %d naming %s", c.method, c.target[:min(len(c.target), 30)], r.status, r.body[:min(len(r.body), 200)], c.status, c.field)
		}
	}
}

// TestPinHeadlineFromTheAPI checks that a pin made through the API, which never passes through
// the page's pin action, still comes to show its run's headline on the board (worked out in the
// background once a render asks for it).
func TestPinHeadlineFromTheAPI(t *testing.T) {
	s := newTestServer(t, testConfig())
	room := createRoom(t, s, "Headlines")
	ada := join(t, s, room.Code, "Ada")
	if r := call(t, s, "POST", "/api/rooms/"+room.Code+"/pins", ada, `{"path":"/blocks/2","note":"lost none"}`); r.status != http.StatusCreated {
		t.Fatalf("pin: %d %s", r.status, r.body)
	}
	host := newBrowser(t, s)
	u := pathOf(t, room.HostURL)
	token, _ := url.QueryUnescape(u[strings.Index(u, "token=")+len("token="):])
	roomPath := host.post(u[:strings.Index(u, "?")], url.Values{"token": {token}}).header.Get("Location")
	var page string
	for deadline := time.Now().Add(streamWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if page = host.get(roomPath).body; strings.Contains(page, `class="pin-headline"`) {
			break
		}
	}
	i := strings.Index(page, `class="pin-headline"`)
	if i < 0 || !strings.Contains(page[i:i+200], "20,000") {
		t.Errorf("no headline on the API's pin: %q", page[max(0, i):min(len(page), max(0, i)+200)])
	}
}

// TestRoundFormErrorsInFormOrder: when several fields of the round form are wrong, the refusal is
// always about the one nearest the top of the form (the text, then the unit, then From, then To),
// never whichever a map happened to yield first.
func TestRoundFormErrorsInFormOrder(t *testing.T) {
	s := newTestServer(t, testConfig())
	host := newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Order")
	for _, c := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"question": {"custom"}, "text": {"How many?"}, "min": {"lots"}, "max": {"more"}}, "Min:"},
		{url.Values{"question": {"custom"}, "text": {""}, "min": {"lots"}, "max": {"more"}}, "The question is 1 to"},
		{url.Values{"question": {"custom"}, "text": {"How many?"}, "min": {"0"}, "max": {"0,5"}}, "Max:"},
	} {
		for i := range 20 {
			r := host.send("POST", roomPath+"/rounds", c.form, true)
			if r.status != http.StatusUnprocessableEntity || !strings.HasPrefix(r.body, c.want) {
				t.Fatalf("try %d of %v: %d %q, want 422 starting %q", i+1, c.form, r.status, r.body, c.want)
			}
		}
	}
}

// TestOpenRoomsLimitFreesUnjoinedRooms: at the open-rooms limit a host is told why and when to try
// again (a 503 with Retry-After, the API's message, and on the page the start form with the title
// kept), and a room nobody joined frees its place an hour after it was last used, while a room with
// members keeps its own.
func TestOpenRoomsLimitFreesUnjoinedRooms(t *testing.T) {
	cfg := testConfig()
	cfg.Rooms.MaxOpenRooms = 2
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	cfg.Rooms.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := newTestServer(t, cfg)
	used := createRoom(t, s, "Used")
	join(t, s, used.Code, "Ada")
	createRoom(t, s, "Nobody came")
	r := call(t, s, "POST", "/api/rooms", "", `{"title":"Third"}`)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" ||
		!strings.Contains(r.body, "already has 2 study rooms open") || !strings.Contains(r.body, "an hour after it was last used") {
		t.Fatalf("third room at the limit: %d %q %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	host := newBrowser(t, s)
	page := host.post("/rooms", url.Values{"title": {"Kept title"}})
	if page.status != http.StatusServiceUnavailable || page.header.Get("Retry-After") == "" ||
		!strings.Contains(page.body, `value="Kept title"`) || !strings.Contains(page.body, "the most it allows") {
		t.Fatalf("start form at the limit: %d, Retry-After %q, title kept %v", page.status, page.header.Get("Retry-After"), strings.Contains(page.body, `value="Kept title"`))
	}
	advance(61 * time.Minute)
	createRoom(t, s, "Third")
	if r := call(t, s, "GET", "/api/rooms/"+used.Code, used.HostKey, ""); r.status != http.StatusOK || strings.Contains(r.body, `"closed":true`) {
		t.Errorf("the room with a member after an hour: %d %s", r.status, r.body)
	}
}
