package main

// The study rooms promise that a guess the API acknowledged (204) is kept: a member who saw their
// guess accepted must find it after the server dies, however it dies. The in-process restart test
// (TestRoomsSurviveRestart) closes its store politely; this one kills a real server process with
// SIGKILL, which runs no deferred Close, no shutdown and no flush, and then reads the guesses back
// through a second process on the same SQLite file or Postgres schema.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"effectivelyonce/internal/pgtest"
	"effectivelyonce/internal/sitetest"
	"effectivelyonce/internal/web/roomsweb"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to make the test's own schema
)

// TestGuessSurvivesSIGKILL: guesses answered 204, one of them changed just before the end, are
// all there, with their latest values, after the server process is killed with SIGKILL and a new
// one starts on the same data, on SQLite and on Postgres.
func TestGuessSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills real server processes")
	}
	t.Run("sqlite", func(t *testing.T) {
		// DATABASE_URL is set empty so that one in the caller's environment cannot send the rooms
		// to Postgres and leave the SQLite file untested.
		guessesSurviveKill(t, "sqlite", "DATA_DIR="+t.TempDir(), "DATABASE_URL=")
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.URL(t, "the Postgres durability test")
		// DATA_DIR is a fresh directory so that, were the URL ignored, the rooms would land in an
		// empty SQLite file, and the check of rooms_db would say so.
		guessesSurviveKill(t, "postgres", "DATABASE_URL="+freshSchemaURL(t, url), "DATA_DIR="+t.TempDir())
	})
}

// guessesSurviveKill runs the scenario on the store env selects: a room, two members, a round,
// three acknowledged guesses (the last one a change of mind), SIGKILL, a new process, and the
// room read back by the host and each member.
func guessesSurviveKill(t *testing.T, dialect string, env ...string) {
	first := startKillable(t, env...)
	if d := first.dialect(t); d != dialect {
		t.Fatalf("the server stores rooms in %s, want %s", d, dialect)
	}

	var room sitetest.Created
	first.must(t, "POST", "/api/rooms", "", `{"title":"Killed mid-round"}`, http.StatusCreated, &room)
	base := "/api/rooms/" + room.Code
	keys := map[string]string{}
	for _, name := range []string{"Ada", "Bob"} {
		var j struct {
			Key string `json:"member_key"`
		}
		first.must(t, "POST", base+"/members", "", `{"name":"`+name+`"}`, http.StatusCreated, &j)
		if j.Key == "" {
			t.Fatalf("no member key for %s", name)
		}
		keys[name] = j.Key
	}
	var round struct {
		Seq int `json:"seq"`
	}
	first.must(t, "POST", base+"/rounds", room.HostKey, `{"question":"q1"}`, http.StatusCreated, &round)
	guess := fmt.Sprintf("%s/rounds/%d/guess", base, round.Seq)
	first.must(t, "PUT", guess, keys["Ada"], `{"value":12.25}`, http.StatusNoContent, nil)
	first.must(t, "PUT", guess, keys["Bob"], `{"value":340}`, http.StatusNoContent, nil)
	// Ada changes her mind: this is the last write the server acknowledges before it dies, the
	// one most likely to be lost if a 204 ever ran ahead of the commit.
	first.must(t, "PUT", guess, keys["Ada"], `{"value":777.5}`, http.StatusNoContent, nil)
	first.kill(t)

	second := startKillable(t, env...)
	if d := second.dialect(t); d != dialect {
		t.Fatalf("the second server stores rooms in %s, want %s", d, dialect)
	}
	want := map[string]float64{"Ada": 777.5, "Bob": 340}
	for name, key := range keys {
		var st roomsweb.RoomJSON
		second.must(t, "GET", base, key, "", http.StatusOK, &st)
		if st.Role != "member" || st.You == nil || st.You.Name != name || len(st.Rounds) != 1 {
			t.Fatalf("%s after the kill: %+v", name, st)
		}
		rd := st.Rounds[0]
		if rd.YourGuess == nil || *rd.YourGuess != want[name] {
			t.Errorf("%s's guess after the kill is %v, want %v (answered 204 before it)", name, guessString(rd.YourGuess), want[name])
		}
		if rd.Answered != 2 || rd.Of != 2 {
			t.Errorf("%s sees %d of %d answered after the kill, want 2 of 2", name, rd.Answered, rd.Of)
		}
	}
	var host roomsweb.RoomJSON
	second.must(t, "GET", base, room.HostKey, "", http.StatusOK, &host)
	if host.Role != "host" || host.Title != "Killed mid-round" || len(host.Roster) != 2 || len(host.Rounds) != 1 ||
		host.Rounds[0].State != "open" || host.Rounds[0].Answered != 2 {
		t.Errorf("the host after the kill sees %+v, want the room with 2 members and its open round 2 of 2 answered", host)
	}
	// The round is still open, so guessing goes on where it stopped.
	second.must(t, "PUT", guess, keys["Bob"], `{"value":341}`, http.StatusNoContent, nil)
}

func guessString(v *float64) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprint(*v)
}

// freshSchemaURL makes a schema of its own in the database at url, dropped when the test ends,
// and answers url with search_path set to it (pgx passes unknown URL parameters on as run-time
// settings, as the sqlstore tests do), so the server's migrations and rows live there alone.
func freshSchemaURL(t *testing.T, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("kill_%d_%d", time.Now().UnixNano(), os.Getpid())
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		db.Close()
		t.Fatal(err)
	}
	// Registered before any server starts, so it runs after their cleanups have killed them and
	// no connection of theirs holds a lock on the schema.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
		db.Close()
	})
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "search_path=" + schema
}

// killable is the real server (the real main, through TestHelperMain) in a process of its own,
// so that it can be killed without warning. Its log (stdout) and stderr are kept apart and both
// printed if the test fails.
type killable struct {
	cmd         *exec.Cmd
	log, stderr *syncBuffer
	exited      chan struct{} // closed once the process has been waited for
	base        string
	client      *http.Client
}

// startKillable starts a server on a free loopback port with env added to the test's own (the
// room limits raised so that nothing here is refused for its rate), and waits until /healthz
// answers. The process is killed, if still alive, when the test ends.
func startKillable(t *testing.T, env ...string) *killable {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMain$")
	cmd.Env = append(append(os.Environ(), "SITE_HELPER_MAIN=serve -addr 127.0.0.1:0",
		"RATE=1000000", "BURST=1000000", "ROOM_CREATES_PER_HOUR=1000", "ROOM_JOINS_PER_MINUTE=1000"), env...)
	k := &killable{cmd: cmd, log: &syncBuffer{}, stderr: &syncBuffer{}, exited: make(chan struct{}),
		client: &http.Client{Timeout: 30 * time.Second}}
	cmd.Stdout, cmd.Stderr = k.log, k.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(k.exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-k.exited
		if t.Failed() {
			t.Logf("server pid %d log:\n%s\nstderr:\n%s", cmd.Process.Pid, k.log, k.stderr)
		}
	})

	re := regexp.MustCompile(`addr=(http://127\.0\.0\.1:\d+)/`)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if k.base == "" {
			if m := re.FindStringSubmatch(k.log.String()); m != nil {
				k.base = m[1]
			}
		}
		if k.base != "" {
			if resp, err := k.client.Get(k.base + "/healthz"); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return k
				}
			}
		}
		select {
		case <-k.exited:
			t.Fatalf("the server exited before it was healthy: %v", cmd.ProcessState)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the server was not healthy within 60 s")
		}
	}
}

// dialect is the database the start-up log says holds the rooms, so that each subtest knows it
// tested the store it meant to.
func (k *killable) dialect(t *testing.T) string {
	t.Helper()
	m := regexp.MustCompile(`rooms_db=(\w+)`).FindStringSubmatch(k.log.String())
	if m == nil {
		t.Fatal("no rooms_db in the start-up log")
	}
	return m[1]
}

// must sends a JSON request with a bearer key (none when key is ""), checks the status and
// decodes the body into v when v is not nil.
func (k *killable) must(t *testing.T, method, path, key, body string, status int, v any) {
	t.Helper()
	req, err := http.NewRequest(method, k.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, status, b)
	}
	if v != nil {
		if err := json.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
}

// kill sends SIGKILL at once, with no graceful step first, and checks that the signal is what
// ended the process: an exit of its own would not be the crash this test is about.
func (k *killable) kill(t *testing.T) {
	t.Helper()
	if err := k.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	select {
	case <-k.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the server outlived SIGKILL by 30 s")
	}
	ws, ok := k.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the server ended with %v, not by SIGKILL", k.cmd.ProcessState)
	}
}
