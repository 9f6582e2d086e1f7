package roomsweb

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"effectivelyonce/pages"
	"effectivelyonce/rooms"
)

// TestWrongTypeSaysWhatWasWrong: a guess whose value is too large, a string or a boolean is
// refused naming the field and saying which of those it was, not only that a number was wanted.
func TestWrongTypeSaysWhatWasWrong(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Types")
	ada := s.join(t, code, "Ada")
	path := "/api/rooms/" + code
	must(t, s.call("POST", path+"/rounds", host, `{"question":"q1"}`), http.StatusCreated, nil)
	for _, c := range []struct {
		target, key, body, method, field string
		says                             []string
	}{
		{path + "/rounds/1/guess", ada, `{"value":1e309}`, "PUT", "value", []string{"value takes a number", "1e309 is too large"}},
		{path + "/rounds/1/guess", ada, `{"value":"1.5"}`, "PUT", "value", []string{"value takes a number", "a string", "without quotes"}},
		{path + "/rounds/1/guess", ada, `{"value":true}`, "PUT", "value", []string{"value takes a number", "a boolean"}},
		{path + "/rounds", host, `{"question":"q1","votes":1.5}`, "POST", "votes", []string{"votes takes a whole number", "1.5 is not one"}},
		{path + "/rounds", host, `{"question":"q1","votes":"two"}`, "POST", "votes", []string{"votes takes a whole number", "a string"}},
	} {
		r := s.call(c.method, c.target, c.key, c.body)
		var got apiErrors
		if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.status != 400 || len(got.Errors) != 1 || got.Errors[0].Field != c.field {
			t.Errorf("%s: %d %s; want 400 naming %s", c.body, r.status, r.body, c.field)
			continue
		}
		for _, w := range c.says {
			if !strings.Contains(got.Errors[0].Message, w) {
				t.Errorf("%s: %q does not say %q", c.body, got.Errors[0].Message, w)
			}
		}
	}
}

// TestChallengeWithoutParameters: a handler round on a template that sets no parameters asks in
// a sentence, not "survives: the workbench's defaults".
func TestChallengeWithoutParameters(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Handlers")
	must(t, s.call("POST", "/api/rooms/"+code+"/rounds", host, `{"kind":"handler","template":"ack-after-work"}`), http.StatusCreated, nil)
	if q := s.state(t, code, host).Rounds[0].Question; q.Text != "Write a handler that survives the workbench's default parameters" {
		t.Errorf("the challenge reads %q", q.Text)
	}
}

// TestRefusedForPermissionIsNotCharged: a member who tries the host's actions many times, by the
// API and by the page's forms, still has their allowance for their own guess; and a key that does
// run out is told so in sentences, the wait after a full stop.
func TestRefusedForPermissionIsNotCharged(t *testing.T) {
	s := newHarness(t, limits{changesPerMinute: 60}) // a burst of 10
	code, host := s.createRoom(t, "Allowance")
	ada := s.join(t, code, "Ada")
	path := "/api/rooms/" + code
	must(t, s.call("POST", path+"/rounds", host, `{"question":"q1"}`), http.StatusCreated, nil)
	for i := range 15 {
		if r := s.call("POST", path+"/rounds/1/lock", ada, ``); r.status != http.StatusForbidden {
			t.Fatalf("attempt %d at the host's lock: %d %s; want 403", i+1, r.status, r.body)
		}
		if r := s.sendHX("/rooms/"+s.ids[code]+"/rounds/1/lock", ada, url.Values{}); r.status == http.StatusTooManyRequests ||
			strings.Contains(r.body, "Too many") {
			t.Fatalf("attempt %d at the host's lock by the page: %d %s", i+1, r.status, r.body)
		}
	}
	if r := s.call("PUT", path+"/rounds/1/guess", ada, `{"value":3}`); r.status >= 300 {
		t.Fatalf("Ada's own guess after refused attempts: %d %s", r.status, r.body)
	}
	var last response
	for range 12 {
		if last = s.sendHX("/rooms/"+s.ids[code]+"/rounds/1/lock", host, url.Values{}); strings.Contains(last.body, "Too many") {
			break
		}
	}
	if !strings.Contains(last.body, "(at most 60 a minute). Try again in ") || !strings.HasSuffix(last.body, " s.") {
		t.Errorf("the refusal once the allowance is spent: %d %q", last.status, last.body)
	}
}

// TestRemovedMemberPage: a member the host removed who opens the room again is told so in the
// site's words, capitalised, with the way back; nothing about host links, nor a bare "Forbidden".
func TestRemovedMemberPage(t *testing.T) {
	s := newHarness(t, limits{})
	s.e.GET("/rooms/:id", s.h.Page())
	code, host := s.createRoom(t, "Tuesday group")
	cat := s.join(t, code, "Cat")
	ctx := context.Background()
	r, err := s.h.rooms.RoomByID(ctx, s.ids[code])
	if err != nil {
		t.Fatal(err)
	}
	hostCaller, err := s.h.rooms.Identify(ctx, r, host)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.h.rooms.Kick(ctx, hostCaller, s.state(t, code, cat).You.ID); err != nil {
		t.Fatal(err)
	}
	page := s.send("GET", "/rooms/"+s.ids[code], cat, "", "")
	if page.status != http.StatusForbidden {
		t.Fatalf("the removed member's page: %d", page.status)
	}
	for _, want := range []string{"You were removed from “Tuesday group”", "ask the host for the room’s code and join again", `href="/join"`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("the page does not say %q:\n%s", want, page.body)
		}
	}
	for _, never := range []string{"host link", ">Forbidden<", "no longer has a seat"} {
		if strings.Contains(page.body, never) {
			t.Errorf("the page says %q:\n%s", never, page.body)
		}
	}
}

// TestMemberBecomesHost: a member's browser that confirms a host link becomes the host, and the
// host stops waiting for that member's answers.
func TestMemberBecomesHost(t *testing.T) {
	s := newHarness(t, limits{})
	s.e.POST("/api/rooms/:code/host-link", s.h.APIHostLink(), s.h.CodeGate)
	s.e.POST("/rooms/:id/host", s.h.HostUse())
	code, host := s.createRoom(t, "Handover")
	ada := s.join(t, code, "Ada")
	s.join(t, code, "Bob")
	path := "/api/rooms/" + code
	must(t, s.call("POST", path+"/rounds", host, `{"question":"q1"}`), http.StatusCreated, nil)
	var link struct {
		URL string `json:"host_url"`
	}
	must(t, s.call("POST", path+"/host-link", host, ``), http.StatusCreated, &link)
	u, err := url.Parse(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	id := s.ids[code]
	req := httptest.NewRequest("POST", "/rooms/"+id+"/host", strings.NewReader(url.Values{"token": {u.Query().Get("token")}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: SeatCookie + id, Value: ada})
	rec := httptest.NewRecorder()
	s.e.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("confirming the host link: %d %s", rec.Code, rec.Body)
	}
	st := s.state(t, code, host)
	if st.Unanswered == nil || slices.Contains(*st.Unanswered, "Ada") || st.Rounds[0].Of != 1 {
		t.Errorf("after Ada became the host, the host waits for %v, of %d", st.Unanswered, st.Rounds[0].Of)
	}
}

// barOf renders the room bar a request with cookies would get on a notebook page, and answers it
// with the cookies the answer sets ("" when there is no bar).
func (s *harness) barOf(t *testing.T, cookies ...*http.Cookie) (string, []*http.Cookie) {
	t.Helper()
	req := httptest.NewRequest("GET", "/blocks/4", nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	v := s.h.Bar(s.e.NewContext(req, rec), pages.Site{})
	if v == nil {
		return "", rec.Result().Cookies()
	}
	var b strings.Builder
	if err := pages.RoomBar(*v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String(), rec.Result().Cookies()
}

func cookieNamed(cs []*http.Cookie, name string) *http.Cookie {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TestHiddenBarComesBack: hiding the bar says that it stops following; afterwards the notebook's
// pages show one line with the room and a button that brings the bar back.
func TestHiddenBarComesBack(t *testing.T) {
	s := newHarness(t, limits{})
	code, _ := s.createRoom(t, "Tuesday group")
	ada := s.join(t, code, "Ada")
	id := s.ids[code]
	seat := &http.Cookie{Name: SeatCookie + id, Value: ada}
	bar, _ := s.barOf(t, seat, &http.Cookie{Name: currentCookie, Value: id})
	if !strings.Contains(bar, "Hide this bar and stop following") || !strings.Contains(bar, "data-room-stream") {
		t.Fatalf("the member's bar:\n%s", bar)
	}
	req := httptest.NewRequest("POST", "/rooms/"+id+"/leave", strings.NewReader("return=%2Fblocks%2F4"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(seat)
	req.AddCookie(&http.Cookie{Name: currentCookie, Value: id})
	rec := httptest.NewRecorder()
	s.e.ServeHTTP(rec, req)
	hidden := cookieNamed(rec.Result().Cookies(), hiddenCookie)
	if rec.Code != http.StatusSeeOther || hidden == nil || hidden.Value != id {
		t.Fatalf("hiding the bar: %d, cookies %v", rec.Code, rec.Result().Cookies())
	}
	line, _ := s.barOf(t, seat, hidden)
	for _, want := range []string{"Tuesday group", code, "your page does not follow the host", "Show the bar", `action="/rooms/` + id + `/show"`} {
		if !strings.Contains(line, want) {
			t.Errorf("the hidden bar's line does not say %q:\n%s", want, line)
		}
	}
	if strings.Contains(line, "sse-connect") {
		t.Errorf("the hidden bar still opens a stream:\n%s", line)
	}
	req = httptest.NewRequest("POST", "/rooms/"+id+"/show", strings.NewReader("return=%2Fblocks%2F4"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(seat)
	req.AddCookie(hidden)
	rec = httptest.NewRecorder()
	s.e.ServeHTTP(rec, req)
	cs := rec.Result().Cookies()
	if cur := cookieNamed(cs, currentCookie); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/blocks/4" || cur == nil || cur.Value != id {
		t.Fatalf("showing the bar again: %d to %q, cookies %v", rec.Code, rec.Header().Get("Location"), cs)
	}
	if h := cookieNamed(cs, hiddenCookie); h == nil || h.MaxAge >= 0 {
		t.Errorf("showing the bar left the hidden mark: %v", cs)
	}
}

// TestClosedRoomSaysSoOnce: after the host closes the room, a member's next notebook page says
// the room is closed, once; the host's room page no longer invites them to present a page.
func TestClosedRoomSaysSoOnce(t *testing.T) {
	s := newHarness(t, limits{})
	s.e.GET("/rooms/:id", s.h.Page())
	code, host := s.createRoom(t, "Tuesday group")
	ada := s.join(t, code, "Ada")
	id := s.ids[code]
	ctx := context.Background()
	r, err := s.h.rooms.RoomByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	hostCaller, err := s.h.rooms.Identify(ctx, r, host)
	if err != nil {
		t.Fatal(err)
	}
	// The room closes while it presents a page and a round waits for Ada's answer.
	if err := s.h.rooms.Present(ctx, hostCaller, "/blocks/4"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.h.rooms.OpenRound(ctx, hostCaller, rooms.Question{Kind: rooms.KindCustom, Text: "How many?", Max: 10}); err != nil {
		t.Fatal(err)
	}
	if open := s.send("GET", "/rooms/"+id, host, "", ""); !strings.Contains(open.body, "Not answered yet") || !strings.Contains(open.body, "You are showing") {
		t.Fatalf("the open room's host page does not wait for Ada nor show the presented page: the checks below measure nothing\n%s", open.body)
	}
	if err := s.h.rooms.CloseRoom(ctx, hostCaller); err != nil {
		t.Fatal(err)
	}
	seat := &http.Cookie{Name: SeatCookie + id, Value: ada}
	bar, cs := s.barOf(t, seat, &http.Cookie{Name: currentCookie, Value: id})
	if !strings.Contains(bar, "Tuesday group</a> is closed") || strings.Contains(bar, "sse-connect") {
		t.Errorf("the bar after the room closed:\n%s", bar)
	}
	if cur := cookieNamed(cs, currentCookie); cur == nil || cur.MaxAge >= 0 {
		t.Errorf("the notebook still follows the closed room: %v", cs)
	}
	if again, _ := s.barOf(t, seat); again != "" {
		t.Errorf("the closed room's notice came twice:\n%s", again)
	}
	page := s.send("GET", "/rooms/"+id, host, "", "")
	if page.status != http.StatusOK || !strings.Contains(page.body, "This room is closed") || strings.Contains(page.body, "Present this page") {
		t.Errorf("the host's page of the closed room: %d\n%s", page.status, page.body)
	}
	// A closed room waits for no one and presents nothing.
	for _, stale := range []string{"Not answered yet", "You are showing"} {
		if strings.Contains(page.body, stale) {
			t.Errorf("the host's page of the closed room still says %q", stale)
		}
	}
}
