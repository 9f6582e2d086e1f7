package site

import (
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/internal/web"
)

// TestSecurityHeaders checks the headers and the strict CSP on a page, a refused rerun, the API
// and a 404 (every kind of answer the error handler and the renderer produce), and that no page
// carries inline script or a remote asset the CSP would block.
func TestSecurityHeaders(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, path := range []string{"/", "/blocks/4?jobs=-1", "/api/experiments/window", "/nope"} {
		r := do(t, s, "GET", path, nil)
		if got := r.header.Get("Content-Security-Policy"); got != web.CSP {
			t.Errorf("%s: CSP %q", path, got)
		}
		for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
			if r.header.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", path, k, r.header.Get(k), v)
			}
		}
		if strings.Contains(r.body, "<script>") || regexp.MustCompile(`<script(?: [^>]*)?>[^<]`).MatchString(strings.ReplaceAll(r.body, `type="application/json">`, "")) {
			t.Errorf("%s: inline script in the page", path)
		}
		if strings.Contains(r.body, "http://") && !strings.Contains(path, "api") {
			for _, m := range regexp.MustCompile(`(?:src|href)="https?://[^"]*"`).FindAllString(r.body, -1) {
				t.Errorf("%s: remote asset %s", path, m)
			}
		}
	}
}
