package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/pages"
	"effectivelyonce/static"
)

// csp is the strict policy of DESIGN.md: no inline script anywhere; inline style attributes only,
// which echarts' tooltips need.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// httpError is an error with the status to answer and a message safe to show a reader.
type httpError struct {
	Status int
	Msg    string
	Err    error
}

func (e *httpError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, e.Msg, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Status, e.Msg)
}

func (e *httpError) Unwrap() error { return e.Err }

// server holds every dependency of the handlers.
type server struct {
	cfg     config
	log     *slog.Logger
	book    *content.Book
	assets  *assets
	sources map[string]pages.Source
	runner  *runner
	metrics *metrics
	echo    *echo.Echo
}

// newServer wires the handlers, middleware and error handling; it does no I/O beyond checking that
// every page's markers name things that exist.
func newServer(cfg config, log *slog.Logger, book *content.Book, a *assets) (*server, error) {
	srcs, err := pages.LoadSources(experiments.Sources())
	if err != nil {
		return nil, err
	}
	m := newMetrics()
	s := &server{cfg: cfg, log: log, book: book, assets: a, sources: srcs, metrics: m, runner: newRunner(cfg, m)}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "site_result_cache_bytes", Help: "Estimated size of the cached experiment results.",
	}, func() float64 { return float64(s.runner.cache.bytes()) }))
	if err := s.checkBook(); err != nil {
		return nil, err
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
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
		log.Error("panic", "path", c.Request().URL.Path, "err", err, "stack", string(stack))
		return err
	}}))
	e.Use(s.requestLog)
	e.Use(securityHeaders)
	e.Use(middleware.BodyLimit("64K"))
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{
		Level:   5,
		Skipper: func(c echo.Context) bool { return strings.Contains(c.Request().URL.Path, "/static/") },
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
		Scripts: []string{s.assets.url(s.cfg.BasePath, "lib/echarts.min.js"), s.assets.url(s.cfg.BasePath, "lib/htmx.min.js"), s.assets.url(s.cfg.BasePath, "app.js")},
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
	if status >= 500 {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "err", err)
	}
	if status == 499 {
		c.Response().WriteHeader(status)
		return
	}
	if status == http.StatusServiceUnavailable {
		c.Response().Header().Set("Retry-After", "5")
	}
	if strings.HasPrefix(c.Request().URL.Path, s.cfg.BasePath+"/api/") {
		c.JSON(status, apiError("", msg))
		return
	}
	title := http.StatusText(status)
	site := s.site("")
	if err := render(c, status, pages.Layout(site, title, pages.ErrorPage(title, msg, site.URL("/")))); err != nil {
		c.String(status, msg)
	}
}

func (s *server) handleMetrics() echo.HandlerFunc {
	return echo.WrapHandler(promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
}

// newHTTPServer sets every timeout, so a slow or idle client cannot hold a connection open: the
// write timeout leaves room for the longest run the server allows, queue wait included.
func newHTTPServer(cfg config, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              cfg.Addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      cfg.RunTimeout + cfg.QueueWait + 10*time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    32 << 10,
	}
}

// serve starts the HTTP server and stops it gracefully when ctx ends.
func serve(ctx context.Context, cfg config, stdout interface{ Write([]byte) (int, error) }) error {
	var handler slog.Handler = slog.NewTextHandler(stdout, nil)
	if cfg.LogFormat == "json" {
		handler = slog.NewJSONHandler(stdout, nil)
	}
	log := slog.New(handler)
	book, err := content.Load(content.Files, content.WithBase(cfg.BasePath))
	if err != nil {
		return err
	}
	a, err := loadAssets(static.Files)
	if err != nil {
		return err
	}
	s, err := newServer(cfg, log, book, a)
	if err != nil {
		return err
	}
	if err := s.runner.warm(ctx); err != nil {
		return err
	}
	hs := newHTTPServer(cfg, s.echo)
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	log.Info("serving", "addr", "http://"+cfg.Addr+cfg.BasePath+"/")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return hs.Shutdown(shut)
}
