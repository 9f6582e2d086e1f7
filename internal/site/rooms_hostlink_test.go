package site

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// hostLinkOn reads the host link a host link page shows.
func hostLinkOn(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`<textarea id="host-link"[^>]*>([^<]+)</textarea>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no host link on the page")
	}
	return strings.ReplaceAll(m[1], "&amp;", "&")
}

// pathOf is a link's path and query, for the test's browsers, which talk to the handler directly.
func pathOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

// TestHostLinkAsksFirst checks how the host role reaches another browser: the link carries a
// token, never the host key; opening it (a GET, which a page elsewhere can make a victim's browser
// send) changes nothing and asks; only the confirmation, a POST from this site, makes the browser
// the host; the token works once. Starting a room is post, redirect, get: a reload of the page
// with the link shows the same link and opens no second room.
func TestHostLinkAsksFirst(t *testing.T) {
	s := newTestServer(t, testConfig())
	host := newBrowser(t, s)
	r := host.post("/rooms", url.Values{"title": {"Tokens"}})
	loc := r.header.Get("Location")
	if r.status != http.StatusSeeOther || !strings.HasSuffix(loc, "/host-link?after=opened") {
		t.Fatalf("starting a room: %d to %q, want a 303 to the host link page", r.status, loc)
	}
	roomPath := strings.TrimSuffix(loc, "/host-link?after=opened")
	var hostKey string
	for name, v := range host.cookies {
		if strings.HasPrefix(name, hostCookie) {
			hostKey = v
		}
	}
	first := host.get(loc)
	if first.status != http.StatusOK || first.header.Get("Cache-Control") != "no-store" || !strings.Contains(first.body, "is open") {
		t.Fatalf("the host link page: %d, Cache-Control %q", first.status, first.header.Get("Cache-Control"))
	}
	link := hostLinkOn(t, first.body)
	if !strings.Contains(link, roomPath+"/host?token=") || strings.Contains(link, hostKey) || strings.Contains(first.body, hostKey) {
		t.Errorf("the host link %q carries the host key, or is no token link", link)
	}
	// A reload: the same page, the same link, still one room.
	if again := host.get(loc); again.status != http.StatusOK || hostLinkOn(t, again.body) != link {
		t.Errorf("reloading the host link page: %d, a different link", again.status)
	}
	if n := len(host.cookies); n != 3 { // the host key, the current room, the link
		t.Errorf("after a reload the browser holds %d cookies: %v", n, host.cookies)
	}

	// Another browser opens the link, even from a page of another site: nothing changes until
	// the visitor confirms.
	phone := newBrowser(t, s)
	ask := phone.send("GET", pathOf(t, link), nil, false, "Sec-Fetch-Site", "cross-site")
	if ask.status != http.StatusOK || len(phone.cookies) != 0 || !strings.Contains(ask.body, `name="token"`) {
		t.Fatalf("opening the host link: %d, cookies %v; want a page that asks, and no cookie", ask.status, phone.cookies)
	}
	if r := phone.get(roomPath); r.status != http.StatusSeeOther {
		t.Fatalf("the phone reaches the room before confirming: %d", r.status)
	}
	token := pathOf(t, link)[strings.Index(pathOf(t, link), "token=")+len("token="):]
	token, _ = url.QueryUnescape(token)
	if r := phone.send("POST", roomPath+"/host", url.Values{"token": {token}}, false, "Sec-Fetch-Site", "cross-site"); r.status != http.StatusForbidden || len(phone.cookies) != 0 {
		t.Errorf("a confirmation posted from another site: %d, cookies %v; want 403 and none", r.status, phone.cookies)
	}
	if r := phone.post(roomPath+"/host", url.Values{"token": {token}}); r.status != http.StatusSeeOther || r.header.Get("Location") != roomPath {
		t.Fatalf("confirming: %d to %q", r.status, r.header.Get("Location"))
	}
	if page := phone.get(roomPath); page.status != http.StatusOK || !strings.Contains(page.body, "Open a new round") {
		t.Errorf("the phone is not the host after confirming: %d", page.status)
	}
	// Once used, the link is spent, for anyone; the host's page says so.
	if r := newBrowser(t, s).post(roomPath+"/host", url.Values{"token": {token}}); r.status != http.StatusForbidden {
		t.Errorf("a used link confirmed again: %d, want 403", r.status)
	}
	if r := newBrowser(t, s).get(pathOf(t, link)); r.status != http.StatusForbidden || !strings.Contains(r.body, "works once") {
		t.Errorf("a used link opened again: %d", r.status)
	}
	if r := host.get(loc); strings.Contains(r.body, `id="host-link"`) || !strings.Contains(r.body, "has been used") {
		t.Errorf("the host's page still shows the used link")
	}

	// The API: host_url is a token link, the host key is in the body only, and a host asks for
	// another link with the key.
	room := createRoom(t, s, "Scripted")
	if strings.Contains(room.HostURL, room.HostKey) || !strings.Contains(room.HostURL, "/host?token=") {
		t.Errorf("the API's host_url %q carries the key or no token", room.HostURL)
	}
	var fresh struct {
		HostURL string `json:"host_url"`
	}
	must(t, call(t, s, "POST", "/api/rooms/"+room.Code+"/host-link", room.HostKey, ""), http.StatusCreated, &fresh)
	if r := call(t, s, "POST", "/api/rooms/"+room.Code+"/host-link", join(t, s, room.Code, "Ada"), ""); r.status != http.StatusForbidden {
		t.Errorf("a member asking for a host link: %d", r.status)
	}
	b := newBrowser(t, s)
	if r := b.get(pathOf(t, fresh.HostURL)); r.status != http.StatusOK || !strings.Contains(r.body, "Scripted") {
		t.Errorf("the API's new host link: %d", r.status)
	}
}
