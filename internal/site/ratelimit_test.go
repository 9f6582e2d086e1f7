package site

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRateLimiterClientsMetric: /metrics shows how many clients the limiter tracks, within its
// bound, and X-Real-IP counts only behind a proxy the site is told to trust.
func TestRateLimiterClientsMetric(t *testing.T) {
	cfg := testConfig()
	cfg.RateClients = 50
	s := newTestServer(t, cfg)
	for i := range 200 {
		req := map[string]string{"X-Real-IP": fmt.Sprint("203.0.113.", i)}
		do(t, s, "GET", fmt.Sprintf("/api/experiments/scale?replay_days=%d", i+1), req)
	}
	m := do(t, s, "GET", "/metrics", nil)
	if !strings.Contains(m.body, "site_rate_limiter_clients 1\n") {
		// X-Real-IP is not trusted with -client-ip direct: every request is one client.
		t.Errorf("metrics: want site_rate_limiter_clients 1, got %s", grepLine(m.body, "site_rate_limiter_clients "))
	}
	cfg.ClientIP = "x-real-ip"
	s = newTestServer(t, cfg)
	for i := range 200 {
		req := httptest.NewRequest("GET", fmt.Sprintf("/api/experiments/scale?replay_days=%d", i+1), nil)
		req.RemoteAddr = "127.0.0.1:5000" // the proxy, trusted
		req.Header.Set("X-Real-IP", fmt.Sprint("203.0.113.", i))
		s.echo.ServeHTTP(httptest.NewRecorder(), req)
	}
	if got := grepLine(do(t, s, "GET", "/metrics", nil).body, "site_rate_limiter_clients "); got != "site_rate_limiter_clients 50" {
		t.Errorf("200 addresses through a proxy, bound 50: %q", got)
	}
}
