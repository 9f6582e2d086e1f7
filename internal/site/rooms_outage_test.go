package site

// The rooms when the database fails: a database that is down or restarting answers 503 with
// Retry-After (the request can be made again, nothing is wrong with it), and a single dropped
// connection in the pool (a backend terminated by a restart or an operator, SQLSTATE 57P01) is
// retried once before it reaches anyone. On a Postgres cluster of the test's own, so that stopping
// it disturbs no other test.

import (
	"context"
	"database/sql"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"effectivelyonce/internal/pgtest"
	"effectivelyonce/pages"
)

// terminateOthers ends every other backend of the cluster, as pg_terminate_backend (or a restart)
// does to a pool's idle connections, and answers how many it ended.
func terminateOthers(t *testing.T, url string) int {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	err = db.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRoomsWhenTheDatabaseFails: pooled connections cut under the store are retried (every answer
// stays right), a stopped database answers 503 with Retry-After on the API and the pages, and once
// it is back the same requests succeed.
func TestRoomsWhenTheDatabaseFails(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Postgres cluster")
	}
	pg := pgtest.NewCluster(t)
	cfg := testConfig()
	cfg.DatabaseURL = pg.URL
	s := newTestServer(t, cfg)
	room := createRoom(t, s, "Outage")
	ada := join(t, s, room.Code, "Ada")
	path := "/api/rooms/" + room.Code
	must(t, call(t, s, "POST", path+"/rounds", room.HostKey, `{"question":"q1"}`), http.StatusCreated, nil)

	for i := range 3 {
		// Warm several pooled connections, then cut them all.
		for range 4 {
			must(t, call(t, s, "GET", path, ada, ""), http.StatusOK, nil)
		}
		if n := terminateOthers(t, pg.URL); n == 0 {
			t.Fatal("no backend to terminate: the store holds no pooled connection")
		}
		if r := call(t, s, "PUT", path+"/rounds/1/guess", ada, `{"value":7}`); r.status != http.StatusNoContent {
			t.Fatalf("guess %d right after the pool's connections were cut: %d %s", i+1, r.status, r.body)
		}
		if r := call(t, s, "GET", path, ada, ""); r.status != http.StatusOK {
			t.Fatalf("read %d right after the pool's connections were cut: %d %s", i+1, r.status, r.body)
		}
	}

	pg.Stop()
	b := newBrowser(t, s)
	for _, c := range []struct{ method, target, key, body string }{
		{"GET", path, ada, ""},
		{"PUT", path + "/rounds/1/guess", ada, `{"value":8}`},
		{"POST", "/api/rooms", "", `{"title":"While down"}`},
		{"POST", path + "/members", "", `{"name":"Bob"}`},
	} {
		r := call(t, s, c.method, c.target, c.key, c.body)
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !strings.Contains(r.body, "database") {
			t.Errorf("%s %s with the database down: %d %q %s; want 503 with Retry-After", c.method, c.target, r.status, r.header.Get("Retry-After"), r.body)
		}
	}
	if r := b.get("/j/" + room.Code); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("the join page with the database down: %d %q", r.status, r.header.Get("Retry-After"))
	}

	pg.Start()
	ctx, cancel := context.WithTimeout(t.Context(), streamWait)
	defer cancel()
	for {
		r := call(t, s, "PUT", path+"/rounds/1/guess", ada, `{"value":9}`)
		if r.status == http.StatusNoContent {
			break
		}
		if r.status != http.StatusServiceUnavailable || ctx.Err() != nil {
			t.Fatalf("guess after the database came back: %d %s", r.status, r.body)
		}
		time.Sleep(20 * time.Millisecond) // the pool reconnects on the next try
	}
}

// TestStreamsResynchroniseAfterAnOutage: two replicas share a database that stops and starts
// again. A member's stream on replica B stays open through the outage (its re-reads fail and are
// tried again, they do not end it), and a guess made through replica A once the database is back
// reaches it.
func TestStreamsResynchroniseAfterAnOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Postgres cluster")
	}
	pg := pgtest.NewCluster(t)
	cfg := testConfig()
	cfg.DatabaseURL = pg.URL
	a, b := newTestServer(t, cfg), newTestServer(t, cfg)
	b.rooms.SetHeartbeat(20 * time.Millisecond) // so that B re-reads the room during the outage
	baseB := serveLoopback(t, b)
	room := createRoom(t, a, "Outage")
	ada, bob := join(t, a, room.Code, "Ada"), join(t, a, room.Code, "Bob")
	path := "/api/rooms/" + room.Code
	must(t, call(t, a, "POST", path+"/rounds", room.HostKey, `{"question":"q1"}`), http.StatusCreated, nil)
	status, st, err := openStream(t.Context(), streamClient(), baseB+path+"/events", ada)
	if err != nil || status != http.StatusOK {
		t.Fatalf("Ada's stream on B: %d %v", status, err)
	}
	defer st.Close()
	if _, err := st.Snapshot(streamWait, pages.RoomParts); err != nil {
		t.Fatal(err)
	}

	pg.Stop()
	for metricValue(do(t, b, "GET", "/metrics", nil).body, "site_room_stream_rereads_failed_total") < 3 {
		select {
		case <-st.Done:
			t.Fatalf("Ada's stream on B ended during the outage: %v", st.Err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	pg.Start()
	ctx, cancel := context.WithTimeout(t.Context(), streamWait)
	defer cancel()
	for call(t, a, "PUT", path+"/rounds/1/guess", bob, `{"value":40}`).status != http.StatusNoContent {
		if ctx.Err() != nil {
			t.Fatal("replica A took no guess after the database came back")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, _, err := st.Until(streamWait, func(ev sseEvent) bool {
		return ev.Name == pages.PartCount && text(ev.Data) == "1 of 2 answered"
	}); err != nil {
		t.Fatalf("Bob's guess through A did not reach Ada's stream on B after the outage: %v", err)
	}
}
