package site

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"effectivelyonce/pages"
)

// TestPresenceSurvivesANewCode checks that a member whose stream stays open stays present after
// the host gives the room a new join code: the stream's heartbeat must renew presence under the
// room's current code, not the one it connected with.
func TestPresenceSurvivesANewCode(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	cfg := testConfig()
	cfg.Rooms.Now = clock
	s := newTestServer(t, cfg)
	s.rooms.SetHeartbeat(20 * time.Millisecond)
	base := serveLoopback(t, s)
	api := memberClient()

	var room created
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Codes"}`, http.StatusCreated, &room)
	var ada struct {
		Key string `json:"member_key"`
	}
	mustAPI(t, api, "POST", base+"/api/rooms/"+room.Code+"/members", "", `{"name":"Ada"}`, http.StatusCreated, &ada)
	status, stream, err := openStream(t.Context(), streamClient(), base+"/api/rooms/"+room.Code+"/events", ada.Key)
	if err != nil || status != http.StatusOK {
		t.Fatalf("stream: %d %v", status, err)
	}
	defer stream.Close()
	if _, err := stream.Snapshot(streamWait, pages.RoomParts); err != nil {
		t.Fatal(err)
	}
	id := room.HostURL[strings.Index(room.HostURL, "/rooms/")+len("/rooms/") : strings.Index(room.HostURL, "/host?")]

	host := newBrowser(t, s)
	bearer := []string{"Authorization", "Bearer " + room.HostKey}
	if r := host.send("POST", "/rooms/"+id+"/code", nil, true, bearer...); r.status != http.StatusNoContent {
		t.Fatalf("new code: %d %s", r.status, r.body)
	}
	page := host.send("GET", "/rooms/"+id, nil, false, bearer...).body
	i := strings.Index(page, "/j/")
	if i < 0 || page[i+3:i+9] == room.Code {
		t.Fatal("the host's page does not show a new join code")
	}
	newCode := page[i+3 : i+9]
	var st roomJSON
	// The stream hears of the new code (a status redraw for the host; any redraw re-reads the room).
	if _, _, err := stream.Until(streamWait, func(ev sseEvent) bool { return true }); err != nil {
		t.Fatalf("no redraw after the new code: %v", err)
	}
	mu.Lock()
	now = now.Add(time.Minute) // long past the presence window, so only a renewal keeps Ada present
	mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for {
		mustAPI(t, api, "GET", base+"/api/rooms/"+newCode, room.HostKey, "", http.StatusOK, &st)
		if len(st.Roster) == 1 && st.Roster[0].Present {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Ada's open stream no longer keeps her present after the new code: %+v", st.Roster)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRosterFadesWithoutAnyChange checks that a member whose tab closed drops off "here" on the
// host's open page by itself, in a room where nothing else happens: streams redraw on the beat.
func TestRosterFadesWithoutAnyChange(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	cfg := testConfig()
	cfg.Rooms.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := newTestServer(t, cfg)
	s.rooms.SetHeartbeat(20 * time.Millisecond)
	base := serveLoopback(t, s)
	api := memberClient()
	var room created
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Quiet"}`, http.StatusCreated, &room)
	var ada struct {
		Key string `json:"member_key"`
	}
	mustAPI(t, api, "POST", base+"/api/rooms/"+room.Code+"/members", "", `{"name":"Ada"}`, http.StatusCreated, &ada)
	events := base + "/api/rooms/" + room.Code + "/events"
	_, hostStream, err := openStream(t.Context(), streamClient(), events, room.HostKey)
	if err != nil {
		t.Fatal(err)
	}
	defer hostStream.Close()
	_, adaStream, err := openStream(t.Context(), streamClient(), events, ada.Key)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := hostStream.Until(streamWait, named(pages.PartRoster, "1 here now")); err != nil {
		t.Fatalf("Ada never showed as here: %v", err)
	}
	adaStream.Close()
	// The clock moves on only once the server has seen Ada's stream end (its leave is recorded
	// before the stream count drops): a leave noticed after the jump would be stamped a minute
	// late, and the frozen clock would then never let it fade.
	deadline := time.Now().Add(30 * time.Second)
	for s.rooms.Streams() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the server still holds %d streams after Ada's closed", s.rooms.Streams())
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if _, _, err := hostStream.Until(streamWait, named(pages.PartRoster, "0 here now")); err != nil {
		t.Fatalf("Ada, whose stream closed, still shows as here a minute later: %v", err)
	}
}
