package site

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
)

// handleArticle handles "GET <path>" for every page of content.Contents(): the page's prose with
// its experiments run on the query's parameters. An htmx request for one experiment's block, or
// for a step of the timeline, gets that fragment alone and costs only its own work.
func (s *server) handleArticle(entry content.Entry) echo.HandlerFunc {
	return func(c echo.Context) error {
		page, ok := s.book.Page(entry.Slug)
		if !ok {
			return &web.Error{Status: http.StatusNotFound, Msg: "no such page"}
		}
		req := c.Request()
		ctx := req.Context()
		q := c.QueryParams()
		hx := web.HTMXOf(req)
		site := s.site(entry.Path)
		if !hx.Active {
			if bar := s.roomBar(c, site); bar != nil {
				site.Bar, site.InRoom = pages.RoomBar(*bar), true
			}
		}

		if hx.Target == pages.TimelineID && hasMarker(page, content.MarkerTimeline) {
			return web.Render(c, http.StatusOK, pages.Timeline(s.timeline(site, entry.Path, pageParams(page, q))))
		}
		only := ""
		if name, ok := targetExperiment(hx); ok && slices.Contains(experimentsOn(page), name) {
			only = name
		}
		problems, _ := c.Get(queryProblemsKey).(experiments.FieldErrors)
		runs, refused := s.pageRuns(ctx, page, q, only, problems)
		if err := ctx.Err(); err != nil {
			return err
		}
		status := http.StatusOK
		var retry time.Duration
		views := map[string]pages.ExperimentView{}
		var also []templ.Component // runs drawn again beside an htmx fragment, swapped out of band
		for _, r := range runs {
			own := only == "" || r.Experiment.Name == only
			if !own && (r.Result == nil && r.Errors == nil && r.Busy == "") {
				continue // read for its values, not run
			}
			v, err := pages.NewExperimentView(site, entry.Path, r, runs)
			if err != nil {
				return err
			}
			s.addShrunk(ctx, site, entry.Path, r, &v) // the verifier's smallest failing cases (verify.go)
			if !own {
				v.OutOfBand = true
				also = append(also, pages.Experiment(v))
				continue
			}
			s.spreadProgress(ctx, &v, r) // spread.go: starts or shows a spread still running
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
			return web.Render(c, status, templ.Join(append([]templ.Component{pages.Experiment(views[only])}, also...)...))
		}

		view := pages.ArticleView{Site: site, Page: onceEach(page), Runs: views, Code: s.sources}
		view.Prev, view.Next = neighbours(site, entry.Path)
		if hasMarker(page, content.MarkerTimeline) {
			view.Steps = s.timeline(site, entry.Path, pageParams(page, q))
		}
		if hasMarker(page, content.MarkerPredictions) {
			view.Quiz = s.quiz(ctx, site)
		}
		if hasMarker(page, content.MarkerLab) {
			view.Lab = s.lab.OnPage(c, site)
		}
		view.Edit = s.workbench.EditLinks(site, entry, view.Page) // "Edit and check" under the design
		if hasMarker(page, content.MarkerWorkbench) {
			var wb *pages.WorkbenchView
			wb, status = s.workbench.OnPage(ctx, site, q)
			if status == 499 {
				return context.Canceled
			}
			view.Site = s.workbench.WithEditor(site)
			view.Workbench = wb
			return web.Render(c, status, pages.Layout(view.Site, page.Title, pages.Article(view)))
		}
		return web.Render(c, status, pages.Layout(site, page.Title, pages.Article(view)))
	}
}

// experimentsOn lists the experiments a page shows, each once, in the order they appear.
func experimentsOn(page *content.Page) []string {
	var names []string
	for _, part := range page.Parts {
		if part.Marker == content.MarkerExperiment && !slices.Contains(names, part.Name()) {
			names = append(names, part.Name())
		}
	}
	return names
}

// hasMarker reports whether the page holds the named interactive part.
func hasMarker(page *content.Page, marker string) bool {
	for _, part := range page.Parts {
		if part.Marker == marker {
			return true
		}
	}
	return false
}

// pageRuns reads every experiment's parameters from the page query and runs them. When only names
// one experiment, the others are read (their values ride along in its form) but not run, except
// those that take the stream from the first form when only is the first: they are drawn again.
// refused holds, by experiment, why a run was not run now.
func (s *server) pageRuns(ctx context.Context, page *content.Page, q url.Values, only string, problems experiments.FieldErrors) (runs []pages.Run, refused map[string]*web.Error) {
	refused = map[string]*web.Error{}
	for _, name := range experimentsOn(page) {
		e, _ := experiments.Lookup(name) // checkBook made sure it exists
		prefix := ""
		var first *experiments.Experiment
		if len(runs) > 0 {
			prefix, first = e.Name+".", runs[0].Experiment
		}
		r, sub := readRun(e, prefix, first, q)
		r.Scope = pages.ScopeOn(page, name)
		if only == "" || only == e.Name || (first != nil && only == first.Name && dependsOnFirst(r)) {
			if he := s.runOne(ctx, &r, sub, problems); he != nil {
				refused[e.Name] = he
			}
		}
		runs = append(runs, r)
	}
	return runs, refused
}

// readRun reads one experiment's parameters from the page query, under its prefix. Unknown keys
// are ignored on pages: a page URL may carry another experiment's values.
//
// The stream belongs to the page: a shared stream parameter (Field.Shared) that the page's first
// experiment also has, with the same spec, is set in the first form only, and a later experiment
// (first != nil) always takes it from there (unprefixed), never from a value of its own. So "the
// same 20,000 jobs" stays true down the page, and the URL holds each value once.
func readRun(e *experiments.Experiment, prefix string, first *experiments.Experiment, q url.Values) (pages.Run, map[string][]string) {
	r := pages.Run{Experiment: e, Prefix: prefix, Raw: map[string]string{}}
	sub := map[string][]string{}
	for _, f := range e.Fields {
		name := prefix + f.Name
		if first != nil && f.Shared {
			if ff, ok := first.Field(f.Name); ok && ff == f {
				if r.Inherited == nil {
					r.Inherited = map[string]bool{}
				}
				r.Inherited[f.Name] = true
				name = f.Name
			}
		}
		if vals, ok := q[name]; ok {
			sub[f.Name] = vals
			r.Raw[f.Name] = vals[0]
		}
	}
	r.SpreadRaw = q.Get(prefix + experiments.SpreadField) // each form has its own; see spread.go
	return r, sub
}

// dependsOnFirst reports whether a later run takes any of its values from the page's first form,
// and so must be drawn again when that form is rerun.
func dependsOnFirst(r pages.Run) bool { return r.Prefix != "" && len(r.Inherited) > 0 }

// runOne parses the values read for r and runs the experiment, filling in its params and result,
// or its field errors, or why it could not run now. A run not run now (rate limited, every slot
// busy, too big for the server) is marked Busy with what to do, and its refusal is returned: the
// block then shows no result, old or new, only that it was not run and when to press Run again.
func (s *server) runOne(ctx context.Context, r *pages.Run, sub map[string][]string, problems experiments.FieldErrors) *web.Error {
	e := r.Experiment
	p, err := e.Parse(sub)
	if err != nil {
		var fe experiments.FieldErrors
		if errors.As(err, &fe) {
			s.metrics.Rejected.WithLabelValues("invalid").Inc()
			explainMalformed(fe, problems, func(f string) string {
				if r.Inherited[f] {
					return f
				}
				return r.Prefix + f
			})
			r.Errors = fe
			return nil
		}
		r.Busy = "The parameters could not be read."
		return &web.Error{Status: http.StatusBadRequest, Msg: r.Busy, Err: err}
	}
	r.Params = p
	if fe := s.pageSpread(r); fe != nil { // spread.go: a refused spread is a refused field
		r.Errors = experiments.FieldErrors{*fe}
		return nil
	}
	err = s.admitRun(ctx, e, p)
	var res any
	if err == nil {
		res, err = s.runner.Run(ctx, e, p)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil // the reader left; nobody will see the block
		}
		var he *web.Error
		if !web.As(err, &he) {
			s.log.Error("experiment run", "experiment", e.Name, "err", err)
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

// neighbours returns the previous and next pages in reading order.
func neighbours(site pages.Site, path string) (*pages.Link, *pages.Link) {
	all := content.Contents()
	for i, p := range all {
		if p.Path != path {
			continue
		}
		var prev, next *pages.Link
		if i > 0 {
			prev = &pages.Link{Title: all[i-1].Nav, URL: site.URL(all[i-1].Path)}
		}
		if i+1 < len(all) {
			next = &pages.Link{Title: all[i+1].Nav, URL: site.URL(all[i+1].Path)}
		}
		return prev, next
	}
	return nil, nil
}

// maxLinkValue is the longest value a link built from a page's query carries: a longer one is
// refused by every field anyway (experiments' maxRawLen), so copying it would only inflate links.
const maxLinkValue = pages.MaxShownValue

// pageParams keeps of q what the page itself reads (its forms' fields, under their prefixes, and
// the timeline's step), so that a link built from it carries nothing else appended to the URL.
func pageParams(page *content.Page, q url.Values) url.Values {
	out := url.Values{}
	keep := func(k string) {
		for _, v := range q[k] {
			if len(v) <= maxLinkValue {
				out[k] = append(out[k], v)
			}
		}
	}
	keep("step")
	for i, name := range experimentsOn(page) {
		e, _ := experiments.Lookup(name)
		for _, f := range e.Fields {
			if i == 0 || f.Shared {
				keep(f.Name)
			}
			if i > 0 {
				keep(e.Name + "." + f.Name)
			}
		}
	}
	return out
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
			Offset: sec.Attrs["offset"], Rows: sec.Attrs["rows"], Keys: sec.Attrs["keys"],
			URL: site.URL(path) + "?" + link.Encode() + "#timeline", Active: i+1 == cur, Past: i+1 <= cur,
		})
	}
	return v
}

// quiz builds the five prediction questions with the measured values at the document's defaults.
func (s *server) quiz(ctx context.Context, site pages.Site) []pages.Question {
	page, _ := s.book.Page("predictions")
	if page == nil {
		return nil
	}
	measured := s.defaultMeasures(ctx)
	var qs []pages.Question
	for i, sec := range page.Sections {
		if i >= len(pages.QuestionSpecs) {
			break
		}
		spec := pages.QuestionSpecs[i]
		answering := ""
		if e, ok := experiments.Answering(spec.ID); ok {
			answering = e.Name
		}
		qs = append(qs, pages.Question{
			N: i + 1, ID: spec.ID, Title: sec.Title, HTML: sec.HTML, Unit: spec.Unit,
			AnswerAt: site.URL(spec.Page) + "#" + pages.DOMID(answering), Measured: measured[spec.ID],
		})
	}
	return qs
}

// defaultMeasures runs the experiments that answer the questions at their defaults (cached): the
// document's values are the parameters each question's wording states, so a question is never
// compared with a reader's run at other values.
func (s *server) defaultMeasures(ctx context.Context) map[string]string {
	out := map[string]string{}
	for _, spec := range pages.QuestionSpecs {
		e, ok := experiments.Answering(spec.ID)
		if !ok {
			continue
		}
		p := e.Defaults()
		res, err := s.runner.Run(ctx, e, p)
		if err != nil {
			continue
		}
		if v, ok := e.Answer(spec.ID, p, res); ok {
			out[spec.ID] = strconv.FormatInt(v, 10)
		}
	}
	return out
}

// onceEach drops repeated experiment markers: an element id must be unique on a page, and a second
// copy of the same form would only confuse.
func onceEach(page *content.Page) *content.Page {
	seen := map[string]bool{}
	out := *page
	out.Parts = nil
	for _, part := range page.Parts {
		if part.Marker == content.MarkerExperiment {
			if seen[part.Name()] {
				continue
			}
			seen[part.Name()] = true
		}
		out.Parts = append(out.Parts, part)
	}
	return &out
}

// targetExperiment names the experiment whose block an htmx request will swap, if it targets one.
func targetExperiment(h web.HTMX) (string, bool) {
	if !h.Active {
		return "", false
	}
	return strings.CutPrefix(h.Target, pages.DOMIDPrefix)
}
