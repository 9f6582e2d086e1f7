package roomsweb

import (
	"net/http"
	"net/url"
	"testing"
)

// TestOneRoomReadPerAction holds the common actions to one read of their room, from a room's page
// (which names the room by id) and from the API (by join code) alike: the edge resolves the room
// and the caller once and hands them to the rooms' Service, which never reads the room again. The
// other reads are what each action needs besides: a member's seat by their key, the rounds a guess
// is judged against, everything a reveal's answer shows.
func TestOneRoomReadPerAction(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Reads")
	ada := s.join(t, code, "Ada")
	api, page := "/api/rooms/"+code, "/rooms/"+s.ids[code]
	adaID := s.state(t, code, ada).You.ID
	custom := url.Values{"question": {"custom"}, "text": {"How many?"}, "min": {"0"}, "max": {"100"}}
	for _, c := range []struct {
		name   string
		send   func() response
		status int
		total  int64 // every read the action makes
	}{
		{"API: open a round", func() response {
			return s.call("POST", api+"/rounds", host, `{"text":"How many?","min":0,"max":100}`)
		}, http.StatusCreated, 1},
		{"API: guess", func() response { return s.call("PUT", api+"/rounds/1/guess", ada, `{"value":5}`) }, http.StatusNoContent, 3},
		{"API: pin", func() response {
			return s.call("POST", api+"/pins", ada, `{"path":"/blocks/4","note":"the tail"}`)
		}, http.StatusCreated, 2},
		{"API: lock", func() response { return s.call("POST", api+"/rounds/1/lock", host, "") }, http.StatusOK, 1},
		{"API: reveal", func() response { return s.call("POST", api+"/rounds/1/reveal", host, `{"measured":7}`) }, http.StatusOK, 5},
		{"API: the room", func() response { return s.call("GET", api, ada, "") }, http.StatusOK, 6},
		{"page: open a round", func() response { return s.post(page+"/rounds", host, custom) }, http.StatusSeeOther, 1},
		{"page: guess", func() response {
			return s.post(page+"/rounds/2/guess", ada, url.Values{"value": {"6"}, "confidence": {"high"}})
		}, http.StatusSeeOther, 3},
		{"page: pin", func() response {
			return s.post(page+"/pins", ada, url.Values{"path": {"/blocks/2"}, "note": {"again"}})
		}, http.StatusSeeOther, 2},
		{"page: reveal", func() response {
			return s.post(page+"/rounds/2/reveal", host, url.Values{"measured": {"8"}})
		}, http.StatusSeeOther, 1},
		// A handler round: a submission reads the rounds it is judged against besides; putting
		// one on the projector reads the submissions and the handler's source.
		{"API: open a handler round", func() response {
			return s.call("POST", api+"/rounds", host, `{"kind":"handler","template":"ack-after-work"}`)
		}, http.StatusCreated, 1},
		{"API: submit", func() response {
			return s.call("POST", api+"/rounds/3/submission", ada, `{"source":`+jsonString(failing)+`}`)
		}, http.StatusOK, 3},
		{"page: submit", func() response {
			return s.post(page+"/rounds/3/submission", ada, url.Values{"source": {passing}})
		}, http.StatusOK, 3},
		{"page: reveal a handler round", func() response { return s.post(page+"/rounds/3/reveal", host, nil) }, http.StatusSeeOther, 1},
		{"page: show on the projector", func() response {
			return s.post(page+"/rounds/3/projector", host, url.Values{"shown": {adaID}})
		}, http.StatusSeeOther, 4},
		{"page: start a lab run the room watches", func() response {
			return s.post(page+"/lab", host, url.Values{"design": {"ack-after-work"}, "jobs": {"100"}})
		}, http.StatusSeeOther, 1},
	} {
		before := s.h.Rooms().Reads()
		r := c.send()
		got := s.h.Rooms().Reads().Minus(before)
		if r.status != c.status {
			t.Fatalf("%s: %d %s, want %d", c.name, r.status, r.body, c.status)
		}
		t.Logf("%-20s %d reads: %+v", c.name, got.Total(), got)
		if got.Rooms != 1 {
			t.Errorf("%s read its room %d times, want once", c.name, got.Rooms)
		}
		if got.Total() != c.total {
			t.Errorf("%s made %d reads (%+v), want %d", c.name, got.Total(), got, c.total)
		}
	}
}
