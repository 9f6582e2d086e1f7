package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/sitetest"
	"effectivelyonce/internal/web"
)

// TestBusyAnswers503 fills every heavy slot and checks that a heavy rerun is refused with 503,
// Retry-After and the form kept, while a default page still answers at once from the cache.
func TestBusyAnswers503(t *testing.T) {
	cfg := testConfig()
	cfg.MaxRuns = 1
	cfg.QueueWait = 20 * time.Millisecond
	s := newTestServer(t, cfg)
	defer s.runner.Hold(false)()
	r := do(t, s, "GET", "/blocks/4?jobs=2000000&seed=99", nil)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Fatalf("status %d retry-after %q", r.status, r.header.Get("Retry-After"))
	}
	if !strings.Contains(r.body, `value="2000000"`) || !strings.Contains(r.body, "Not run yet.</strong> Every experiment slot is busy") ||
		!strings.Contains(r.body, "press Run again") {
		t.Error("503 page lost the form or the reason")
	}
	api := do(t, s, "GET", "/api/experiments/window?jobs=2000000&seed=98", nil)
	if api.status != 503 {
		t.Errorf("api status %d", api.status)
	}
	if r := do(t, s, "GET", "/blocks/4", nil); r.status != 200 {
		t.Errorf("default page waited behind the heavy lane: %d", r.status)
	}
	if r := do(t, s, "GET", "/blocks/4?seed=5", nil); r.status != 200 {
		t.Errorf("a light rerun waited behind the heavy lane: %d", r.status)
	}
}

// TestRunStopsWhenClientLeaves: a heavy run stops when its request's context is cancelled, and gives
// its slot back, so a reader who leaves does not keep a core busy.
func TestRunStopsWhenClientLeaves(t *testing.T) {
	s := newTestServer(t, testConfig())
	e, _ := experiments.Lookup("window")
	p, err := e.Parse(map[string][]string{"jobs": {"5000000"}, "seed": {"1234"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := s.runner.Run(ctx, e, p); done <- err }()
	// The reader leaves while the run holds its slot, not before it has one.
	if !sitetest.WaitFor(sitetest.Patience, func() bool { return s.runner.HeavyInUse() == 1 || len(done) > 0 }) || len(done) > 0 {
		t.Fatal("the run never held a heavy slot while it ran")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(sitetest.Patience):
		t.Fatal("run did not stop after the client left")
	}
	if !sitetest.WaitFor(sitetest.Patience, func() bool { return s.runner.HeavyInUse() == 0 }) {
		t.Error("heavy slot not released after the cancelled run returned")
	}
}

// TestRateLimitLimitsRunsNotReading: the limiter counts runs, not pages. A reader over the limit
// still gets the whole page, status 429 with Retry-After, and each block that was not rerun marked
// so, with the wait, and no result in it (not even the old one); an htmx fragment likewise; the API
// answers 429 JSON. Cached runs (the defaults, a result seen before) cost nothing and are never
// refused.
func TestRateLimitLimitsRunsNotReading(t *testing.T) {
	cfg := testConfig()
	cfg.RatePerSec, cfg.RateBurst = 0.001, 4 // block 4 reruns two experiments on one seed
	s := newTestServer(t, cfg)
	for i := range 2 {
		if r := do(t, s, "GET", fmt.Sprintf("/blocks/4?seed=%d", 100+i), nil); r.status != 200 {
			t.Fatalf("run %d within the burst answered %d", i+1, r.status)
		}
	}
	r := do(t, s, "GET", "/blocks/4?seed=102", nil)
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("third uncached run answered %d, want 429", r.status)
	}
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q, want whole seconds", r.header.Get("Retry-After"))
	}
	block := section(t, r.body, "exp-window")
	for _, want := range []string{"Not run yet.", "Too many runs", "press Run again", `value="102"`} {
		if !strings.Contains(block, want) {
			t.Errorf("limited block lacks %q", want)
		}
	}
	if strings.Contains(block, "What the numbers say") || strings.Contains(block, "data-chart") {
		t.Error("a limited block shows a result")
	}
	if !strings.Contains(r.body, `class="prose"`) || strings.Contains(r.body, "error-page") {
		t.Error("a limited page lost its prose")
	}
	// Reading stays free: the defaults and a run already cached answer 200.
	for _, path := range []string{"/blocks/4", "/blocks/4?seed=100", "/semantics"} {
		if r := do(t, s, "GET", path, nil); r.status != 200 {
			t.Errorf("%s answered %d while the client is limited", path, r.status)
		}
	}
	hx := do(t, s, "GET", "/blocks/4?seed=103", map[string]string{"HX-Request": "true", "HX-Target": "exp-window"})
	if hx.status != 429 || hx.header.Get("Retry-After") == "" || !strings.Contains(hx.body, "Not run yet.") || strings.Contains(hx.body, "<html") {
		t.Errorf("limited fragment: %d %q %.200s", hx.status, hx.header.Get("Retry-After"), hx.body)
	}
	api := do(t, s, "GET", "/api/experiments/window?seed=104", nil)
	if api.status != 429 || api.header.Get("Retry-After") == "" || !strings.Contains(api.body, `"errors"`) {
		t.Errorf("api: %d %q %s", api.status, api.header.Get("Retry-After"), api.body)
	}
	if api := do(t, s, "GET", "/api/experiments/window", nil); api.status != 200 {
		t.Errorf("api at the defaults answered %d while limited", api.status)
	}
	// Another address has its own allowance.
	other := httptest.NewRequest("GET", "/blocks/4?seed=105", nil)
	other.RemoteAddr = "192.0.2.7:1234"
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, other)
	if rec.Code != 200 {
		t.Errorf("another address was limited too: %d", rec.Code)
	}
}

// TestRateDefaultsFitAClass: the default allowance lets a study group of 30 behind one address
// press Run twice each at once, and the busy message is a sentence.
func TestRateDefaultsFitAClass(t *testing.T) {
	cfg, err := LoadConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RateBurst < 60 || cfg.RatePerSec < 20 {
		t.Errorf("rate %v burst %d: a class of 30 pressing Run twice would be refused", cfg.RatePerSec, cfg.RateBurst)
	}
	if runs.ErrBusy.Msg[0] < 'A' || runs.ErrBusy.Msg[0] > 'Z' || runs.ErrStopping.Msg[0] < 'A' || runs.ErrStopping.Msg[0] > 'Z' {
		t.Error("a refusal shown after \"Not run yet.\" must start with a capital")
	}
}

// section returns the experiment block with the given id, up to its closing tag.
func section(t *testing.T, body, id string) string {
	t.Helper()
	i := strings.Index(body, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no %s in the body", id)
	}
	j := strings.Index(body[i:], "</section>")
	if j < 0 {
		return body[i:]
	}
	return body[i : i+j]
}

// TestBodyLimitAndTimeouts: a large request body is refused, and the HTTP server sets every
// timeout, with a write timeout longer than a run may take.
func TestBodyLimitAndTimeouts(t *testing.T) {
	s := newTestServer(t, testConfig())
	req := httptest.NewRequest("POST", "/blocks/4", strings.NewReader(strings.Repeat("x", 100<<10)))
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("100 KB body answered %d, want 413", rec.Code)
	}
	// The web layer knows no domain: the limits it names are the assembly's.
	if want := "larger than this route takes: 8 KB for the study rooms, 64 KB elsewhere"; !strings.Contains(rec.Body.String(), want) {
		t.Errorf("the refusal does not say %q: %.300s", want, rec.Body.String())
	}
	hs := newHTTPServer(testConfig(), s.echo)
	if hs.ReadHeaderTimeout == 0 || hs.ReadTimeout == 0 || hs.WriteTimeout <= testConfig().RunTimeout || hs.IdleTimeout == 0 || hs.MaxHeaderBytes == 0 {
		t.Errorf("server timeouts not all set: %+v", hs)
	}
}

// TestRateMustBeANumberThatLimits: NaN slipped past "rate <= 0", and a tiny rate overflowed the
// limiter's idle time into a negative duration that forgot every bucket.
func TestRateMustBeANumberThatLimits(t *testing.T) {
	for _, bad := range []string{"NaN", "Inf", "-1", "0", "1e-12"} {
		env := func(k string) string {
			if k == "RATE" {
				return bad
			}
			return ""
		}
		if _, err := LoadConfig(nil, env, io.Discard); err == nil {
			t.Errorf("RATE=%s accepted", bad)
		}
	}
	if l := web.NewRateLimiter(1e-300, 60, 10); l.Forgets() <= 0 {
		t.Errorf("idle time %v at a tiny rate: the sweep would forget every bucket at once", l.Forgets())
	}
}
