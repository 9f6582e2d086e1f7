package site

// The bounds on event streams (streams.go), over real connections: a key's oldest stream ends when
// it opens more than its tabs, and streams in all never take the share of the connection bound
// kept for everything else, so /healthz and the pages are answered whatever the streams do.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"effectivelyonce/internal/web"
	"effectivelyonce/internal/web/roomsweb"
	"effectivelyonce/pages"
)

// TestStreamsPerKeyEndTheOldest: with two tabs allowed per key, a third stream of Ada's ends her
// first one (it says why and sends "gone", so the tab does not reconnect), while her two newest and
// Bob's stream stay open and keep hearing of changes.
func TestStreamsPerKeyEndTheOldest(t *testing.T) {
	cfg := testConfig()
	cfg.RoomStreamsPerKey = 2
	s := newTestServer(t, cfg)
	base := serveLoopback(t, s)
	api := memberClient()
	var room created
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Tabs"}`, http.StatusCreated, &room)
	rb := base + "/api/rooms/" + room.Code
	keys := map[string]string{}
	for _, name := range []string{"Ada", "Bob"} {
		var j struct {
			Key string `json:"member_key"`
		}
		mustAPI(t, api, "POST", rb+"/members", "", `{"name":"`+name+`"}`, http.StatusCreated, &j)
		keys[name] = j.Key
	}
	var streams []*sseStream
	for i, name := range []string{"Ada", "Ada", "Bob", "Ada"} {
		status, st, err := openStream(t.Context(), streamClient(), rb+"/events", keys[name])
		if err != nil || status != http.StatusOK {
			t.Fatalf("stream %d (%s): %d %v", i+1, name, status, err)
		}
		defer st.Close()
		if _, err := st.Snapshot(streamWait, pages.RoomParts); err != nil {
			t.Fatalf("stream %d (%s): %v", i+1, name, err)
		}
		streams = append(streams, st)
	}
	// The tab says so, above what it showed, before it goes: not a page frozen without a word.
	ev, _, err := streams[0].Until(streamWait, named(pages.PartStatus, "This view stopped updating"))
	if err != nil {
		t.Fatalf("Ada's first stream after her third: %v; want a notice that it stopped", err)
	}
	if said := text(ev.Data); !strings.Contains(said, "open in another tab of this browser. Reload to take it back.") || !strings.Contains(said, "You are Ada") {
		t.Errorf("Ada's ended tab reads %q; want the notice above what it showed", said)
	}
	if _, _, err := streams[0].Until(streamWait, named("gone")); err != nil {
		t.Fatalf("Ada's first stream after her third: %v; want it ended with gone", err)
	}
	mustAPI(t, api, "POST", rb+"/rounds", room.HostKey, `{"question":"q1"}`, http.StatusCreated, nil)
	for i, st := range streams[1:] {
		if _, _, err := st.Until(streamWait, named(pages.PartRound)); err != nil {
			t.Errorf("stream %d did not hear of the new round: %v", i+2, err)
		}
	}
	if n := s.conns.OpenStreams(); n != 3 {
		t.Errorf("%d streams held, want 3", n)
	}
}

// TestHostScreensAllKeepUpdating: the host runs a room from several screens at once, the room page
// and a bar on the laptop, the projector on the classroom's PC and a preview of it, all with one
// key (a host link shares it). With two tabs per key, the host's six streams (two of each view)
// all hear every change, where the third used to end the first projector without a word. A
// seventh ends the oldest, a projector, which then shows what it last showed under a notice that
// it stopped, and goes.
func TestHostScreensAllKeepUpdating(t *testing.T) {
	cfg := testConfig()
	cfg.RoomStreamsPerKey = 2
	s := newTestServer(t, cfg)
	base := serveLoopback(t, s)
	api := memberClient()
	var room created
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Screens"}`, http.StatusCreated, &room)
	rb := base + "/api/rooms/" + room.Code
	views := []struct{ query string }{{"?view=projector"}, {"?view=projector"}, {""}, {""}, {"?view=bar"}, {"?view=bar"}}
	if n := cfg.RoomStreamsPerKey + roomsweb.HostExtraStreams; n != len(views) {
		t.Fatalf("the host may hold %d streams; the test opens %d", n, len(views))
	}
	partsOf := func(q string) []string {
		switch q {
		case "?view=projector":
			return pages.ProjectorParts
		case "?view=bar":
			return pages.BarParts
		}
		return pages.RoomParts
	}
	var streams []*sseStream
	for i, v := range views {
		status, st, err := openStream(t.Context(), streamClient(), rb+"/events"+v.query, room.HostKey)
		if err != nil || status != http.StatusOK {
			t.Fatalf("the host's stream %d (%q): %d %v", i+1, v.query, status, err)
		}
		defer st.Close()
		if _, err := st.Snapshot(streamWait, partsOf(v.query)); err != nil {
			t.Fatalf("the host's stream %d (%q): %v", i+1, v.query, err)
		}
		streams = append(streams, st)
	}
	mustAPI(t, api, "POST", rb+"/rounds", room.HostKey, `{"question":"q1"}`, http.StatusCreated, nil)
	for i, st := range streams {
		part := pages.PartRound
		if views[i].query == "?view=projector" {
			part = pages.PartScreen
		}
		ev, before, err := st.Until(streamWait, named(part, `data-round="1"`))
		if err != nil {
			t.Errorf("the host's stream %d (%q) did not hear of the new round: %v", i+1, views[i].query, err)
			continue
		}
		for _, e := range append(before, ev) {
			if e.Name == "gone" || strings.Contains(e.Data, "stopped updating") {
				t.Errorf("the host's stream %d (%q) was ended: %s %s", i+1, views[i].query, e.Name, text(e.Data))
			}
		}
	}
	if n := s.conns.OpenStreams(); n != len(views) {
		t.Errorf("%d streams held, want %d", n, len(views))
	}

	// One more: the oldest, the first projector, keeps its round on screen under the notice.
	status, st, err := openStream(t.Context(), streamClient(), rb+"/events?view=projector", room.HostKey)
	if err != nil || status != http.StatusOK {
		t.Fatalf("the host's seventh stream: %d %v", status, err)
	}
	defer st.Close()
	ev, _, err := streams[0].Until(streamWait, named(pages.PartScreen, "This view stopped updating"))
	if err != nil {
		t.Fatalf("the first projector after a seventh stream: %v; want a notice", err)
	}
	if said := text(ev.Data); !strings.Contains(said, "Reload to take it back.") || !strings.Contains(ev.Data, `data-round="1"`) {
		t.Errorf("the ended projector reads %q; want the notice above the round it showed", said)
	}
	if _, _, err := streams[0].Until(streamWait, named("gone")); err != nil {
		t.Errorf("the first projector: %v; want it ended with gone", err)
	}
	mustAPI(t, api, "POST", rb+"/rounds/1/reveal", room.HostKey, `{"measured":7}`, http.StatusOK, nil)
	for i, st := range streams[1:] {
		if views[i+1].query != "?view=projector" {
			continue
		}
		if _, _, err := st.Until(streamWait, named(pages.PartScreen, "Measured")); err != nil {
			t.Errorf("the host's stream %d (projector) did not hear of the reveal: %v", i+2, err)
		}
	}
}

// TestStreamsLeaveConnectionsForOthers: a flood of streams (every member of a room with every tab
// it may hold) takes at most three quarters of MAX_CONNS; the rest are refused with 503 and
// Retry-After, and /healthz answers 200 all along.
func TestStreamsLeaveConnectionsForOthers(t *testing.T) {
	cfg := testConfig()
	cfg.MaxConns = 12 // streams may hold 9
	cfg.RoomStreamsPerKey = 4
	s := newTestServer(t, cfg)
	base := serveLoopback(t, s)
	api := memberClient()
	var room created
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Flood"}`, http.StatusCreated, &room)
	rb := base + "/api/rooms/" + room.Code
	var keys []string
	for i := range 4 {
		var j struct {
			Key string `json:"member_key"`
		}
		mustAPI(t, api, "POST", rb+"/members", "", fmt.Sprintf(`{"name":"M%d"}`, i), http.StatusCreated, &j)
		keys = append(keys, j.Key)
	}
	api.CloseIdleConnections()
	codes := map[int]int{}
	for _, key := range keys[:3] {
		for range 4 {
			status, st, err := openStream(t.Context(), streamClient(), rb+"/events", key)
			if err != nil {
				t.Fatalf("stream: %v", err)
			}
			if st != nil {
				defer st.Close()
				if _, err := st.Snapshot(streamWait, pages.RoomParts); err != nil {
					t.Fatal(err)
				}
			}
			codes[status]++
		}
	}
	if codes[http.StatusOK] != 9 || codes[http.StatusServiceUnavailable] != 3 {
		t.Errorf("12 streams against MAX_CONNS=12: %v; want 9 opened and 3 refused with 503", codes)
	}
	for i := range 5 {
		resp, err := http.Get(base + "/healthz")
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("/healthz %d under the stream flood: %v %v", i+1, resp, err)
		}
		resp.Body.Close()
	}
	// A member who has no stream yet is refused too; one who has streams trades their oldest.
	if status, _, _ := openStream(t.Context(), streamClient(), rb+"/events", keys[3]); status != http.StatusServiceUnavailable {
		t.Errorf("a fourth member's stream: %d, want 503", status)
	}
	status, st, err := openStream(t.Context(), streamClient(), rb+"/events", keys[0])
	if err != nil || status != http.StatusOK {
		t.Fatalf("another stream of the first member's: %d %v, want 200 (ending their oldest)", status, err)
	}
	st.Close()
}

// TestMaxStreamsFitsMemory: streams never take the reserved quarter of the connections, and under
// a memory limit they take at most an eighth of it at streamCost each.
func TestMaxStreamsFitsMemory(t *testing.T) {
	for _, c := range []struct {
		conns int
		mem   int64
		want  int
	}{
		{3000, 0, 2250},
		{3072, 768 << 20, 768}, // a 1 GiB container: GOMEMLIMIT is 3/4 of it
		{18000, 18 << 30, 13500},
		{1, 0, 1},
	} {
		if got := web.MaxStreams(c.conns, c.mem); got != c.want {
			t.Errorf("maxStreams(%d, %d MB) = %d, want %d", c.conns, c.mem>>20, got, c.want)
		}
	}
}
