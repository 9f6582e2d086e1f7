package notebook

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
)

// Article handles "GET <path>" for every page of content.Contents(): the page's prose with
// its experiments run on the query's parameters. An htmx request for one experiment's block, or
// for a step of the timeline, gets that fragment alone and costs only its own work.
func (h *Handlers) Article(entry content.Entry) echo.HandlerFunc {
	return func(c echo.Context) error {
		page, ok := h.book.Page(entry.Slug)
		if !ok {
			return &web.Error{Status: http.StatusNotFound, Msg: "no such page"}
		}
		req := c.Request()
		ctx := req.Context()
		q := c.QueryParams()
		hx := web.HTMXOf(req)
		site := h.site(entry.Path)
		// "Hide results until I guess" is drawn from the reader's cookies (pages/guess.go), so the
		// same URL answers differently to two readers: a cache must not hand one the other's.
		site.Guessing = pages.ReadGuessing(web.Cookie(c, pages.GuessOptInCookie), web.Cookie(c, pages.GuessesCookie))
		c.Response().Header().Add("Vary", "Cookie")
		var bar *pages.RoomView
		if !hx.Active {
			if bar = h.parts.RoomBar(c, site); bar != nil {
				site.Bar, site.InRoom = pages.RoomBar(*bar), true
			}
		}
		asks := h.sealer(c, bar) // sealed.go: the experiments the reader's study room asks about
		seal := sealed(asks)

		if hx.Target == pages.TimelineID && pages.HasMarker(page, content.MarkerTimeline) {
			return web.Render(c, http.StatusOK, pages.Timeline(h.timeline(site, entry.Path, pages.PageParams(page, q))))
		}
		only := ""
		if name, ok := targetExperiment(hx); ok && slices.Contains(pages.ExperimentsOn(page), name) {
			only = name
		}
		problems, _ := c.Get(queryProblemsKey).(experiments.FieldErrors)
		runs, refused := h.pageRuns(ctx, page, q, only, problems)
		if err := ctx.Err(); err != nil {
			return err
		}
		status := http.StatusOK
		var retry time.Duration
		views := map[string]pages.ExperimentView{}
		var also []pages.ExperimentView // runs drawn again beside an htmx fragment, swapped out of band
		for _, r := range runs {
			own := only == "" || r.Experiment.Name == only
			if !own && (r.Result == nil && r.Errors == nil && r.Busy == "") {
				continue // read for its values, not run
			}
			r.Shrunk = h.shrunk(ctx, site, entry.Path, r) // the verifier's smallest failing cases (verify.go)
			if own {
				r.Progress = h.spreadProgress(ctx, site, entry.Path, r, runs) // spread_api.go: starts or shows a spread still running
			}
			v, err := pages.NewExperimentView(site, entry.Path, r, runs)
			if err != nil {
				return err
			}
			seal(&v, r)
			if !own {
				also = append(also, v)
				continue
			}
			views[r.Experiment.Name] = v
			if len(r.Errors) > 0 {
				status = http.StatusUnprocessableEntity
			} else if he := refused[r.Experiment.Name]; he != nil {
				// Not run now (rate limited, busy, too big): the page is still the page, with
				// this block marked not run, and the status says why to a script or a test.
				if status == http.StatusOK {
					status = he.Status
				}
				retry = max(retry, he.RetryAfter)
			}
		}
		if retry > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(web.RetrySeconds(retry)))
		}
		if only != "" {
			return web.Render(c, status, pages.Fragment(views[only], also))
		}

		view := pages.ArticleView{Site: site, Page: pages.OnceEach(page), Runs: views, Code: h.sources}
		view.Prev, view.Next = pages.Neighbours(site, entry.Path)
		if pages.HasMarker(page, content.MarkerTimeline) {
			view.Steps = h.timeline(site, entry.Path, pages.PageParams(page, q))
		}
		if pages.HasMarker(page, content.MarkerPredictions) {
			view.Quiz = h.quiz(ctx, site)
			sealedQuiz(view.Quiz, asks)
		}
		if pages.HasMarker(page, content.MarkerLab) {
			view.Lab = h.parts.Lab(c, site)
		}
		view.Edit = h.parts.EditLinks(site, entry, view.Page) // workbench.go: "Edit and check" under the design
		if pages.HasMarker(page, content.MarkerWorkbench) {
			var wb *pages.WorkbenchView
			wb, status = h.parts.Workbench(c, site) // workbench.go
			if status == 499 {
				return context.Canceled
			}
			view.Site = h.parts.Editor(site)
			view.Workbench = wb
			return web.Render(c, status, pages.Layout(view.Site, page.Title, pages.Article(view)))
		}
		return web.Render(c, status, pages.Layout(site, page.Title, pages.Article(view)))
	}
}

// pageRuns reads every experiment's parameters from the page query and runs them. When only names
// one experiment, the others are read (their values ride along in its form) but not run, except
// those that take the stream from the first form when only is the first: they are drawn again.
// refused holds, by experiment, why a run was not run now.
func (h *Handlers) pageRuns(ctx context.Context, page *content.Page, q url.Values, only string, problems experiments.FieldErrors) (runs []pages.Run, refused map[string]*web.Error) {
	refused = map[string]*web.Error{}
	for _, name := range pages.ExperimentsOn(page) {
		e, _ := experiments.Lookup(name) // checkBook made sure it exists
		prefix := ""
		var first *experiments.Experiment
		if len(runs) > 0 {
			prefix, first = e.Name+".", runs[0].Experiment
		}
		r, sub := pages.ReadRun(e, prefix, first, q)
		r.Scope = pages.ScopeOn(page, name)
		if only == "" || only == e.Name || (first != nil && only == first.Name && pages.DependsOnFirst(r)) {
			if he := h.runOne(ctx, &r, sub, problems); he != nil {
				refused[e.Name] = he
			}
		}
		runs = append(runs, r)
	}
	return runs, refused
}

// runOne parses the values read for r and runs the experiment, filling in its params and result,
// or its field errors, or why it could not run now. A run not run now (rate limited, every slot
// busy, too big for the server) is marked Busy with what to do, and its refusal is returned: the
// block then shows no result, old or new, only that it was not run and when to press Run again.
func (h *Handlers) runOne(ctx context.Context, r *pages.Run, sub map[string][]string, problems experiments.FieldErrors) *web.Error {
	e := r.Experiment
	p, err := e.Parse(sub)
	var fe experiments.FieldErrors
	if err != nil && !errors.As(err, &fe) {
		r.Busy = "The parameters could not be read."
		return &web.Error{Status: http.StatusBadRequest, Msg: r.Busy, Err: err}
	}
	// A key of the address the page does not read is refused with the values it did read, so the
	// block never shows a run the reader believes took a value it ignored.
	if len(fe) > 0 || len(r.Stray) > 0 {
		h.rejected.WithLabelValues("invalid").Inc()
		experiments.ExplainMalformed(fe, problems, func(f string) string {
			if r.Inherited[f] {
				return f
			}
			return r.Prefix + f
		})
		r.Errors = append(fe, r.Stray...)
		return nil
	}
	r.Params = p
	if fe := h.pageSpread(r); fe != nil { // spread.go: a refused spread is a refused field
		r.Errors = experiments.FieldErrors{*fe}
		return nil
	}
	err = h.admitRun(ctx, e, p)
	var res any
	if err == nil {
		res, err = h.runner.Run(ctx, e, p)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil // the reader left; nobody will see the block
		}
		var he *web.Error
		if !web.As(err, &he) {
			h.log.Error("experiment run", "experiment", e.Name, "err", err)
			he = &web.Error{Status: http.StatusInternalServerError, Msg: "The run failed.", RetryAfter: time.Second, Err: err}
		}
		r.Busy = he.Msg
		if he.RetryAfter > 0 {
			r.Busy += " " + waitText(he.RetryAfter)
		}
		return he
	}
	r.Result = res
	return nil
}

// timeline builds the crash-window steps from content/timeline.md; ?step=N picks the current one.
func (h *Handlers) timeline(site pages.Site, path string, q url.Values) pages.TimelineView {
	page, _ := h.book.Page("timeline")
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
			Offset: sec.Attrs["offset"], Rows: sec.Attrs["rows"], Keys: sec.Attrs["keys"],
			URL: site.URL(path) + "?" + link.Encode() + "#timeline", Active: i+1 == cur, Past: i+1 <= cur,
		})
	}
	return v
}

// quiz builds the five prediction questions with the measured values at the document's defaults.
func (h *Handlers) quiz(ctx context.Context, site pages.Site) []pages.Question {
	page, _ := h.book.Page("predictions")
	if page == nil {
		return nil
	}
	questions := experiments.Questions()
	var qs []pages.Question
	for i, sec := range page.Sections {
		if i >= len(questions) {
			break
		}
		asked := questions[i]
		e, _ := experiments.Answering(asked.ID) // the questions are the definitions' own
		q := pages.Question{N: i + 1, ID: asked.ID, Title: sec.Title, HTML: sec.HTML, Unit: asked.Unit,
			AnswerAt: site.URL(asked.Page) + "#" + pages.DOMID(e.Name)}
		q.Measured, q.IsMeasured = h.defaultMeasure(ctx, e, asked.ID)
		qs = append(qs, q)
	}
	return qs
}

// defaultMeasure runs e, the experiment that answers question id, at its defaults (cached) and
// measures the question on it: the document's values are the parameters each question's wording
// states, so a question is never compared with a reader's run at other values. false when the run
// failed.
func (h *Handlers) defaultMeasure(ctx context.Context, e *experiments.Experiment, id string) (int64, bool) {
	p := e.Defaults()
	res, err := h.runner.Run(ctx, e, p)
	if err != nil {
		return 0, false
	}
	return e.Answer(id, p, res)
}

// targetExperiment names the experiment whose block an htmx request will swap, if it targets one.
func targetExperiment(h web.HTMX) (string, bool) {
	if !h.Active {
		return "", false
	}
	return strings.CutPrefix(h.Target, pages.DOMIDPrefix)
}
