package site

// The helpers every server test shares: the test configuration, the real server built for a test,
// a request through the whole middleware stack, every page's path from content.Contents(), and
// the formatting the pages use. The tests are by theme: routes_test.go (every URL, HEAD, assets,
// base path), articles_test.go (the pages' forms, reruns, permalinks and readings), api_test.go,
// limits_test.go (busy, rate, cache, body and timeouts) and security_test.go; the browser suite
// starts its server with these helpers too.

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"effectivelyonce/content"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/sitetest"
	"effectivelyonce/internal/web"
	"effectivelyonce/rooms/sqlstore"
	"effectivelyonce/static"
)

// testConfig is a server configuration for tests: a loopback address, no proxy to trust, and
// limits loose enough that only the tests about limits ever meet them.
func testConfig() Config {
	return Config{Addr: "127.0.0.1:0", ClientIP: "direct", LogFormat: "text", CacheBytes: 16 << 20,
		MaxRuns: 2, QueueWait: 2 * time.Second, RunTimeout: 10 * time.Second, RatePerSec: 1000, RateBurst: 1000,
		RateClients: 1000, MaxConns: 1000, MaxConnsPerClient: 256, RoomCreatesPerHour: 1000, RoomJoinsPerMinute: 1000, ShareCreatesPerHour: 1000,
		RoomChangesPerMinute: 100_000, RoomStreamsPerKey: 4}
}

// newTestServer builds the real server (real content, real assets, warm defaults) with cfg. Its
// study rooms live in cfg.DatabaseURL's Postgres when one is set, else in a SQLite file under
// cfg.DataDir, a fresh temporary directory unless the test
// names one (to reopen the same rooms in a second server); the store closes when the test ends.
func newTestServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	return newLoggingServer(t, cfg, io.Discard)
}

// newLoggingServer is newTestServer with its log written to w, for a test of what is logged.
func newLoggingServer(t testing.TB, cfg Config, w io.Writer) *Server {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	store, err := sqlstore.Open(context.Background(), cfg.RoomsDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	book, err := content.Load(content.Files, content.WithBase(cfg.BasePath))
	if err != nil {
		t.Fatal(err)
	}
	a, err := web.LoadAssets(static.Files)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(w, nil))
	// The hub serve would use: in-process with SQLite, LISTEN/NOTIFY with a DATABASE_URL.
	hub, err := NewHub(context.Background(), cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hub.Close() })
	// A lab run started by a test has the test binary for its workers, and ends with the test; a
	// check's child process is the test binary too (TestCheckChildProcess); shares are kept in
	// the test's own store.
	s, err := New(cfg, Deps{Log: log, Book: book, Assets: a, Rooms: NewRooms(store, cfg, hub, log), Hub: hub, Shares: store,
		Children: runs.Children{LabWorker: (&sitetest.Workers{}).Command, Check: testChild}, RoomsDB: store.Dialect()})
	if err != nil {
		t.Fatal(err)
	}
	s.workbench.SetShares(store)
	if err := s.runner.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.lab.Stop)
	return s
}

// response is what do got back, kept as plain values so that a test compares them without
// reading a recorder.
type response struct {
	status int
	header http.Header
	body   string
}

// do sends a request through the whole middleware stack.
func do(t testing.TB, s *Server, method, target string, header map[string]string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

// pagePaths is the path of every page of the notebook in reading order, from the one table of
// pages, so that a test meaning "every page" visits a page added there without being edited.
func pagePaths() []string {
	var out []string
	for _, e := range content.Contents() {
		out = append(out, e.Path)
	}
	return out
}

// count writes an integer as the pages do, with thousands separators.
func count(v int64) string {
	s := strconv.FormatInt(v, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// manyWindows lists n distinct window sizes, for queries that must exceed a limit on the work
// one request may ask for.
func manyWindows(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = strconv.Itoa(100 + i)
	}
	return strings.Join(parts, ",")
}

// reading returns the text of the "what the numbers say" block of one experiment on a page.
func reading(t *testing.T, body, domID string) string {
	t.Helper()
	i := strings.Index(body, `id="`+domID+`"`)
	if i < 0 {
		t.Fatalf("no %s on the page", domID)
	}
	rest := body[i:]
	j := strings.Index(rest, `<div class="reading">`)
	k := strings.Index(rest, `</section>`)
	if j < 0 || (k >= 0 && j > k) {
		t.Fatalf("no reading in %s", domID)
	}
	end := strings.Index(rest[j:], "</div>")
	return regexp.MustCompile(`<[^>]+>`).ReplaceAllString(rest[j:j+end], " ")
}
