package site

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"effectivelyonce/internal/runs"
)

// TestHeavyRunsAdmittedByMemory: a heavy run waits for its memory estimate to fit the run budget
// (and gets the busy 503 when it does not in the queue wait); a run that could never fit is a 503
// at once that says so; a light run does not count memory.
func TestHeavyRunsAdmittedByMemory(t *testing.T) {
	cfg := testConfig()
	cfg.MemLimit = 64 << 20 // budget: a quarter, 16 MB (the reserve takes the rest)
	cfg.QueueWait = 20 * time.Millisecond
	s := newTestServer(t, cfg)
	if s.runner.BudgetBytes() != 16<<20 {
		t.Fatalf("run budget %d MB, want 16", s.runner.BudgetBytes()>>20)
	}
	fits := "/api/experiments/window?jobs=2000000&seed=41" // about 7 MB
	release, ok := s.runner.HoldMemory(10 << 20)
	if !ok {
		t.Fatal("budget taken")
	}
	if r := do(t, s, "GET", fits, nil); r.status != http.StatusServiceUnavailable || !strings.Contains(r.body, "busy") {
		t.Errorf("with 10 of 16 MB held, a 7 MB run answered %d %s", r.status, r.body)
	}
	release()
	if r := do(t, s, "GET", fits, nil); r.status != 200 {
		t.Errorf("with the budget free, a 7 MB run answered %d", r.status)
	}
	huge := do(t, s, "GET", "/api/experiments/window?jobs=2000000&crash_rate=1&seed=42", nil)
	if huge.status != http.StatusServiceUnavailable || !strings.Contains(huge.body, "more than this server keeps for runs") {
		t.Errorf("a run over the whole budget answered %d %s", huge.status, huge.body)
	}
	page := do(t, s, "GET", "/blocks/4?jobs=2000000&crash_rate=1&seed=43", nil)
	if page.status != http.StatusServiceUnavailable || !strings.Contains(page.body, "Not run yet.</strong> This run would need about") {
		t.Errorf("on a page, a run over the budget answered %d without saying why", page.status)
	}
}

// TestMemoryLimit: GOMEMLIMIT wins, written as the runtime reads it; without it the limit is a
// share of the memory there is; a limit that does not parse stops the start.
func TestMemoryLimit(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOMEMLIMIT" {
				return v
			}
			return ""
		}
	}
	for in, want := range map[string]int64{"512MiB": 512 << 20, "2GiB": 2 << 30, "1048576": 1 << 20, "100KiB": 100 << 10} {
		got, src, err := memoryLimit(env(in))
		if err != nil || got != want || src != "GOMEMLIMIT" {
			t.Errorf("GOMEMLIMIT=%s: %d %q %v, want %d", in, got, src, err, want)
		}
	}
	for _, bad := range []string{"lots", "-1GiB", "1.5GiB", "99999999999TiB"} {
		if _, _, err := memoryLimit(env(bad)); err == nil {
			t.Errorf("GOMEMLIMIT=%s accepted", bad)
		}
	}
	if got, _, err := memoryLimit(env("off")); err != nil || got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT=off (no limit, as the runtime reads it): %d %v", got, err)
	}
	got, src, err := memoryLimit(env(""))
	if total := memTotal(); err != nil || (total > 0 && (got <= 0 || got > total)) {
		t.Errorf("default limit %d (%s), machine %d: %v", got, src, total, err)
	}
	if _, err := LoadConfig([]string{}, env("lots"), nil); err == nil {
		t.Error("a bad GOMEMLIMIT did not stop the start")
	}
	cfg := testConfig()
	cfg.MemLimit = 4 << 30
	if b := runs.Budget(cfg.MemLimit, cfg.CacheBytes); b != 4<<30-2*cfg.CacheBytes-runs.MemReserve {
		t.Errorf("budget %d MB of a 4 GB limit", b>>20)
	}
}
