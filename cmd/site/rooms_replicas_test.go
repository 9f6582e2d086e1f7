package main

// The "more than one replica": with Postgres, several server processes behind a load
// balancer serve one room, and a change made through any of them reaches the streams held by
// every other, through LISTEN/NOTIFY (rooms/live). Two real server processes share one schema
// here; the room is made and run through replica A while a member watches through replica B.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"effectivelyonce/internal/pgtest"
	"effectivelyonce/internal/sitetest"
	"effectivelyonce/pages"
)

// TestTwoReplicasShareARoom: a member whose stream is on replica B sees, on that stream, the round
// the host opened through replica A, the count move when another member guesses through A, and
// the reveal made through A with its measured value, each within sitetest.StreamWait.
func TestTwoReplicasShareARoom(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real server processes")
	}
	url := pgtest.URL(t, "the two-replica test")
	// One schema, two processes, each with a data directory of its own: were DATABASE_URL ever
	// ignored, each would keep its rooms in its own SQLite file and B would not know the room.
	dsn := freshSchemaURL(t, url)
	a := startKillable(t, "DATABASE_URL="+dsn, "DATA_DIR="+t.TempDir())
	b := startKillable(t, "DATABASE_URL="+dsn, "DATA_DIR="+t.TempDir())
	for name, k := range map[string]*killable{"A": a, "B": b} {
		if d := k.dialect(t); d != "postgres" {
			t.Fatalf("replica %s stores rooms in %s, want postgres", name, d)
		}
	}
	if a.base == b.base {
		t.Fatalf("both replicas serve %s", a.base)
	}

	var room sitetest.Created
	a.must(t, "POST", "/api/rooms", "", `{"title":"Two replicas"}`, http.StatusCreated, &room)
	path := "/api/rooms/" + room.Code
	keys := map[string]string{}
	for _, name := range []string{"Ada", "Bob"} {
		var j struct {
			Key string `json:"member_key"`
		}
		a.must(t, "POST", path+"/members", "", `{"name":"`+name+`"}`, http.StatusCreated, &j)
		keys[name] = j.Key
	}

	status, ada, err := sitetest.OpenStream(t.Context(), sitetest.StreamClient(), b.base+path+"/events", keys["Ada"])
	if err != nil || status != http.StatusOK {
		t.Fatalf("Ada's stream on replica B: %d %v", status, err)
	}
	defer ada.Close()
	snap, err := ada.Snapshot(sitetest.StreamWait, pages.RoomParts)
	if err != nil {
		t.Fatalf("Ada's snapshot on replica B: %v", err)
	}
	if r := sitetest.Text(snap[pages.PartRoster]); !strings.Contains(r, "Ada") || !strings.Contains(r, "Bob") {
		t.Fatalf("replica B's roster %q, want the two members seated through A", r)
	}
	if r := snap[pages.PartRound]; strings.Contains(r, "data-round=") {
		t.Fatalf("replica B shows a round before any was opened: %s", r)
	}

	var rd struct {
		Seq int `json:"seq"`
	}
	a.must(t, "POST", path+"/rounds", room.HostKey, `{"text":"How many replicas?","min":0,"max":100}`, http.StatusCreated, &rd)
	open, _, err := ada.Until(sitetest.StreamWait, sitetest.Named(pages.PartRound, fmt.Sprintf(`data-round="%d"`, rd.Seq), `data-state="open"`))
	if err != nil {
		t.Fatalf("the round opened through A never reached Ada's stream on B: %v", err)
	}
	if !strings.Contains(open.Data, "How many replicas?") || !strings.Contains(open.Data, `name="value"`) {
		t.Errorf("the round on B is not the question asked through A with a guess form: %s", open.Data)
	}

	guess := fmt.Sprintf("%s/rounds/%d/guess", path, rd.Seq)
	a.must(t, "PUT", guess, keys["Bob"], `{"value":37}`, http.StatusNoContent, nil)
	count, _, err := ada.Until(sitetest.StreamWait, func(ev sitetest.SSEEvent) bool {
		return ev.Name == pages.PartCount && strings.Contains(sitetest.Text(ev.Data), "1 of 2")
	})
	if err != nil {
		t.Fatalf("Bob's guess through A never moved the count on Ada's stream on B: %v", err)
	}
	if got := sitetest.Text(count.Data); got != "1 of 2 answered" {
		t.Errorf("count on B %q, want 1 of 2 answered", got)
	}
	if strings.Contains(count.Data, "37") {
		t.Errorf("Bob's value shows on B before the reveal: %s", count.Data)
	}

	a.must(t, "POST", fmt.Sprintf("%s/rounds/%d/reveal", path, rd.Seq), room.HostKey, `{"measured":42}`, http.StatusOK, nil)
	revealed, _, err := ada.Until(sitetest.StreamWait, sitetest.Named(pages.PartRound, "data-measured"))
	if err != nil {
		t.Fatalf("the reveal through A never reached Ada's stream on B within %s: %v", sitetest.StreamWait, err)
	}
	facts := sitetest.Text(revealed.Data)
	for _, want := range []string{"measured", "Measured 42", "Median guess 37", `data-state="revealed"`} {
		hay := facts
		if strings.HasPrefix(want, "data-") {
			hay = revealed.Data
		}
		if !strings.Contains(hay, want) {
			t.Errorf("the revealed round on B lacks %q: %s", want, facts)
		}
	}
	if !strings.Contains(revealed.Data, "data-measured>42<") {
		t.Errorf("the measured value on B is not 42: %s", revealed.Data)
	}
}
