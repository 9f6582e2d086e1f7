package main

import (
	"github.com/labstack/echo/v4"
)

// routes lists every URL the site answers. GET routes answer HEAD too.
func (s *server) routes() {
	g := s.echo.Group(s.cfg.BasePath)
	get := func(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
		g.GET(path, h, mw...)
		g.HEAD(path, h, mw...)
	}
	limit := s.rateLimit()

	get("/", s.handleArticle("index", "/"), limit)
	get("/semantics", s.handleArticle("semantics", "/semantics"), limit)
	get("/blocks/:n", s.handleBlock(), limit)
	get("/assembly", s.handleArticle("assembly", "/assembly"), limit)
	get("/verify", s.handleArticle("verify", "/verify"), limit)
	get("/glossary", s.handleArticle("glossary", "/glossary"))

	get("/api/experiments", s.handleExperimentList())
	get("/api/experiments/:name", s.handleExperiment(), limit)

	get("/static/:hash/*", s.handleStatic())
	get("/healthz", s.handleHealth())
	get("/metrics", s.handleMetrics())
	if s.cfg.BasePath != "" {
		s.echo.GET("/", func(c echo.Context) error { return c.Redirect(302, s.cfg.BasePath+"/") })
	}
}

// bookPage is one page of the notebook in reading order.
type bookPage struct {
	slug string // content file, without .md
	path string // URL path, without the base path
	nav  string // short title for the contents
}

// bookPages is the reading order; previous/next links and the contents follow it.
func bookPages() []bookPage {
	return []bookPage{
		{"index", "/", "Start here"},
		{"semantics", "/semantics", "The three semantics"},
		{"blocks/1", "/blocks/1", "1 · Ack before work"},
		{"blocks/2", "/blocks/2", "2 · Ack after work"},
		{"blocks/3", "/blocks/3", "3 · Dedup at the sink"},
		{"blocks/4", "/blocks/4", "4 · The bounded window"},
		{"blocks/5", "/blocks/5", "5 · The dual write"},
		{"blocks/6", "/blocks/6", "6 · The lease"},
		{"assembly", "/assembly", "The assembly"},
		{"verify", "/verify", "Verify the claims"},
		{"glossary", "/glossary", "Glossary"},
	}
}
