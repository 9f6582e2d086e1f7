package site

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"

	"effectivelyonce/pages"
)

// TestRoomChangeDrawsEachPartOnce holds a room's change to one drawing per distinct part, however
// many members' streams the room has: the streams share what one of them drew for a part's key,
// and a stream whose part's key did not change draws nothing. It counts the drawings through the
// site's metric of them (site_room_part_renders_total) for a room of 3 members and one of 12, and
// the two must draw alike: opening a round draws the round once and the history once (nobody
// answered the round before, so every member's history is the same); a member's guess draws the
// count once and that member's own round; the reveal draws the count once, and the round once per
// member who answered (each sees how far off they were) and once for all who did not.
func TestRoomChangeDrawsEachPartOnce(t *testing.T) {
	var got []map[string]map[string]int
	for _, members := range []int{3, 12} {
		t.Run(fmt.Sprintf("%d members", members), func(t *testing.T) {
			s := newTestServer(t, testConfig())
			base := serveLoopback(t, s)
			room := newLoopbackRoom(t, base, members)
			api := memberClient()
			rb := base + "/api/rooms/" + room.Code

			// One stream per member, opened one at a time: every stream then shows everyone who
			// arrived before the next one does, so no arrival is still being drawn when counting.
			streams := streamClient()
			var open []*sseStream
			for m, key := range room.MemberKeys {
				status, st, err := openStream(t.Context(), streams, rb+"/events", key)
				if err != nil || status != http.StatusOK {
					t.Fatalf("member %d's stream: %d %v", m, status, err)
				}
				t.Cleanup(st.Close)
				here := fmt.Sprintf(">%d here now", m+1)
				snap, err := st.Snapshot(streamWait, pages.RoomParts)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(snap[pages.PartRoster], here) {
					if _, _, err := st.Until(streamWait, named(pages.PartRoster, here)); err != nil {
						t.Fatalf("member %d's roster: %v", m, err)
					}
				}
				for o, st := range open {
					if _, _, err := st.Until(streamWait, named(pages.PartRoster, here)); err != nil {
						t.Fatalf("member %d's roster after member %d arrived: %v", o, m, err)
					}
				}
				open = append(open, st)
			}

			drawn := map[string]map[string]int{}
			// step makes one change and waits until every stream shows it, then counts what the
			// change drew: once each stream has sent what the change made it send, it has drawn
			// every part of that change.
			step := func(name string, change func(), shown func(m int) func(sseEvent) bool) {
				t.Helper()
				before := partRenders(t, s)
				change()
				for m, st := range open {
					if _, _, err := st.Until(streamWait, shown(m)); err != nil {
						t.Fatalf("%s: member %d's stream: %v", name, m, err)
					}
				}
				after := partRenders(t, s)
				d := map[string]int{}
				for part, n := range after {
					if n != before[part] {
						d[part] = n - before[part]
					}
				}
				drawn[name] = d
			}
			call := func(method, path, key, body string, status int) func() {
				return func() { mustAPI(t, api, method, rb+path, key, body, status, nil) }
			}
			all := func(pred func(sseEvent) bool) func(int) func(sseEvent) bool {
				return func(int) func(sseEvent) bool { return pred }
			}
			count := func(n int) func(sseEvent) bool {
				want := fmt.Sprintf("%d of %d answered", n, members)
				return func(ev sseEvent) bool { return ev.Name == pages.PartCount && text(ev.Data) == want }
			}
			step("open", call("POST", "/rounds", room.HostKey, `{"text":"How many?","min":0,"max":100}`, http.StatusCreated),
				all(named(pages.PartRound, `data-round="2"`, `data-state="open"`)))
			step("Ada guesses", call("PUT", "/rounds/2/guess", room.MemberKeys[0], `{"value":7}`, http.StatusNoContent), all(count(1)))
			step("Bea guesses", call("PUT", "/rounds/2/guess", room.MemberKeys[1], `{"value":9,"confidence":"high"}`, http.StatusNoContent), all(count(2)))
			step("reveal", call("POST", "/rounds/2/reveal", room.HostKey, `{"measured":8}`, http.StatusOK),
				all(named(pages.PartRound, `data-round="2"`, `data-state="revealed"`)))

			want := map[string]map[string]int{
				"open":        {pages.PartRound: 1, pages.PartHistory: 1},
				"Ada guesses": {pages.PartCount: 1, pages.PartRound: 1},
				"Bea guesses": {pages.PartCount: 1, pages.PartRound: 1},
				// Ada's round, Bea's, and the one of everyone who did not answer.
				"reveal": {pages.PartCount: 1, pages.PartRound: 3},
			}
			for name, w := range want {
				if !maps.Equal(drawn[name], w) {
					t.Errorf("%s with %d members' streams drew %v, want %v", name, members, drawn[name], w)
				}
			}
			got = append(got, drawn)
		})
	}
	if len(got) == 2 && !maps.EqualFunc(got[0], got[1], maps.Equal) {
		t.Errorf("a room of 3 and a room of 12 drew differently: %v and %v", got[0], got[1])
	}
}
