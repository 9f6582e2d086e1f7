package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	neturl "net/url"
	"os"
	"strings"
	"testing"
	"time"

	"effectivelyonce/internal/pgtest"
)

// testURL returns the database TEST_DATABASE_URL names. scripts/test-postgres.sh sets it; CI
// must run these tests, so there they fail rather than skip.
func testURL(t *testing.T) string {
	t.Helper()
	return pgtest.URL(t, "the Postgres hub")
}

// testLogger sends the hub's log lines to the test's output, so that a failure shows what the
// listen loop did (a reconnect, an error).
func testLogger(t *testing.T, lines chan<- string) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t, lines}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testWriter also copies each line to lines, when set, for tests that wait on what the hub did.
type testWriter struct {
	t     *testing.T
	lines chan<- string
}

func (w testWriter) Write(p []byte) (int, error) {
	line := strings.TrimSuffix(string(p), "\n")
	w.t.Log(line)
	if w.lines != nil {
		select {
		case w.lines <- line:
		default:
		}
	}
	return len(p), nil
}

// openPostgres opens a hub and closes it when the test ends; Close runs before the test's log
// is sealed, so the listen loop never logs into a finished test.
func openPostgres(t *testing.T, url string) *Postgres {
	t.Helper()
	return openPostgresLogging(t, url, nil)
}

// openPostgresLogging is openPostgres with the hub's log lines also sent to lines.
func openPostgresLogging(t *testing.T, url string, lines chan<- string) *Postgres {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	h, err := NewPostgres(ctx, url, testLogger(t, lines))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// roomID is unique per test and run, since every package's tests share the database and the
// channel, and a stray notification from elsewhere must not make a "nothing arrives" check fail.
func roomID(t *testing.T, name string) string {
	return fmt.Sprintf("%s-%s-%d-%d", t.Name(), name, os.Getpid(), time.Now().UnixNano())
}

// withParam appends a query parameter, so that a test can check the URL reaches pgx untouched.
func withParam(url, kv string) string {
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + kv
}

// TestPostgresAcrossReplicas is the reason the Postgres hub exists: a change published through
// one replica reaches streams held by another, in both directions, and only for that room.
func TestPostgresAcrossReplicas(t *testing.T) {
	url := testURL(t)
	a := openPostgres(t, url)
	// The second replica gets a search_path, as a deployment in its own schema would: the URL
	// must reach pgx as given and LISTEN/NOTIFY must not care.
	b := openPostgres(t, withParam(url, "search_path=public"))
	ctx := context.Background()
	room, other := roomID(t, "room"), roomID(t, "other")

	onA, cancelOnA := a.Subscribe(room)
	defer cancelOnA()
	onB, cancelOnB := b.Subscribe(room)
	defer cancelOnB()
	otherOnB, cancelOtherOnB := b.Subscribe(other)
	defer cancelOtherOnB()

	if err := a.Publish(ctx, room); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, onB, "replica B, publish on A")
	mustReceive(t, onA, "replica A hears its own publish back")

	if err := b.Publish(ctx, room); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, onA, "replica A, publish on B")
	mustReceive(t, onB, "replica B hears its own publish back")

	// Every publish above committed before this one, so by the time this one arrives on B they
	// all have, and a stray signal on either channel would already be pending.
	if err := a.Publish(ctx, other); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, otherOnB, "replica B, other room")
	mustBeQuiet(t, otherOnB, "other room after its one publish")
	mustBeQuiet(t, onB, "room after a publish to the other room")
}

// TestPostgresCoalescesAcrossReplicas checks that a burst of changes through the database leaves
// a stream that was not reading one pending signal, not a backlog.
func TestPostgresCoalescesAcrossReplicas(t *testing.T) {
	url := testURL(t)
	a := openPostgres(t, url)
	b := openPostgres(t, url)
	ctx := context.Background()
	room, marker := roomID(t, "room"), roomID(t, "marker")
	ch, cancel := b.Subscribe(room)
	defer cancel()
	markerCh, cancelMarker := b.Subscribe(marker)
	defer cancelMarker()

	for range 50 {
		if err := a.Publish(ctx, room); err != nil {
			t.Fatal(err)
		}
	}
	// Postgres delivers notifications in the order their transactions committed, whichever pool
	// connection sent them, and the hub dispatches them one by one: once the marker, published
	// last, has arrived, the whole burst has been dispatched and the count below is final.
	if err := a.Publish(ctx, marker); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, markerCh, "marker")
	mustReceive(t, ch, "after 50 publishes")
	mustBeQuiet(t, ch, "second read right after the burst")
}

// TestPostgresReconnects cuts the listening connection from the server side, as a failover or
// an idle-session killer would, and checks that the hub comes back on its own, wakes every
// stream once (they may have missed changes), and delivers again.
func TestPostgresReconnects(t *testing.T) {
	url := testURL(t)
	a := openPostgres(t, url)
	b := openPostgres(t, url)
	ctx := context.Background()
	quiet, room := roomID(t, "quiet"), roomID(t, "room")
	quietOnB, cancelQuiet := b.Subscribe(quiet)
	defer cancelQuiet()
	onB, cancelOnB := b.Subscribe(room)
	defer cancelOnB()

	oldPID := b.pid.Load()
	terminate(t, a, b)

	// Nobody published to quiet: only the wake after the reconnect can signal it.
	mustReceive(t, quietOnB, "subscriber woken after the reconnect")
	mustReceive(t, onB, "every subscriber woken after the reconnect")
	if newPID := b.pid.Load(); newPID == oldPID || newPID == 0 {
		t.Fatalf("listener backend pid %d after the reconnect, want a new one (old %d)", newPID, oldPID)
	}

	// The wake comes after LISTEN succeeded, so this publish must be heard.
	if err := a.Publish(ctx, room); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, onB, "publish after the reconnect")
}

// TestPostgresQuietSpells checks that the pings after quiet spells keep the listening connection
// (pgx must leave it usable after a timed-out wait) and that notifications arriving around a
// ping are still delivered.
func TestPostgresQuietSpells(t *testing.T) {
	url := testURL(t)
	saved := pingEvery
	pingEvery = 5 * time.Millisecond
	// Registered before the hubs, so it runs after their Close has stopped every listen loop.
	t.Cleanup(func() { pingEvery = saved })
	a := openPostgres(t, url)
	lines := make(chan string, 100)
	b := openPostgresLogging(t, url, lines)
	room := roomID(t, "room")
	ch, cancel := b.Subscribe(room)
	defer cancel()
	pid := b.pid.Load()

	for i := range 40 {
		if err := a.Publish(context.Background(), room); err != nil {
			t.Fatal(err)
		}
		mustReceive(t, ch, fmt.Sprint("publish ", i))
		time.Sleep(time.Duration(i%4) * 5 * time.Millisecond)
	}
	if got := b.pid.Load(); got != pid {
		t.Fatalf("listener backend changed from %d to %d: the hub reconnected instead of pinging", pid, got)
	}
	select {
	case line := <-lines:
		t.Fatalf("the hub logged during quiet spells: %s", line)
	default:
	}
}

// TestPostgresClose checks that shutdown ends every stream, does not hang, and leaves a hub that
// refuses work instead of pretending to do it.
func TestPostgresClose(t *testing.T) {
	url := testURL(t)
	h := openPostgres(t, url)
	room := roomID(t, "room")
	ch, cancel := h.Subscribe(room)

	closed := make(chan error, 1)
	go func() { closed <- h.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("close: %v", err)
		}
	case <-time.After(wait):
		t.Fatalf("Close did not return within %s", wait)
	}
	select {
	case <-h.done:
	default:
		t.Fatal("Close returned while the listen loop was still running")
	}
	mustBeClosed(t, ch, "subscriber at close")
	cancel()

	if err := h.Publish(context.Background(), room); !errors.Is(err, ErrClosed) {
		t.Fatalf("publish after close: %v, want ErrClosed", err)
	}
	late, cancelLate := h.Subscribe(room)
	defer cancelLate()
	mustBeClosed(t, late, "subscription made after close")
	if err := h.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

// outage gives a test its own login role, so that it can lock the role out (as a database that
// refuses connections would) without disturbing the other tests sharing the cluster. It returns
// the URL that logs in as the role, and lockOut, which refuses or readmits it.
func outage(t *testing.T, admin *Postgres, url string) (roleURL string, lockOut func(bool)) {
	t.Helper()
	ctx := context.Background()
	role := fmt.Sprintf("eo_live_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.pool.Exec(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	// Registered before the hub that uses the role, so it runs after that hub's Close.
	t.Cleanup(func() { _, _ = admin.pool.Exec(ctx, "DROP ROLE IF EXISTS "+role) })
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	u.User = neturl.User(role)
	return u.String(), func(out bool) {
		t.Helper()
		login := "LOGIN"
		if out {
			login = "NOLOGIN"
		}
		if _, err := admin.pool.Exec(ctx, "ALTER ROLE "+role+" "+login); err != nil {
			t.Fatal(err)
		}
	}
}

// terminate cuts the hub's listening connection from the server side, as a failover or an
// idle-session killer would.
func terminate(t *testing.T, admin, h *Postgres) {
	t.Helper()
	var killed bool
	pid := int32(h.pid.Load())
	if err := admin.pool.QueryRow(context.Background(), "SELECT pg_terminate_backend($1)", pid).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if !killed {
		t.Fatalf("pg_terminate_backend(%d) found no such backend", pid)
	}
}

// waitForLog waits until the hub has logged a line containing want n times.
func waitForLog(t *testing.T, lines <-chan string, want string, n int) {
	t.Helper()
	deadline := time.After(wait)
	for n > 0 {
		select {
		case line := <-lines:
			if strings.Contains(line, want) {
				n--
			}
		case <-deadline:
			t.Fatalf("the hub did not log %q within %s", want, wait)
		}
	}
}

// TestPostgresOutage keeps the database refusing the hub for several reconnect attempts, then
// lets it back in: the hub must keep trying on its own, and once back, wake every stream and
// deliver again.
func TestPostgresOutage(t *testing.T) {
	url := testURL(t)
	a := openPostgres(t, url)
	roleURL, lockOut := outage(t, a, url)
	lines := make(chan string, 100)
	b := openPostgresLogging(t, roleURL, lines)
	room := roomID(t, "room")
	ch, cancel := b.Subscribe(room)
	defer cancel()

	lockOut(true)
	terminate(t, a, b)
	waitForLog(t, lines, "reconnecting to Postgres failed", 1) // logged once, then every logEvery attempts
	waitFailures(t, b, 2)
	mustBeQuiet(t, ch, "during the outage")
	lockOut(false)

	mustReceive(t, ch, "wake after the outage")
	if err := a.Publish(context.Background(), room); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, ch, "publish after the outage")
}

// TestPostgresCloseDuringOutage checks that Close does not wait out the backoff, nor a
// connection attempt, when the database keeps refusing: shutdown must still be prompt.
func TestPostgresCloseDuringOutage(t *testing.T) {
	url := testURL(t)
	a := openPostgres(t, url)
	roleURL, lockOut := outage(t, a, url)
	lines := make(chan string, 100)
	b := openPostgresLogging(t, roleURL, lines)
	ch, cancel := b.Subscribe(roomID(t, "room"))
	defer cancel()

	lockOut(true)
	terminate(t, a, b)
	waitForLog(t, lines, "reconnecting to Postgres failed", 1)

	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("close: %v", err)
		}
	case <-time.After(wait):
		t.Fatalf("Close did not return within %s while the hub was reconnecting", wait)
	}
	mustBeClosed(t, ch, "subscriber closed during the outage")
}

// TestNewPostgresFailsFast checks that a wrong URL is an error at start, where it stops the
// server, rather than a hub that silently never delivers.
func TestNewPostgresFailsFast(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	url := "postgres://postgres@/postgres?host=" + t.TempDir() + "&port=1&sslmode=disable"
	h, err := NewPostgres(ctx, url, testLogger(t, nil))
	if err == nil {
		h.Close()
		t.Fatal("NewPostgres on a socket directory without a server: nil error, want one")
	}
}

// TestPostgresBackSoonAfterOutage stops the database itself (a cluster of the test's own) long
// enough for the hub to fail several reconnects, then starts it again: the hub must be listening
// again, and have woken every stream to re-read, within a short wait of the database's return, not
// after a backoff that grew during the outage.
func TestPostgresBackSoonAfterOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Postgres cluster")
	}
	pg := pgtest.NewCluster(t)
	h := openPostgres(t, pg.URL)
	room := roomID(t, "room")
	ch, cancel := h.Subscribe(room)
	defer cancel()

	pg.Stop()
	waitFailures(t, h, 6)
	mustBeQuiet(t, ch, "during the outage")
	pg.Start()
	mustReceive(t, ch, "wake after the database came back")
	if err := h.Publish(context.Background(), room); err != nil {
		t.Fatal(err)
	}
	mustReceive(t, ch, "publish after the outage")
}

// waitFailures waits until the hub has failed n reconnect attempts.
func waitFailures(t *testing.T, h *Postgres, n int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for h.failures.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the hub failed %d reconnect attempts in 2 minutes, want %d", h.failures.Load(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
