package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/pages"
)

// handleArticle handles "GET /", "GET /semantics", "GET /assembly", "GET /verify" and
// "GET /glossary": a prose page with its experiments run on the query's parameters.
func (s *server) handleArticle(slug, path string) echo.HandlerFunc {
	return func(c echo.Context) error { return s.article(c, slug, path) }
}

// handleBlock handles "GET /blocks/:n".
func (s *server) handleBlock() echo.HandlerFunc {
	return func(c echo.Context) error {
		n, err := strconv.Atoi(c.Param("n"))
		if err != nil || n < 1 || n > 6 || c.Param("n") != strconv.Itoa(n) {
			return &httpError{Status: http.StatusNotFound, Msg: "there are six blocks, numbered 1 to 6"}
		}
		return s.article(c, "blocks/"+strconv.Itoa(n), "/blocks/"+strconv.Itoa(n))
	}
}

func (s *server) article(c echo.Context, slug, path string) error {
	page, ok := s.book.Page(slug)
	if !ok {
		return &httpError{Status: http.StatusNotFound, Msg: "no such page"}
	}
	q := c.QueryParams()
	ctx := c.Request().Context()
	site := s.site(path)

	var runs []pages.Run
	seen := map[string]bool{}
	for _, part := range page.Parts {
		if part.Marker != "experiment" || seen[part.Arg] {
			continue
		}
		seen[part.Arg] = true
		e, _ := experiments.Lookup(part.Arg)
		prefix := ""
		if len(runs) > 0 {
			prefix = e.Name + "."
		}
		var first *experiments.Experiment
		if len(runs) > 0 {
			first = runs[0].Experiment
		}
		runs = append(runs, s.runFromQuery(c, e, prefix, first, q))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	status := http.StatusOK
	views := map[string]pages.ExperimentView{}
	for _, r := range runs {
		v := pages.NewExperimentView(site, path, r, runs)
		v.Measures = measuresJSON(r)
		views[r.Experiment.Name] = v
		if len(r.Errors) > 0 {
			status = http.StatusUnprocessableEntity
		} else if r.Busy != "" && status == http.StatusOK {
			status = http.StatusServiceUnavailable
		}
	}
	if status == http.StatusServiceUnavailable {
		c.Response().Header().Set("Retry-After", "5")
	}

	// An htmx rerun asks for one experiment's block only.
	if c.Request().Header.Get("HX-Request") == "true" {
		target := c.Request().Header.Get("HX-Target")
		if name, ok := strings.CutPrefix(target, "exp-"); ok {
			if v, ok := views[name]; ok {
				return render(c, status, pages.Experiment(v))
			}
		}
	}

	view := pages.ArticleView{Site: site, Page: onceEach(page), Path: path, Runs: views, Code: s.sources}
	prev, next := neighbours(site, path)
	view.Prev, view.Next = prev, next
	for _, part := range page.Parts {
		switch part.Marker {
		case "timeline":
			view.Steps = s.timeline(site, path, q)
			if c.Request().Header.Get("HX-Request") == "true" && c.Request().Header.Get("HX-Target") == "timeline" {
				return render(c, status, pages.Timeline(view.Steps))
			}
		case "predictions":
			view.Quiz = s.quiz(c, site)
		}
	}
	return render(c, status, pages.Layout(site, page.Title, pages.Article(view)))
}

// sharedFields are the stream's parameters: typed into a page's first form, they also apply to a
// later experiment on the page, so that "the same 20,000 jobs" stays true down the page.
var sharedFields = map[string]bool{"jobs": true, "crash_rate": true, "seed": true, "delay_seed": true}

// runFromQuery reads one experiment's parameters from the page query (under its prefix) and runs
// it. Unknown keys are ignored on pages: a page URL may carry another experiment's values. A later
// experiment (first != nil) takes a shared stream parameter from the first form when its own form
// did not set it and the two fields are the same spec (same range, same meaning).
func (s *server) runFromQuery(c echo.Context, e *experiments.Experiment, prefix string, first *experiments.Experiment, q url.Values) pages.Run {
	r := pages.Run{Experiment: e, Prefix: prefix, Raw: map[string]string{}}
	sub := map[string][]string{}
	for _, f := range e.Fields {
		if vals, ok := q[prefix+f.Name]; ok {
			sub[f.Name] = vals
			r.Raw[f.Name] = vals[0]
			continue
		}
		if first == nil || prefix == "" || !sharedFields[f.Name] {
			continue
		}
		if ff, ok := first.Field(f.Name); ok && ff == f {
			if vals, ok := q[f.Name]; ok {
				sub[f.Name] = vals
				r.Raw[f.Name] = vals[0]
				if r.Inherited == nil {
					r.Inherited = map[string]bool{}
				}
				r.Inherited[f.Name] = true
			}
		}
	}
	p, err := e.Parse(sub)
	if err != nil {
		var fe experiments.FieldErrors
		if errors.As(err, &fe) {
			s.metrics.rejected.WithLabelValues("invalid").Inc()
			r.Errors = fe
			return r
		}
		r.Busy = "the parameters could not be read"
		return r
	}
	r.Params = p
	res, err := s.runner.run(c.Request().Context(), e, p)
	if err != nil {
		var he *httpError
		if errors.As(err, &he) {
			r.Busy = he.Msg
		} else {
			r.Busy = "the run failed; try again"
			s.log.Error("experiment run", "experiment", e.Name, "err", err)
		}
		return r
	}
	r.Result = res
	return r
}

// neighbours returns the previous and next pages in reading order.
func neighbours(site pages.Site, path string) (*pages.Link, *pages.Link) {
	all := bookPages()
	for i, p := range all {
		if p.path != path {
			continue
		}
		var prev, next *pages.Link
		if i > 0 {
			prev = &pages.Link{Title: all[i-1].nav, URL: site.URL(all[i-1].path)}
		}
		if i+1 < len(all) {
			next = &pages.Link{Title: all[i+1].nav, URL: site.URL(all[i+1].path)}
		}
		return prev, next
	}
	return nil, nil
}

// timeline builds the crash-window steps from content/timeline.md; ?step=N picks the current one.
func (s *server) timeline(site pages.Site, path string, q url.Values) pages.TimelineView {
	page, _ := s.book.Page("timeline")
	var v pages.TimelineView
	if page == nil {
		return v
	}
	n := len(page.Sections)
	cur, err := strconv.Atoi(q.Get("step"))
	if err != nil || cur < 1 || cur > n {
		cur = 1
	}
	v.Current = cur
	for i, sec := range page.Sections {
		track := "crash"
		if sec.Attrs["track"] == "fix" {
			track = "fix"
		}
		link := url.Values{}
		for k, vals := range q {
			if k != "step" {
				link[k] = vals
			}
		}
		link.Set("step", strconv.Itoa(i+1))
		v.Steps = append(v.Steps, pages.Step{
			N: i + 1, ID: sec.ID, Title: sec.Title, HTML: sec.HTML, Track: track,
			URL: site.URL(path) + "?" + link.Encode() + "#timeline", Active: i+1 == cur, Past: i+1 <= cur,
		})
	}
	return v
}

// quiz builds the five prediction questions with the measured values at the document's defaults.
func (s *server) quiz(c echo.Context, site pages.Site) []pages.Question {
	page, _ := s.book.Page("predictions")
	if page == nil {
		return nil
	}
	measured := s.defaultMeasures(c)
	var qs []pages.Question
	for i, sec := range page.Sections {
		if i >= len(pages.QuestionSpecs) {
			break
		}
		spec := pages.QuestionSpecs[i]
		qs = append(qs, pages.Question{
			N: i + 1, ID: spec.ID, Title: sec.Title, HTML: sec.HTML, Unit: spec.Unit,
			AnswerAt: site.URL(spec.Page) + "#exp-" + spec.Experiment, Measured: measured[spec.ID],
		})
	}
	return qs
}

func (s *server) defaultMeasures(c echo.Context) map[string]string {
	out := map[string]string{}
	for _, spec := range pages.QuestionSpecs {
		e, ok := experiments.Lookup(spec.Experiment)
		if !ok {
			continue
		}
		res, err := s.runner.run(c.Request().Context(), e, e.Defaults())
		if err != nil {
			continue
		}
		if v, ok := pages.Measures(e.Name, res)[spec.ID]; ok {
			out[spec.ID] = strconv.FormatInt(v, 10)
		}
	}
	return out
}

func measuresJSON(r pages.Run) string {
	if r.Result == nil {
		return ""
	}
	m := pages.Measures(r.Experiment.Name, r.Result)
	if len(m) == 0 {
		return ""
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// rateLimit limits experiment runs per client. Plain page views at the document's values come
// from the cache and are not limited.
func (s *server) rateLimit() echo.MiddlewareFunc {
	store := middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
		Rate: rate.Limit(s.cfg.RatePerSec), Burst: s.cfg.RateBurst,
	})
	return middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Skipper: func(c echo.Context) bool { return len(c.QueryParams()) == 0 },
		Store:   store,
		IdentifierExtractor: func(c echo.Context) (string, error) {
			return c.RealIP(), nil
		},
		ErrorHandler: func(c echo.Context, err error) error {
			return &httpError{Status: http.StatusForbidden, Msg: "could not tell who is asking", Err: err}
		},
		DenyHandler: func(c echo.Context, id string, err error) error {
			s.metrics.rejected.WithLabelValues("rate_limited").Inc()
			c.Response().Header().Set("Retry-After", "2")
			return &httpError{Status: http.StatusTooManyRequests, Msg: "too many runs from your address in a short time; wait a moment and run again"}
		},
	})
}

// onceEach drops repeated experiment markers: an element id must be unique on a page, and a second
// copy of the same form would only confuse.
func onceEach(page *content.Page) *content.Page {
	seen := map[string]bool{}
	out := *page
	out.Parts = nil
	for _, part := range page.Parts {
		if part.Marker == "experiment" {
			if seen[part.Arg] {
				continue
			}
			seen[part.Arg] = true
		}
		out.Parts = append(out.Parts, part)
	}
	return &out
}
