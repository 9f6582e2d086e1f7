package workbenchweb

// The harness of this package's tests: the workbench's routes alone on an echo with the web
// layer's one error handler, checks in this test binary as their child process (see TestMain),
// shares in a SQLite store of the test's own.

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
	"effectivelyonce/rooms/sqlstore"
	"effectivelyonce/workbench"
)

// TestMain lets this test binary stand in for "site workbench-check", the child process every
// check runs in (see sitetest.RunChild); testChild starts it so.
func TestMain(m *testing.M) {
	sitetest.RunChild()
	os.Exit(m.Run())
}

var testChild = sitetest.Child(workbench.ChildCommand)

// newTestEcho serves the workbench's routes as the site does, with sharesPerHour shares allowed
// per client address.
func newTestEcho(t *testing.T, sharesPerHour int) *echo.Echo {
	t.Helper()
	e, _ := newTestHandlers(t, sharesPerHour, nil)
	return e
}

// newTestHandlers is newTestEcho with its handlers, their Deps changed first by tweak (if not nil).
func newTestHandlers(t *testing.T, sharesPerHour int, tweak func(*Deps)) (*echo.Echo, *Handlers) {
	t.Helper()
	book, err := content.Load(content.Files)
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := pages.LoadSources(experiments.Sources())
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), sqlstore.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	counter := func(name string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name}, []string{"reason"})
	}
	rejected, lookups := counter("rejected"), counter("lookups")
	run := runs.NewRunner(runs.Config{MaxRuns: 2, QueueWait: 2 * time.Second, RunTimeout: 10 * time.Second, CacheBytes: 16 << 20,
		Memory: (*experiments.Experiment).Memory}, runs.Metrics{Cache: lookups, Rejected: rejected,
		Runs: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "runs"}, []string{"experiment", "lane"})})
	t.Cleanup(run.Stop)
	rate := web.NewRateLimiter(1000, 1000, 1000)
	t.Cleanup(rate.Close)
	site := func(string) pages.Site { return pages.Site{Scripts: []string{"/static/app.js"}} }
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	d := Deps{Site: site, EditorScript: "/static/lib/editor.min.js", Book: book, Sources: srcs, Log: log,
		Runner: run, Admit: &runs.Admission{Runner: run, Rate: rate, Rejected: rejected},
		Checks: workbench.Sandbox{Command: testChild, Deadline: CheckDeadline(10 * time.Second)}, Shares: store,
		ShareCreates: web.NewRateLimiter(float64(sharesPerHour)/3600, sharesPerHour, 1000), Rejected: rejected, Lookups: lookups}
	if tweak != nil {
		tweak(&d)
	}
	h := New(d)
	t.Cleanup(h.Stop)
	e := sitetest.Echo(nil)
	e.POST("/workbench", h.Check(), LimitBody)
	e.POST("/workbench/trace", h.Trace(), LimitBody)
	e.POST("/workbench/jobs", h.Jobs(), LimitBody)
	e.POST("/workbench/lab", h.RunOnLab(), LimitBody)
	e.GET("/workbench/edit", h.InPlace())
	e.POST("/api/workbench/jobs", h.JobsAPI(), LimitBody)
	e.POST("/workbench/share", h.Share(), LimitBody)
	e.GET("/workbench/s/:hash", h.Shared())
	e.POST("/api/workbench/check", h.CheckAPI(), LimitBody)
	e.POST("/api/workbench/shares", h.ShareAPI(), LimitBody)
	e.GET("/workbench", func(c echo.Context) error {
		v, status := h.OnPage(c, d.Site(workbenchPath))
		return h.render(c, d.Site(workbenchPath), status, v)
	})
	return e, h
}

// response is what a request got back, as plain values.
type response struct {
	status int
	header http.Header
	body   string
}

func send(e *echo.Echo, req *http.Request) response {
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

func get(e *echo.Echo, target string) response {
	return send(e, httptest.NewRequest(http.MethodGet, target, nil))
}

func post(e *echo.Echo, target string, form url.Values) response {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return send(e, req)
}

func postJSON(t *testing.T, e *echo.Echo, target string, body any) response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	return send(e, req)
}

func template(t *testing.T, name string) string {
	t.Helper()
	tp, ok := workbench.LookupTemplate(name)
	if !ok {
		t.Fatalf("no template %s", name)
	}
	return tp.Source
}
