package site

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

var (
	fuzzOnce   sync.Once
	fuzzServer *Server
)

// FuzzPageQuery sends arbitrary query strings to a page with two experiments: the answer is always
// a page (200, 422, or 503 under load), or a 400 for a query that does not parse at all, never a
// server error, and reader text is never reflected as markup.
func FuzzPageQuery(f *testing.F) {
	for _, seed := range []string{
		"", "jobs=20000", "jobs=-1", "jobs=1e309", "crash_rate=NaN", "windows=1,2,3",
		"max_delay=0x10", "jobs=%EF%BC%91", "jobs=1&jobs=2", "windows=" + strings.Repeat("9,", 60),
		"max_delay=%3Cscript%3E", "window-grid.max_delays=5,6", "step=99", "jobs=" + strings.Repeat("9", 40),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, q string) {
		fuzzOnce.Do(func() {
			cfg := testConfig()
			cfg.RatePerSec, cfg.RateBurst = 1e9, 1<<30
			fuzzServer = newTestServer(t, cfg)
		})
		req := httptest.NewRequest("GET", "/blocks/4", nil)
		req.URL.RawQuery = q
		rec := httptest.NewRecorder()
		fuzzServer.echo.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 422, 503:
		case 400:
			if _, err := url.ParseQuery(q); err == nil {
				t.Fatalf("query %q parses, yet answered 400", q)
			}
		default:
			t.Fatalf("query %q answered %d", q, rec.Code)
		}
		if strings.Contains(rec.Body.String(), "<script>") {
			t.Fatalf("query %q reflected a script tag", q)
		}
	})
}
