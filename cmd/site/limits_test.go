package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"effectivelyonce/experiments"
)

// TestBusyAnswers503 fills every heavy slot and checks that a heavy rerun is refused with 503,
// Retry-After and the form kept, while a default page still answers at once from the cache.
func TestBusyAnswers503(t *testing.T) {
	cfg := testConfig()
	cfg.MaxRuns = 1
	cfg.QueueWait = 20 * time.Millisecond
	s := newTestServer(t, cfg)
	s.runner.heavy <- struct{}{}
	defer func() { <-s.runner.heavy }()
	r := do(t, s, "GET", "/blocks/4?jobs=2000000&seed=99", nil)
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Fatalf("status %d retry-after %q", r.status, r.header.Get("Retry-After"))
	}
	if !strings.Contains(r.body, `value="2000000"`) || !strings.Contains(r.body, "busy") {
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
	go func() { _, err := s.runner.run(ctx, e, p); done <- err }()
	time.Sleep(5 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not stop after the client left")
	}
	if len(s.runner.heavy) != 0 {
		// The slot must be released once the cancelled run returns.
		time.Sleep(100 * time.Millisecond)
		if len(s.runner.heavy) != 0 {
			t.Error("heavy slot not released")
		}
	}
}

// TestRateLimit: reruns are rate limited per client; a plain page view (served from the cache)
// never is.
func TestRateLimit(t *testing.T) {
	cfg := testConfig()
	cfg.RatePerSec, cfg.RateBurst = 0.001, 2
	s := newTestServer(t, cfg)
	codes := []int{}
	for i := range 4 {
		codes = append(codes, do(t, s, "GET", "/blocks/1?seed="+string(rune('1'+i)), nil).status)
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != 429 {
		t.Errorf("codes %v, want 200 200 429", codes)
	}
	if r := do(t, s, "GET", "/blocks/1", nil); r.status != 200 {
		t.Errorf("a plain page view was rate limited: %d", r.status)
	}
}

// TestCacheIsBounded: the result cache stays under its byte limit however many distinct runs it
// sees, and never evicts the pinned default results.
func TestCacheIsBounded(t *testing.T) {
	c := newResultCache(1 << 20)
	big := make([]int64, 4000)
	for i := range 200 {
		c.add(strings.Repeat("k", i+1), big, false)
	}
	if c.bytes() > 1<<20 {
		t.Errorf("cache holds %d bytes, limit %d", c.bytes(), 1<<20)
	}
	c.add("pinned", big, true)
	for i := range 200 {
		c.add("x"+strings.Repeat("k", i+1), big, false)
	}
	if _, ok := c.get("pinned"); !ok {
		t.Error("pinned default evicted")
	}
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
	hs := newHTTPServer(testConfig(), s.echo)
	if hs.ReadHeaderTimeout == 0 || hs.ReadTimeout == 0 || hs.WriteTimeout <= testConfig().RunTimeout || hs.IdleTimeout == 0 || hs.MaxHeaderBytes == 0 {
		t.Errorf("server timeouts not all set: %+v", hs)
	}
}
