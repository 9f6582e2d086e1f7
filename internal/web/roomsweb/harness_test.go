package roomsweb

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	"effectivelyonce/rooms"
	"effectivelyonce/rooms/live"
)

// harness is the rooms' API handlers alone, on an in-memory store, behind the web layer's error
// handler: for tests of what the handlers answer, without the site's pages, assets or listener.
// (The site's own tests drive the same routes through its whole middleware stack.)
type harness struct {
	h   *Handlers
	e   *echo.Echo
	ids map[string]string // room id by join code, for the page routes
	// checks stands in for the workbench: its checks and its answers to a submission.
	checks *fakeChecks
}

// limits are the harness's allowances; zero fields are generous.
type limits struct {
	joinsPerMinute int
	// changesPerMinute is each key's allowance of changes; generous when zero.
	changesPerMinute int
	now              func() time.Time // the rooms' clock; time.Now when nil
}

func newHarness(t *testing.T, l limits) *harness {
	t.Helper()
	book, err := content.Load(content.Files)
	if err != nil {
		t.Fatal(err)
	}
	if l.joinsPerMinute == 0 {
		l.joinsPerMinute = 1000
	}
	if l.changesPerMinute == 0 {
		l.changesPerMinute = 60_000
	}
	changes := web.NewKeyedLimiter[rooms.Hash](float64(l.changesPerMinute)/60, ChangeBurst(l.changesPerMinute), 1000)
	m := web.NewMetrics()
	run := runs.NewRunner(runs.Config{MaxRuns: 2, QueueWait: 2 * time.Second, RunTimeout: 10 * time.Second, CacheBytes: 16 << 20,
		Memory: (*experiments.Experiment).Memory}, runs.Metrics{
		Runs:     prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "runs"}, []string{"experiment", "lane"}),
		Cache:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cache"}, []string{"outcome"}),
		Rejected: m.Rejected})
	hub := live.NewLocal()
	fc := &fakeChecks{}
	rs := rooms.NewService(rooms.NewMemStore(), rooms.Config{Now: l.now, Notify: func(ctx context.Context, id string) { _ = hub.Publish(ctx, id) }})
	h := New(Deps{Rooms: rs, Hub: hub, Book: book, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: m,
		Admit:   &runs.Admission{Runner: run, Rate: web.NewRateLimiter(1000, 1000, 1000), Rejected: m.Rejected},
		Site:    func(string) pages.Site { return pages.Site{} },
		Origins: web.NewOrigins("http://rooms.test", "127.0.0.1:0", nil),
		Creates: web.NewRateLimiter(1000, 1000, 1000), Joins: web.NewRateLimiter(float64(l.joinsPerMinute)/60, l.joinsPerMinute, 1000),
		Changes: changes, ChangesPerMinute: l.changesPerMinute, StreamsPerKey: 4,
		Checks: HandlerChecks{Check: fc.check, Answer: fc.answer},
		// A lab that starts every run it is given as "run-1" and shows nothing of it.
		Lab: LabParts{Start: func(echo.Context, url.Values) (string, experiments.FieldErrors, error) { return "run-1", nil, nil },
			Form: func(url.Values, experiments.FieldErrors, string) *pages.LabView { return &pages.LabView{} }}})
	t.Cleanup(func() { h.Stop(); run.Stop() })
	e := sitetest.Echo(ErrorField)
	miss, change := h.CodeGate, h.ChargeChange
	e.POST("/api/rooms", h.APICreate())
	e.POST("/api/rooms/:code/members", h.APIJoin())
	e.POST("/api/rooms/:code/rounds", h.APIRoundOpen(), miss, change)
	e.PUT("/api/rooms/:code/rounds/:seq/guess", h.APIGuess(), miss, change)
	e.POST("/api/rooms/:code/rounds/:seq/lock", h.APIRoundLock(), miss, change)
	e.POST("/api/rooms/:code/rounds/:seq/second-vote", h.APISecondVote(), miss, change)
	e.POST("/api/rooms/:code/rounds/:seq/timer", h.APITimer(), miss, change)
	e.GET("/api/rooms/:code", h.APIState(), miss)
	e.POST("/api/rooms/:code/rounds/:seq/reveal", h.APIRoundReveal(), miss, change)
	e.POST("/api/rooms/:code/pins", h.APIPin(), miss, change)
	e.GET("/api/rooms/:code/export", h.APIExport(), miss)
	e.POST("/api/rooms/:code/rounds/:seq/submission", h.APISubmit(), miss, change)
	e.POST("/rooms/:id/rounds/:seq/submission", h.SubmitForm())
	// The room page's actions, as routes.go mounts them.
	for path, act := range map[string]echo.HandlerFunc{
		"/rounds": h.OpenRound(), "/rounds/:seq/guess": h.Guess(), "/rounds/:seq/second-vote": h.SecondVote(),
		"/rounds/:seq/timer": h.Timer(), "/rounds/:seq/lock": h.LockRound(), "/rounds/:seq/reveal": h.Reveal(),
		"/rounds/:seq/names": h.SetNamesVisible(), "/rounds/:seq/projector": h.ShowOnProjector(),
		"/pins": h.AddPin(), "/pins/:pin/hidden": h.SetPinHidden(), "/present": h.Present(), "/lab": h.StartLab(),
		"/members/:member/kick": h.Kick(), "/close": h.CloseRoom(), "/locked": h.SetLocked(), "/code": h.RotateCode(),
		"/host-link": h.NewHostLink(), "/host-key": h.RotateHostKey(), "/leave": h.Leave(), "/show": h.Show(),
	} {
		e.POST("/rooms/:id"+path, act)
	}
	return &harness{h: h, e: e, ids: map[string]string{}, checks: fc}
}

type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type apiErrors struct {
	Errors []fieldError `json:"errors"`
}

type response struct {
	status int
	body   string
}

// call sends one request to the handlers, with key as its bearer key when it is not "".
func (s *harness) call(method, target, key, body string) response {
	return s.send(method, target, key, "application/json", body)
}

// post sends a form to a room page's action, as a browser without script does, the key as its
// bearer (which the page routes take after their cookies).
func (s *harness) post(target, key string, form url.Values) response {
	return s.send("POST", target, key, "application/x-www-form-urlencoded", form.Encode())
}

func (s *harness) send(method, target, key, contentType, body string) response {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	s.e.ServeHTTP(rec, req)
	return response{rec.Code, rec.Body.String()}
}

// must checks the status of r and decodes its body into v (when v is not nil).
func must(t *testing.T, r response, status int, v any) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(r.body), v); err != nil {
			t.Fatalf("%v: %s", err, r.body)
		}
	}
}

// createRoom opens a room through the API and answers its code and host key.
func (s *harness) createRoom(t *testing.T, title string) (code, hostKey string) {
	t.Helper()
	var c struct {
		Code    string `json:"code"`
		HostKey string `json:"host_key"`
		HostURL string `json:"host_url"`
	}
	must(t, s.call("POST", "/api/rooms", "", `{"title":"`+title+`"}`), http.StatusCreated, &c)
	u, err := url.Parse(c.HostURL) // .../rooms/ID/host?token=...
	if err != nil {
		t.Fatal(err)
	}
	s.ids[c.Code] = strings.TrimSuffix(strings.TrimPrefix(u.Path, "/rooms/"), "/host")
	return c.Code, c.HostKey
}

// join seats name in the room of code and answers the member's key.
func (s *harness) join(t *testing.T, code, name string) string {
	t.Helper()
	var j struct {
		Key string `json:"member_key"`
	}
	must(t, s.call("POST", "/api/rooms/"+code+"/members", "", `{"name":"`+name+`"}`), http.StatusCreated, &j)
	return j.Key
}
