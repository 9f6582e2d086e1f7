package roomsweb

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/pages"
	"effectivelyonce/rooms"
)

// TestPartKeysDecideHTML holds every live part's key to its HTML, since the streams of a room
// share one drawing of a part per key: two views that give a part one key must draw it alike, or
// one viewer would be sent what another sees (a member's own guess, the names the host sees, the
// host's controls). It takes a room through a life (pins, a one-vote round with confidences and a
// reveal, a two-vote round whose names the host shows, a countdown paused and run out, a handler
// round with a handler on the projector, a lab run, a presented page, a removed member, the room
// closed) and at every step draws every part as every stream draws it: the host's page, bar and
// projector, each member's page and bar, with two states of who is here. Any key met twice must
// come with the same HTML. It also checks that the sharing is real: the count is one drawing for
// every member of a step, and each member's own round is theirs.
func TestPartKeysDecideHTML(t *testing.T) {
	clk := newClock()
	s := newHarness(t, limits{now: clk.Now})
	// The lab's box is the browser's own: the run's owner (here the host's browser) may cancel.
	s.h.lab.Watched = func(c echo.Context, id string) *pages.LabStatus {
		return &pages.LabStatus{ID: id, Running: true, Yours: c.Request().Header.Get("X-Browser") == "host",
			Settings: "ack-after-work, 100 jobs", Jobs: 100, Done: 40, CancelURL: "/lab/cancel"}
	}
	code, host := s.createRoom(t, "Keys")
	id := s.ids[code]
	keys := map[string]string{"host": host}
	for _, name := range []string{"Ada", "Bea", "Cy"} {
		keys[name] = s.join(t, code, name)
	}
	api, page := "/api/rooms/"+code, "/rooms/"+id
	do := func(r response, status int) {
		t.Helper()
		if r.status != status {
			t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
		}
	}
	seen := map[partKey]string{}  // every drawing, by part and key
	whose := map[partKey]string{} // who it was first drawn for, to say so when two differ
	check := func(step string) {
		t.Helper()
		sn, err := s.h.rooms.Snapshot(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		countKeys := map[uint64]bool{}
		for _, who := range []string{"host", "Ada", "Bea", "Cy"} {
			caller, err := sn.Caller(keys[who], rooms.HashKey(keys[who]))
			if err != nil {
				continue // Cy, once removed
			}
			modes := []streamMode{streamPage, streamBar}
			if who == "host" {
				modes = append(modes, streamProjector)
			}
			for _, mode := range modes {
				parts := map[streamMode][]string{streamPage: pages.RoomParts, streamBar: pages.BarParts, streamProjector: pages.ProjectorParts}[mode]
				for _, present := range []func(string) bool{func(string) bool { return false }, func(id string) bool { return id == caller.Member.ID }} {
					req := httptest.NewRequest("GET", "http://rooms.test"+page+"/events", nil)
					req.Header.Set("X-Browser", who)
					c := echo.New().NewContext(req, httptest.NewRecorder())
					v, err := s.h.streamView(c, pages.Site{}, &sn, caller, present, mode, "/blocks/4")
					if err != nil {
						t.Fatal(err)
					}
					for _, name := range parts {
						key, ok := v.PartKey(name)
						if !ok {
							t.Fatalf("%s: the %s part has no key", step, name)
						}
						var b strings.Builder
						if err := pages.RoomPart(v, name).Render(context.Background(), &b); err != nil {
							t.Fatal(err)
						}
						at := step + ", " + who + "'s " + [...]string{"page", "bar", "projector"}[mode]
						pk := partKey{name, key}
						if html, ok := seen[pk]; ok && html != b.String() {
							t.Errorf("the %s part has one key for %s and for %s, but draws\n%s\nand\n%s", name, whose[pk], at, html, b.String())
						} else if !ok {
							seen[pk], whose[pk] = b.String(), at
						}
						if who != "host" && mode == streamPage && name == pages.PartCount {
							countKeys[key] = true
						}
					}
				}
			}
		}
		if len(countKeys) > 1 {
			t.Errorf("%s: the members' counts have %d keys, want one drawing for all", step, len(countKeys))
		}
	}

	check("a new room")
	do(s.call("POST", api+"/pins", keys["Ada"], `{"path":"/blocks/4","note":"the tail"}`), http.StatusCreated)
	do(s.call("POST", api+"/pins", keys["Bea"], `{"path":"/blocks/2","note":"look"}`), http.StatusCreated)
	check("two pins")

	// A one-vote round with confidences, locked, revealed.
	do(s.call("POST", api+"/rounds", host, `{"text":"How many?","min":0,"max":100}`), http.StatusCreated)
	check("a round opened")
	do(s.call("PUT", api+"/rounds/1/guess", keys["Ada"], `{"value":7,"confidence":"low"}`), http.StatusNoContent)
	check("Ada answered")
	do(s.call("PUT", api+"/rounds/1/guess", keys["Bea"], `{"value":9,"confidence":"high"}`), http.StatusNoContent)
	check("Bea answered")
	do(s.call("POST", api+"/rounds/1/lock", host, ""), http.StatusOK)
	do(s.call("POST", api+"/rounds/1/reveal", host, `{"measured":8}`), http.StatusOK)
	check("the round revealed")
	sn, _ := s.h.rooms.Snapshot(context.Background(), id)
	ada, _ := sn.Caller(keys["Ada"], rooms.HashKey(keys["Ada"]))
	bea, _ := sn.Caller(keys["Bea"], rooms.HashKey(keys["Bea"]))
	cy, _ := sn.Caller(keys["Cy"], rooms.HashKey(keys["Cy"]))
	roundKey := func(c rooms.Caller) uint64 {
		v := s.h.roomViewOf(context.Background(), pages.Site{}, sn.View(c, nil), false, "")
		k, _ := v.PartKey(pages.PartRound)
		return k
	}
	if roundKey(ada) == roundKey(bea) || roundKey(ada) == roundKey(cy) {
		t.Error("after the reveal Ada's round has the key of Bea's or Cy's: each sees how far off they were")
	}

	// A two-vote round: first votes, the second vote, the reveal, names shown to members.
	do(s.call("POST", api+"/rounds", host, `{"text":"How many now?","min":0,"max":100,"votes":2}`), http.StatusCreated)
	do(s.call("PUT", api+"/rounds/2/guess", keys["Ada"], `{"value":5,"confidence":"medium"}`), http.StatusNoContent)
	do(s.call("PUT", api+"/rounds/2/guess", keys["Cy"], `{"value":12}`), http.StatusNoContent)
	check("a first vote")
	do(s.call("POST", api+"/rounds/2/second-vote", host, ""), http.StatusOK)
	check("the second vote begun")
	do(s.call("PUT", api+"/rounds/2/guess", keys["Ada"], `{"value":7,"confidence":"high"}`), http.StatusNoContent)
	do(s.call("PUT", api+"/rounds/2/guess", keys["Bea"], `{"value":6}`), http.StatusNoContent)
	check("second answers")
	do(s.call("POST", api+"/rounds/2/reveal", host, `{"measured":7}`), http.StatusOK)
	check("the two votes revealed")
	do(s.post(page+"/rounds/2/names", host, url.Values{"visible": {"true"}}), http.StatusSeeOther)
	check("names shown")

	// A countdown, paused, resumed, run out.
	do(s.call("POST", api+"/rounds", host, `{"text":"How fast?","min":0,"max":100,"seconds":30}`), http.StatusCreated)
	do(s.call("PUT", api+"/rounds/3/guess", keys["Bea"], `{"value":3}`), http.StatusNoContent)
	check("a countdown")
	clk.advance(10 * time.Second)
	check("ten seconds later")
	do(s.call("POST", api+"/rounds/3/timer", host, `{"paused":true}`), http.StatusOK)
	check("the countdown paused")
	do(s.call("POST", api+"/rounds/3/timer", host, `{"paused":false}`), http.StatusOK)
	clk.advance(time.Minute)
	check("time up")

	// A handler round: two submissions, the reveal, Ada's handler on the projector.
	do(s.call("POST", api+"/rounds", host, `{"kind":"handler","template":"ack-after-work"}`), http.StatusCreated)
	check("a handler round")
	do(s.call("POST", api+"/rounds/4/submission", keys["Ada"], `{"source":`+jsonString(failing)+`}`), http.StatusOK)
	do(s.call("POST", api+"/rounds/4/submission", keys["Bea"], `{"source":`+jsonString(passing)+`}`), http.StatusOK)
	check("two handlers")
	do(s.post(page+"/rounds/4/reveal", host, nil), http.StatusSeeOther)
	check("the handlers revealed")
	do(s.post(page+"/rounds/4/projector", host, url.Values{"shown": {ada.Member.ID}}), http.StatusSeeOther)
	check("Ada's handler on the projector")

	// A lab run the room watches, a presented page, a member removed, the room closed.
	do(s.post(page+"/lab", host, url.Values{"design": {"ack-after-work"}, "jobs": {"100"}}), http.StatusSeeOther)
	check("a lab run")
	do(s.post(page+"/present", host, url.Values{"path": {"/blocks/4"}}), http.StatusSeeOther)
	check("a page presented")
	do(s.post(page+"/members/"+cy.Member.ID+"/kick", host, url.Values{"confirmed": {"yes"}}), http.StatusSeeOther)
	check("Cy removed")
	do(s.post(page+"/close", host, url.Values{"confirmed": {"yes"}}), http.StatusSeeOther)
	check("the room closed")
	if len(seen) < 100 {
		t.Errorf("only %d distinct drawings over the room's life: the test draws too little to hold anything", len(seen))
	}
}
