package site

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/web"
	"effectivelyonce/internal/web/labweb"
	"effectivelyonce/internal/web/notebook"
	"effectivelyonce/internal/web/roomsweb"
	"effectivelyonce/internal/web/workbenchweb"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/rooms"
	"effectivelyonce/rooms/live"
	"effectivelyonce/workbench"
)

// Server holds every dependency of the handlers.
type Server struct {
	cfg     Config
	log     *slog.Logger
	book    *content.Book
	assets  *web.Assets
	sources map[string]pages.Source
	runner  *runs.Runner
	// admit charges readers' runs to their client address before they reach the runner.
	admit *runs.Admission
	// lab serves the live lab and holds the instance's one run (its Runner is how a test swaps
	// the worker process for the test binary).
	lab *labweb.Handlers
	// notebook serves the pages and their experiments, the API, "which jobs?" and the spreads.
	notebook *notebook.Handlers
	limiter  *web.RateLimiter[netip.Addr]
	// workbench serves the workbench: its checks, in a child process, and its shares, kept in the
	// rooms' database once serve gives it the store.
	workbench *workbenchweb.Handlers
	metrics   *metrics
	// rooms serves the study rooms (see internal/web/roomsweb).
	rooms *roomsweb.Handlers
	// conns is the connection limiter of the listener the server serves, which also bounds its
	// event streams; nil until httpServer has made it.
	conns *web.ConnLimiter
	// origins are the hosts absolute links may name (see internal/web/origin.go).
	origins *web.Origins
	echo    *echo.Echo
	shares  workbenchweb.ShareStore
	roomsDB string
	// ownBody are the routes ("METHOD path") that bound their bodies themselves, which the site's
	// body limit skips (routes.go fills it).
	ownBody map[string]bool
}

// Deps is what the server is given ready made: opening a store, a hub or the content is I/O that
// the binary (or a test) owns and closes.
type Deps struct {
	Log    *slog.Logger
	Book   *content.Book
	Assets *web.Assets
	Rooms  *rooms.Service
	Hub    roomsweb.Hub
	// Shares keeps the workbench's shares (the rooms' database); nil where a test has none.
	Shares workbenchweb.ShareStore
	// Children are the processes the site starts: its own binary as a lab worker and as a
	// workbench check's sandbox.
	Children runs.Children
	// RoomsDB names the rooms' database for the start-up log line.
	RoomsDB string
}

// New wires the handlers, middleware and error handling; it does no I/O beyond checking that
// every page's markers name things that exist.
func New(cfg Config, d Deps) (*Server, error) {
	log, book, a, rs, hub := d.Log, d.Book, d.Assets, d.Rooms, d.Hub
	srcs, err := pages.LoadSources(experiments.Sources())
	if err != nil {
		return nil, err
	}
	m := newMetrics()
	run := runs.NewRunner(runs.Config{MaxRuns: cfg.MaxRuns, QueueWait: cfg.QueueWait, RunTimeout: cfg.RunTimeout,
		CacheBytes: cfg.CacheBytes, MemLimit: cfg.MemLimit, Memory: (*experiments.Experiment).Memory}, runs.Metrics{Runs: m.runs, Cache: m.cache, Rejected: m.Rejected})
	s := &Server{cfg: cfg, log: log, shares: d.Shares, roomsDB: d.RoomsDB, book: book, assets: a, sources: srcs, metrics: m, runner: run,
		origins: web.NewOrigins(cfg.PublicOrigin, cfg.Addr, cfg.Hosts),
		limiter: web.NewRateLimiter(cfg.RatePerSec, cfg.RateBurst, cfg.RateClients), ownBody: map[string]bool{},
	}
	s.admit = &runs.Admission{Runner: run, Rate: s.limiter, Rejected: m.Rejected}
	cookies := web.Cookies{Base: cfg.BasePath, HTTPS: strings.HasPrefix(cfg.PublicOrigin, "https://")}
	s.lab = labweb.New(labweb.Deps{Site: s.site, Book: book, Sources: srcs, Cookies: cookies, Off: cfg.LabOff,
		MaxJobs: int64(cfg.labMaxJobs()), Runner: newLabRunner(cfg, log, d.Children.LabWorker, d.Children.Check), Rejected: m.Rejected})
	s.workbench = workbenchweb.New(workbenchweb.Deps{Site: s.site, Base: cfg.BasePath, EditorScript: a.URL(cfg.BasePath, "lib/editor.min.js"),
		Book: book, Sources: srcs, Log: log, Runner: run, Admit: s.admit,
		Checks:       workbench.Sandbox{Command: d.Children.Check, Deadline: workbenchweb.CheckDeadline(cfg.RunTimeout)},
		ShareCreates: web.NewRateLimiter(float64(cfg.ShareCreatesPerHour)/3600, cfg.ShareCreatesPerHour, cfg.RateClients),
		Rejected:     m.Rejected, Lookups: m.cache,
		// Run on the real lab: the workbench checks the handler, the lab runs it.
		LabRun: s.lab.StartHandler, LabOff: cfg.LabOff, LabMaxJobs: int64(cfg.labMaxJobs()),
		// The room bar, and a room's handler round the form submits to (s.rooms is made next).
		RoomBar: func(c echo.Context, site pages.Site) *pages.RoomView { return s.rooms.Bar(c, site) },
		Round:   func(c echo.Context) *pages.WorkbenchRound { return s.rooms.WorkbenchRound(c) }})
	s.rooms = roomsweb.New(roomsweb.Deps{Rooms: rs, Hub: hub, Admit: s.admit, Book: book, Site: s.site, Origins: s.origins, Log: log, Metrics: m.Metrics,
		Creates:          web.NewRateLimiter(float64(cfg.RoomCreatesPerHour)/3600, cfg.RoomCreatesPerHour, cfg.RateClients),
		Joins:            web.NewRateLimiter(float64(cfg.RoomJoinsPerMinute)/60, cfg.RoomJoinsPerMinute, cfg.RateClients),
		Changes:          web.NewKeyedLimiter[rooms.Hash](float64(cfg.RoomChangesPerMinute)/60, roomsweb.ChangeBurst(cfg.RoomChangesPerMinute), cfg.RateClients),
		ChangesPerMinute: cfg.RoomChangesPerMinute, StreamsPerKey: cfg.RoomStreamsPerKey, Base: cfg.BasePath,
		HTTPS: strings.HasPrefix(cfg.PublicOrigin, "https://"), Conns: func() *web.ConnLimiter { return s.conns },
		// Handler rounds: the workbench checks a member's handler and draws the answer to it.
		Checks: roomsweb.HandlerChecks{Check: s.workbench.CheckAt, Answer: s.workbench.RoundAnswer},
		// A lab run the room watches: the lab's form, its start and its progress box, the lab's own.
		Lab: roomsweb.LabParts{Form: s.lab.RoomForm, Start: s.lab.StartForRoom, Watched: s.lab.Watched}})
	s.notebook = notebook.New(notebook.Deps{Base: cfg.BasePath, Log: log, Book: book, Sources: srcs, Runner: run, Admit: s.admit,
		Rejected: m.Rejected, MaxRuns: cfg.MaxRuns, Site: s.site, SpreadPace: cfg.spreadPace,
		Parts: notebook.Parts{RoomBar: s.rooms.Bar, Lab: s.lab.OnPage, Workbench: s.workbench.OnPage, Editor: s.workbench.WithEditor, EditLinks: s.workbench.EditLinks,
			Sealed: s.rooms.Sealed}})
	m.Reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "site_result_cache_bytes", Help: "Estimated size of the cached experiment results.",
	}, func() float64 { return float64(s.runner.Cache().Bytes()) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "site_rate_limiter_clients", Help: "Client addresses the rate limiter tracks now (at most -rate-clients).",
	}, func() float64 { return float64(s.limiter.Size()) }))
	if err := s.checkBook(); err != nil {
		return nil, err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = web.Errors{Log: log, APIPrefix: cfg.BasePath + "/api/", FieldOf: roomsweb.ErrorField,
		APIBody:    func(field, msg string) any { return present.APIError(field, msg) },
		Page:       pages.ErrorPages(func() pages.Site { return s.site("") }),
		BodyLimits: kilobytes(roomsweb.BodyLimit) + " for the study rooms, " + kilobytes(bodyLimit) + " elsewhere"}.Handler
	switch cfg.ClientIP {
	case "x-forwarded-for":
		e.IPExtractor = echo.ExtractIPFromXFFHeader()
	case "x-real-ip":
		e.IPExtractor = echo.ExtractIPFromRealIPHeader()
	default:
		e.IPExtractor = echo.ExtractIPDirect()
	}
	// The request log wraps everything, so a request that panicked still gets its access line and
	// its metric; Recover hands the panic back as an error carrying its stack, which
	// web.Errors.Handler logs once with the rest.
	e.Use(web.RequestLog(log, s.metrics.Metrics))
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, DisableErrorHandler: true,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			return &web.PanicError{Err: err, Stack: stack}
		}}))
	e.Use(web.SecurityHeaders)
	e.Use(web.VaryHTMX)
	e.Use(web.Identify)
	cop, err := web.CrossOrigin(cfg.PublicOrigin)
	if err != nil {
		return nil, err
	}
	e.Use(cop)
	e.Use(notebook.StrictQuery(cfg.BasePath, m.Rejected))
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: bodyLimit, Skipper: func(c echo.Context) bool {
		return s.ownBody[c.Request().Method+" "+c.Path()]
	}}))
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{
		Level: 5,
		// Assets carry their own gzip; and echo's check is a substring match, which would gzip
		// for a client that said gzip;q=0.
		Skipper: func(c echo.Context) bool {
			// An event stream is never compressed: gzip would hold events back in its buffer. Nor
			// is a study room's change (a guess, a reveal): its answer is a status, a redirect or a
			// little JSON, and readying gzip for it (two resets of half a megabyte of tables)
			// cost more than the answer, for every member's every guess.
			p := c.Request().URL.Path
			change := c.Request().Method != http.MethodGet && strings.Contains(p, "/rooms/")
			return change || strings.Contains(p, "/static/") || strings.HasSuffix(p, "/events") || !web.AcceptsGzip(c.Request().Header.Values("Accept-Encoding"))
		},
	}))
	s.echo = e
	s.routes()
	return s, nil
}

// checkBook fails start-up when a page names an experiment or a source that does not exist.
func (s *Server) checkBook() error {
	for _, p := range content.Contents() {
		page, ok := s.book.Page(p.Slug)
		if !ok {
			return fmt.Errorf("content: page %s is missing", p.Slug)
		}
		for _, part := range page.Parts {
			switch part.Marker {
			case content.MarkerExperiment:
				if _, ok := experiments.Lookup(part.Name()); !ok {
					return fmt.Errorf("content %s: no experiment %q", p.Slug, part.Name())
				}
				if err := pages.CheckMarker(part); err != nil {
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

// bodyLimit bounds the body of every request but the study rooms' (roomsweb.BodyLimit, in
// routes.go) and the workbench's posts, which bound theirs themselves (workbenchweb.LimitBody):
// the largest a form or an API call sends is a workbench handler's source.
const bodyLimit = "64K"

// kilobytes writes a body limit as echo takes it ("8K") for a person: "8 KB".
func kilobytes(limit string) string { return strings.TrimSuffix(limit, "K") + " KB" }

// site is the part of every view that does not depend on the request.
func (s *Server) site(current string) pages.Site {
	v := pages.Site{
		Base:    s.cfg.BasePath,
		CSS:     s.assets.URL(s.cfg.BasePath, "app.css"),
		Icon:    s.assets.URL(s.cfg.BasePath, "favicon.svg"),
		Scripts: []string{s.assets.URL(s.cfg.BasePath, "lib/echarts.min.js"), s.assets.URL(s.cfg.BasePath, "lib/htmx.min.js"), s.assets.URL(s.cfg.BasePath, "lib/htmx-sse.min.js"), s.assets.URL(s.cfg.BasePath, "app.js")},
		Version: present.Version(),
	}
	for _, p := range content.Contents() {
		v.Contents = append(v.Contents, pages.Link{Title: p.Nav, URL: v.URL(p.Path), Current: p.Path == current})
	}
	return v
}

// newHTTPServer sets every timeout, so a slow or idle client cannot hold a connection open: the
// write timeout leaves room for the longest run the server allows, queue wait included. Every
// answer carries the security headers, net/http's own ones too (see web.WithSecurityHeaders and
// the web layer's limitedConn.Write).
func newHTTPServer(cfg Config, h http.Handler) *http.Server {
	return &http.Server{
		Addr:                         cfg.Addr,
		Handler:                      web.WithSecurityHeaders(h),
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
func (s *Server) httpServer(ln net.Listener) (*http.Server, *web.ConnLimiter) {
	total := s.cfg.MaxConns
	if total == 0 {
		files, _ := web.RaiseFileLimit()
		total = web.MaxConnsDefault(files, s.cfg.MemLimit)
	}
	s.origins.Listening(ln.Addr())
	conns := web.NewConnLimiter(ln, total, s.cfg.MaxConnsPerClient, s.metrics.Metrics)
	conns.SetStreamCap(web.MaxStreams(total, s.cfg.MemLimit))
	conns.RegisterGauge(s.metrics.Reg)
	hs := newHTTPServer(s.cfg, s.echo)
	hs.ConnState = conns.ConnState
	s.conns = conns
	hs.ErrorLog = slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)
	return hs, conns
}

// NewHub is the rooms' hub: in-process with SQLite (one instance), LISTEN/NOTIFY with Postgres,
// so that every replica's streams hear of a change made through any of them.
func NewHub(ctx context.Context, cfg Config, log *slog.Logger) (roomsweb.Hub, error) {
	if cfg.DatabaseURL == "" {
		return live.NewLocal(), nil
	}
	h, err := live.NewPostgres(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return nil, fmt.Errorf("study rooms' live updates: %w", err)
	}
	return h, nil
}

// NewRooms is the rooms' service over store with the configured limits, telling hub of every
// change. A change is stored before it is announced, so a failed announcement loses nothing: the
// streams catch up at their next change or reconnect.
func NewRooms(store rooms.Store, cfg Config, hub roomsweb.Hub, log *slog.Logger) *rooms.Service {
	rc := cfg.Rooms
	rc.Notify = func(ctx context.Context, roomID string) {
		if err := hub.Publish(context.WithoutCancel(ctx), roomID); err != nil {
			log.Warn("room change not announced", "room", roomID, "err", err)
		}
	}
	return rooms.NewService(store, rc)
}

// gracePeriod is how long shutdown waits for the requests in flight: a run that started just
// before the signal, with the time to write its answer. Runs still waiting for a slot do not
// count: they are refused at once.
func gracePeriod(cfg Config) time.Duration { return cfg.RunTimeout + 5*time.Second }

// Serve serves on ln until ctx ends, then stops gracefully: it stops accepting, answers every
// queued run with a 503 at once, lets the running ones finish within the run timeout, and returns
// nil. (A second signal does not wait for any of that: see the binary's main.)
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	cfg, log := s.cfg, s.log
	if s.shares != nil {
		s.workbench.SetShares(s.shares)
	}
	go s.rooms.Sweep(ctx)
	s.lab.Sweep(ctx) // the files of lab runs a killed site left behind
	if err := s.runner.Warm(ctx); err != nil {
		ln.Close()
		return err
	}
	files, _ := web.RaiseFileLimit() // raised already; read for the log line
	hs, conns := s.httpServer(ln)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(conns) }()
	log.Info("serving", "addr", "http://"+ln.Addr().String()+cfg.BasePath+"/", "max_runs", cfg.MaxRuns,
		"max_conns", cfg.MaxConns, "max_streams", web.MaxStreams(cfg.MaxConns, cfg.MemLimit), "max_conns_per_client", cfg.MaxConnsPerClient, "open_files", files,
		"mem_limit_mb", cfg.MemLimit>>20, "mem_limit_from", cfg.MemLimitSource, "run_budget_mb", s.runner.BudgetBytes()>>20, "rooms_db", s.roomsDB)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	grace := gracePeriod(cfg)
	log.Info("shutting down", "grace", grace)
	start := time.Now()
	s.runner.Stop()
	s.notebook.Stop() // cancels every background spread over seeds
	s.lab.Stop()      // kills a lab run's worker processes and removes its files before the exit
	s.limiter.Close()
	s.workbench.Stop()
	s.rooms.Stop() // ends every room stream, which graceful shutdown would otherwise wait for
	shut, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		hs.Close()
		return fmt.Errorf("shutdown: requests still running after %s: %w", grace, err)
	}
	log.Info("stopped", "after", time.Since(start).Round(time.Millisecond))
	return nil
}
