package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/pages"
	"effectivelyonce/rooms"
	"effectivelyonce/rooms/live"
	"effectivelyonce/rooms/sqlstore"
	"effectivelyonce/static"
	"effectivelyonce/workbench"
)

// csp is the strict policy of DESIGN.md: no inline script anywhere; inline style attributes only,
// which echarts' tooltips need.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// httpError is an error with the status to answer and a message safe to show a reader: a sentence,
// capitalised, since a page shows it after "Not run yet.". RetryAfter, when set, becomes the
// Retry-After header and the reader is told to wait that long.
type httpError struct {
	Status     int
	Msg        string
	RetryAfter time.Duration
	Err        error
}

func (e *httpError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, e.Msg, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Status, e.Msg)
}

func (e *httpError) Unwrap() error { return e.Err }

// panicError is a handler's panic, recovered, with the stack it was raised on.
type panicError struct {
	err   error
	stack []byte
}

func (e *panicError) Error() string { return "panic: " + e.err.Error() }
func (e *panicError) Unwrap() error { return e.err }

// server holds every dependency of the handlers.
type server struct {
	cfg     config
	log     *slog.Logger
	book    *content.Book
	assets  *assets
	sources map[string]pages.Source
	runner  *runner
	// lab holds the instance's one live-lab run; its command field is how a test swaps the
	// worker process for the test binary.
	lab *labRunner
	// spreads runs the pages' spreads over seeds in the background and keeps their summaries.
	spreads *spreads
	limiter *rateLimiter[netip.Addr]
	// roomCreates and roomJoins limit the study rooms' creations and joins per client address,
	// roomChanges the changes made with one room key (a host's or a member's), guesses included.
	roomCreates, roomJoins *rateLimiter[netip.Addr]
	roomChanges            *rateLimiter[rooms.Hash]
	// shareCreates limits the workbench's shares created per client address; shares is where they
	// are kept (the rooms' database), nil where a test has none.
	shareCreates *rateLimiter[netip.Addr]
	shares       shareStore
	// checks runs the workbench's checks in a child process; tests give it the test binary.
	checks  workbench.Sandbox
	metrics *metrics
	rooms   *rooms.Service
	// hub wakes the rooms' event streams; stopping closes at shutdown, ending every stream, since
	// a stream is never idle and the HTTP server's graceful shutdown would otherwise wait for it.
	hub       roomHub
	stopping  chan struct{}
	heartbeat time.Duration
	streams   atomic.Int64 // open room streams, for /metrics
	// conns is the connection limiter of the listener the server serves, which also bounds its
	// event streams; nil until httpServer has made it.
	conns *connLimiter
	// asked are the five questions as a host picks them; headlines and qrs are worked out once
	// for each pinned permalink and each join link.
	asked []pages.Asked
	// origins are the hosts absolute links may name (see origin.go).
	origins *origins
	// titles are notebook paths in words, as rooms show them (see rooms_paths.go).
	titles    *memo[string]
	headlines *headlines
	qrs       *memo[pages.QR]
	echo      *echo.Echo
}

// newServer wires the handlers, middleware and error handling; it does no I/O beyond checking that
// every page's markers name things that exist. The study rooms come in ready made, since opening
// their store is I/O that serve (or a test) owns and closes.
func newServer(cfg config, log *slog.Logger, book *content.Book, a *assets, rs *rooms.Service, hub roomHub) (*server, error) {
	srcs, err := pages.LoadSources(experiments.Sources())
	if err != nil {
		return nil, err
	}
	m := newMetrics()
	run := newRunner(cfg, m)
	s := &server{cfg: cfg, log: log, book: book, assets: a, sources: srcs, metrics: m, rooms: rs, runner: run, lab: newLabRunner(cfg, log), spreads: newSpreads(run.cache),
		hub: hub, stopping: make(chan struct{}), heartbeat: heartbeat, origins: newOrigins(cfg), titles: newMemo[string](1000), headlines: newHeadlines(), qrs: newMemo[pages.QR](256),
		limiter:      newRateLimiter(cfg.RatePerSec, cfg.RateBurst, cfg.RateClients),
		roomCreates:  newRateLimiter(float64(cfg.RoomCreatesPerHour)/3600, cfg.RoomCreatesPerHour, cfg.RateClients),
		roomJoins:    newRateLimiter(float64(cfg.RoomJoinsPerMinute)/60, cfg.RoomJoinsPerMinute, cfg.RateClients),
		roomChanges:  newKeyedLimiter[rooms.Hash](float64(cfg.RoomChangesPerMinute)/60, roomChangeBurst(cfg.RoomChangesPerMinute), cfg.RateClients),
		shareCreates: newRateLimiter(float64(cfg.ShareCreatesPerHour)/3600, cfg.ShareCreatesPerHour, cfg.RateClients),
		checks:       workbench.Sandbox{Command: siteWorkbenchChild, Deadline: checkDeadline(cfg)}}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "site_result_cache_bytes", Help: "Estimated size of the cached experiment results.",
	}, func() float64 { return float64(s.runner.cache.bytes()) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "site_rate_limiter_clients", Help: "Client addresses the rate limiter tracks now (at most -rate-clients).",
	}, func() float64 { return float64(s.limiter.size()) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "site_room_streams", Help: "Study room event streams open now.",
	}, func() float64 { return float64(s.streams.Load()) }))
	if err := s.checkBook(); err != nil {
		return nil, err
	}
	if page, ok := book.Page("predictions"); ok {
		for i, sec := range page.Sections {
			if i < len(pages.QuestionSpecs) {
				s.asked = append(s.asked, pages.Asked{ID: pages.QuestionSpecs[i].ID, Title: sec.Title})
			}
		}
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	switch cfg.ClientIP {
	case "x-forwarded-for":
		e.IPExtractor = echo.ExtractIPFromXFFHeader()
	case "x-real-ip":
		e.IPExtractor = echo.ExtractIPFromRealIPHeader()
	default:
		e.IPExtractor = echo.ExtractIPDirect()
	}
	// The request log wraps everything, so a request that panicked still gets its access line and
	// its metric; Recover hands the panic back as an error carrying its stack, which handleError
	// logs once with the rest.
	e.Use(s.requestLog)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, DisableErrorHandler: true,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			return &panicError{err: err, stack: stack}
		}}))
	e.Use(securityHeaders)
	e.Use(varyHTMX)
	e.Use(identify)
	cop, err := crossOrigin(cfg.PublicOrigin)
	if err != nil {
		return nil, err
	}
	e.Use(cop)
	e.Use(s.strictQuery())
	e.Use(middleware.BodyLimit("64K"))
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{
		Level: 5,
		// Assets carry their own gzip; and echo's check is a substring match, which would gzip
		// for a client that said gzip;q=0.
		Skipper: func(c echo.Context) bool {
			// An event stream is never compressed: gzip would hold events back in its buffer.
			p := c.Request().URL.Path
			return strings.Contains(p, "/static/") || strings.HasSuffix(p, "/events") || !acceptsGzip(c.Request().Header.Values("Accept-Encoding"))
		},
	}))
	s.echo = e
	s.routes()
	return s, nil
}

// checkBook fails start-up when a page names an experiment or a source that does not exist.
func (s *server) checkBook() error {
	for _, p := range content.Contents() {
		page, ok := s.book.Page(p.Slug)
		if !ok {
			return fmt.Errorf("content: page %s is missing", p.Slug)
		}
		for _, part := range page.Parts {
			switch part.Marker {
			case content.MarkerExperiment:
				e, ok := experiments.Lookup(part.Name())
				if !ok {
					return fmt.Errorf("content %s: no experiment %q", p.Slug, part.Name())
				}
				pr, err := pages.PresenterOf(e)
				if err != nil {
					return fmt.Errorf("content %s: %w", p.Slug, err)
				}
				if err := pr.CheckScope(part); err != nil {
					return fmt.Errorf("content %s: %w", p.Slug, err)
				}
			case content.MarkerSource:
				for _, name := range strings.Fields(part.Arg) {
					if _, ok := s.sources[name]; !ok {
						return fmt.Errorf("content %s: no function %q in experiments", p.Slug, name)
					}
				}
			}
		}
	}
	return nil
}

// site is the part of every view that does not depend on the request.
func (s *server) site(current string) pages.Site {
	v := pages.Site{
		Base:    s.cfg.BasePath,
		CSS:     s.assets.url(s.cfg.BasePath, "app.css"),
		Icon:    s.assets.url(s.cfg.BasePath, "favicon.svg"),
		Scripts: []string{s.assets.url(s.cfg.BasePath, "lib/echarts.min.js"), s.assets.url(s.cfg.BasePath, "lib/htmx.min.js"), s.assets.url(s.cfg.BasePath, "lib/htmx-sse.min.js"), s.assets.url(s.cfg.BasePath, "app.js")},
		Version: notebookVersion(),
	}
	for _, p := range content.Contents() {
		v.Contents = append(v.Contents, pages.Link{Title: p.Nav, URL: v.URL(p.Path), Current: p.Path == current})
	}
	return v
}

// render writes a component through a buffer, so a failing template never sends half a page.
func render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return fmt.Errorf("render %s: %w", c.Path(), err)
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// handleError is the one place errors become responses and the one place they are logged.
func (s *server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := http.StatusInternalServerError, "something went wrong on the server"
	var he *httpError
	var ee *echo.HTTPError
	switch {
	case errors.As(err, &he):
		status, msg = he.Status, he.Msg
	case errors.As(err, &ee):
		status = ee.Code
		msg = strings.ToLower(http.StatusText(status))
		if m, ok := ee.Message.(string); ok && status < 500 {
			msg = m
		}
	case errors.Is(err, context.Canceled):
		status, msg = 499, "the request was cancelled"
	}
	field := errorField(err)
	if status == http.StatusRequestEntityTooLarge {
		field, msg = "body", "the body is larger than this route takes: 8 KB for the study rooms, 64 KB elsewhere"
	}
	if status >= 500 {
		attrs := []any{"method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "err", err}
		var pe *panicError
		if errors.As(err, &pe) {
			attrs = append(attrs, "stack", string(pe.stack))
		}
		s.log.Error("request failed", attrs...)
	}
	if status == 499 {
		c.Response().WriteHeader(status)
		return
	}
	switch {
	case he != nil && he.RetryAfter > 0:
		c.Response().Header().Set("Retry-After", strconv.Itoa(retrySeconds(he.RetryAfter)))
		msg += " " + fmt.Sprintf("Try again in %d s.", retrySeconds(he.RetryAfter))
	case status == http.StatusServiceUnavailable:
		c.Response().Header().Set("Retry-After", "5")
	}
	if strings.HasPrefix(c.Request().URL.Path, s.cfg.BasePath+"/api/") {
		c.JSON(status, apiError(field, msg))
		return
	}
	title := http.StatusText(status)
	site := s.site("")
	if err := render(c, status, pages.Layout(site, title, pages.ErrorPage(title, msg, site.URL("/")))); err != nil {
		c.String(status, msg)
	}
}

func (s *server) handleMetrics() echo.HandlerFunc {
	// echo's gzip middleware compresses every answer already: promhttp's own compression on top
	// of it sent gzip inside gzip, which no scraper reads.
	return echo.WrapHandler(promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{DisableCompression: true}))
}

// newHTTPServer sets every timeout, so a slow or idle client cannot hold a connection open: the
// write timeout leaves room for the longest run the server allows, queue wait included. Every
// answer carries the security headers, net/http's own ones too (see withSecurityHeaders and
// limitedConn.Write).
func newHTTPServer(cfg config, h http.Handler) *http.Server {
	return &http.Server{
		Addr:                         cfg.Addr,
		Handler:                      withSecurityHeaders(h),
		DisableGeneralOptionsHandler: true,
		ReadHeaderTimeout:            5 * time.Second,
		ReadTimeout:                  10 * time.Second,
		WriteTimeout:                 cfg.RunTimeout + cfg.QueueWait + 10*time.Second,
		IdleTimeout:                  60 * time.Second,
		MaxHeaderBytes:               32 << 10,
	}
}

// httpServer wires the HTTP server to s, over ln within the connection bounds of s.cfg; the
// caller runs hs.Serve(conns).
func (s *server) httpServer(ln net.Listener) (*http.Server, *connLimiter) {
	total := s.cfg.MaxConns
	if total == 0 {
		files, _ := raiseFileLimit()
		total = maxConnsDefault(files, s.cfg.MemLimit)
	}
	s.origins.listening(ln.Addr())
	conns := newConnLimiter(ln, total, s.cfg.MaxConnsPerClient, s.metrics)
	conns.streams = maxStreams(total, s.cfg.MemLimit)
	conns.registerGauge(s.metrics.reg)
	hs := newHTTPServer(s.cfg, s.echo)
	hs.ConnState = conns.connState
	s.conns = conns
	hs.ErrorLog = slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)
	return hs, conns
}

// newHub is the rooms' hub: in-process with SQLite (one instance), LISTEN/NOTIFY with Postgres,
// so that every replica's streams hear of a change made through any of them.
func newHub(ctx context.Context, cfg config, log *slog.Logger) (roomHub, error) {
	if cfg.DatabaseURL == "" {
		return live.NewLocal(), nil
	}
	h, err := live.NewPostgres(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return nil, fmt.Errorf("study rooms' live updates: %w", err)
	}
	return h, nil
}

// newRooms is the rooms' service over store with the configured limits, telling hub of every
// change. A change is stored before it is announced, so a failed announcement loses nothing: the
// streams catch up at their next change or reconnect.
func newRooms(store rooms.Store, cfg config, hub roomHub, log *slog.Logger) *rooms.Service {
	rc := cfg.Rooms
	rc.Notify = func(ctx context.Context, roomID string) {
		if err := hub.Publish(context.WithoutCancel(ctx), roomID); err != nil {
			log.Warn("room change not announced", "room", roomID, "err", err)
		}
	}
	return rooms.NewService(store, rc)
}

// sweepEvery is how often idle rooms are closed and old closed rooms deleted.
const sweepEvery = 10 * time.Minute

// sweepRooms closes and deletes rooms on a timer until ctx ends; reads close an idle room on the
// spot in between, so the timer only bounds how long a forgotten room takes up a slot and space.
func (s *server) sweepRooms(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		closed, deleted, err := s.rooms.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Warn("room sweep", "err", err)
		case closed+deleted > 0:
			s.log.Info("room sweep", "closed", closed, "deleted", deleted)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// gracePeriod is how long shutdown waits for the requests in flight: a run that started just
// before the signal, with the time to write its answer. Runs still waiting for a slot do not
// count: they are refused at once.
func gracePeriod(cfg config) time.Duration { return cfg.RunTimeout + 5*time.Second }

// serve starts the HTTP server and stops it gracefully when ctx ends: it stops accepting, answers
// every queued run with a 503 at once, lets the running ones finish within the run timeout, and
// returns nil. (A second signal does not wait for any of that: see main.)
func serve(ctx context.Context, cfg config, stdout io.Writer) error {
	var handler slog.Handler = slog.NewTextHandler(stdout, nil)
	if cfg.LogFormat == "json" {
		handler = slog.NewJSONHandler(stdout, nil)
	}
	log := slog.New(handler)
	if cfg.MemLimit > 0 {
		applyMemoryLimit(cfg.MemLimit)
	}
	files, err := raiseFileLimit()
	if err != nil {
		log.Warn("open file limit", "err", err)
	}
	if cfg.MaxConns == 0 {
		cfg.MaxConns = maxConnsDefault(files, cfg.MemLimit)
	}
	book, err := content.Load(content.Files, content.WithBase(cfg.BasePath))
	if err != nil {
		return err
	}
	a, err := loadAssets(static.Files)
	if err != nil {
		return err
	}
	store, err := sqlstore.Open(ctx, cfg.roomsDSN())
	if err != nil {
		return fmt.Errorf("study rooms store: %w", err)
	}
	// Closed last, after the HTTP server has drained, so no request in flight loses its store.
	defer store.Close()
	hub, err := newHub(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer hub.Close()
	s, err := newServer(cfg, log, book, a, newRooms(store, cfg, hub, log), hub)
	if err != nil {
		return err
	}
	s.shares = store
	go s.sweepRooms(ctx)
	s.lab.sweep(ctx) // the files of lab runs a killed site left behind
	if err := s.runner.warm(ctx); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	hs, conns := s.httpServer(ln)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(conns) }()
	log.Info("serving", "addr", "http://"+ln.Addr().String()+cfg.BasePath+"/", "max_runs", cfg.MaxRuns,
		"max_conns", cfg.MaxConns, "max_streams", maxStreams(cfg.MaxConns, cfg.MemLimit), "max_conns_per_client", cfg.MaxConnsPerClient, "open_files", files,
		"mem_limit_mb", cfg.MemLimit>>20, "mem_limit_from", cfg.MemLimitSource, "run_budget_mb", s.runner.budget>>20, "rooms_db", store.Dialect())
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	grace := gracePeriod(cfg)
	log.Info("shutting down", "grace", grace)
	start := time.Now()
	s.runner.stop()
	s.spreads.stop() // cancels every background spread over seeds
	s.lab.stop()     // kills a lab run's worker processes and removes its files before the exit
	s.limiter.close()
	s.roomCreates.close()
	s.roomJoins.close()
	s.roomChanges.close()
	s.shareCreates.close()
	close(s.stopping) // ends every room stream, which graceful shutdown would otherwise wait for
	shut, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
		return fmt.Errorf("shutdown: requests still running after %s: %w", grace, err)
	}
	log.Info("stopped", "after", time.Since(start).Round(time.Millisecond))
	return nil
}
