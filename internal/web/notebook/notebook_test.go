package notebook

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/sitetest"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
)

// newTestNotebook is the notebook's handlers alone behind the web layer's error handler, with
// the spread routes: for tests of the spreads' own workings, which the whole site's tests
// (internal/site) cannot reach.
func newTestNotebook(t *testing.T) (*Handlers, *echo.Echo) {
	t.Helper()
	book, err := content.Load(content.Files)
	if err != nil {
		t.Fatal(err)
	}
	rejected := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rejected"}, []string{"reason"})
	runner := runs.NewRunner(runs.Config{MaxRuns: 2, QueueWait: time.Second, RunTimeout: 10 * time.Second, CacheBytes: 16 << 20,
		Memory: (*experiments.Experiment).Memory}, runs.Metrics{
		Runs:     prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "runs"}, []string{"experiment", "lane"}),
		Cache:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cache"}, []string{"outcome"}),
		Rejected: rejected})
	limiter := web.NewRateLimiter(1000, 1000, 1000)
	t.Cleanup(limiter.Close)
	h := New(Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Book: book, Runner: runner,
		Admit: &runs.Admission{Runner: runner, Rate: limiter, Rejected: rejected}, Rejected: rejected, MaxRuns: 2,
		Site: func(string) pages.Site { return pages.Site{} }})
	t.Cleanup(h.Stop)
	e := sitetest.Echo(nil)
	e.GET("/spread/progress", h.SpreadProgress())
	e.POST("/spread/cancel", h.SpreadCancel())
	return h, e
}

// response is what do got back.
type response struct {
	status int
	header http.Header
	body   string
}

// do sends a request through e.
func do(t *testing.T, e *echo.Echo, method, target string, header map[string]string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}
