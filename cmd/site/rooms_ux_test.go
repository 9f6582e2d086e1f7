package main

// What a host and members see and use in a room, through the whole middleware stack: the top bar
// inside a room, the notebook page a back button restores, what a host may present, removing a
// member, the numbers a round can ask about.

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
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
	// A member who hid the bar is no longer in the room as the notebook sees it: the offer is back.
	ada.post(roomPath+"/leave", url.Values{"return": {"/blocks/2"}})
	if r := ada.get("/blocks/2"); !strings.Contains(r.body, offer) {
		t.Errorf("after hiding the bar the top bar does not offer %q", offer)
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
