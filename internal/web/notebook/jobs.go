package notebook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
)

// jobsQuery is a "which jobs?" request read from its URL: the experiment, its parameters, and the
// outcome and point asked about.
type jobsQuery struct {
	e       *experiments.Experiment
	params  any
	outcome string
	point   string
	format  string
}

// readJobsQuery parses the experiment's parameters and the keys a jobs request adds to them
// (outcome, point, and format for the list). Every refusal is a FieldErrors naming its key.
func readJobsQuery(e *experiments.Experiment, q url.Values, withFormat bool) (jobsQuery, error) {
	jq := jobsQuery{e: e, format: "json"}
	var errs experiments.FieldErrors
	one := func(key string) string {
		v, ok := q[key]
		if !ok {
			return ""
		}
		if len(v) != 1 {
			errs = append(errs, experiments.FieldError{Field: key, Message: "must be given once"})
			return ""
		}
		return v[0]
	}
	jq.outcome, jq.point = one("outcome"), one("point")
	allowed := []string{"outcome", "point"}
	if withFormat {
		allowed = append(allowed, "format")
		if f := one("format"); f != "" {
			if f != "json" && f != "csv" {
				errs = append(errs, experiments.FieldError{Field: "format", Message: "must be json or csv"})
			}
			jq.format = f
		}
	}
	p, err := e.Parse(q, allowed...)
	if err != nil {
		var fe experiments.FieldErrors
		if !errors.As(err, &fe) {
			return jq, err
		}
		errs = append(fe, errs...)
	}
	if len(errs) > 0 {
		return jq, errs
	}
	jq.params = p
	return jq, nil
}

// lookupTraceable finds the named experiment for a jobs route: 404 when there is none.
func lookupTraceable(name string) (*experiments.Experiment, error) {
	e, ok := experiments.Lookup(name)
	if !ok {
		return nil, &web.Error{Status: http.StatusNotFound, Msg: fmt.Sprintf("no experiment %q; GET /api/experiments lists them", experiments.Clip(name, 40))}
	}
	return e, nil
}

// replay runs a jobs list or a trace under the limits every run shares: the client's allowance,
// then a slot of the runner. A replay costs about what the run costs (it draws the same stream and
// walks one point of it); the ids it lists add eight bytes a job at most to the run's memory.
func (h *Handlers) replay(ctx context.Context, jq jobsQuery, work func(context.Context) error) error {
	if err := h.admitRun(ctx, jq.e, jq.params); err != nil {
		return err
	}
	need := jq.e.Memory(jq.params) + 8*jq.e.IDCount(jq.params)
	return h.runner.Within(ctx, jq.e.Name, jq.e.Cost(jq.params), need, work)
}

// jobsList lists the jobs of a request, under the run limits.
func (h *Handlers) jobsList(ctx context.Context, jq jobsQuery) (experiments.JobList, error) {
	var list experiments.JobList
	err := h.replay(ctx, jq, func(ctx context.Context) error {
		var err error
		list, err = jq.e.Jobs(ctx, jq.params, jq.outcome, jq.point)
		return err
	})
	return list, err
}

// jobTrace traces one job of a request, under the run limits.
func (h *Handlers) jobTrace(ctx context.Context, jq jobsQuery, id string) (experiments.Trace, error) {
	var tr experiments.Trace
	err := h.replay(ctx, jq, func(ctx context.Context) error {
		var err error
		tr, err = jq.e.Trace(ctx, jq.params, jq.point, id, jq.outcome)
		return err
	})
	return tr, err
}

// apiRefusal answers a FieldErrors as the API's 400; any other error goes on to the error handler.
func (h *Handlers) apiRefusal(c echo.Context, err error) error {
	var fe experiments.FieldErrors
	if errors.As(err, &fe) {
		h.rejected.WithLabelValues("invalid").Inc()
		return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: experiments.CapErrors(fe)})
	}
	return err
}

// JobsAPI handles "GET /api/experiments/:name/jobs": every job with the outcome at the
// point, as {"outcome","point","total","ids"} or, with format=csv, one id a line under the run's
// parameters as comment lines.
func (h *Handlers) JobsAPI() echo.HandlerFunc {
	return func(c echo.Context) error {
		e, ok := experiments.Lookup(c.Param("name"))
		if !ok {
			return noExperiment(c)
		}
		if sealed, err := h.sealedAPI(c, e); sealed {
			return err
		}
		jq, err := readJobsQuery(e, c.QueryParams(), true)
		if err != nil {
			return h.apiRefusal(c, err)
		}
		list, err := h.jobsList(c.Request().Context(), jq)
		if err != nil {
			return h.apiRefusal(c, err)
		}
		if jq.format == "csv" {
			c.Response().Header().Set("Content-Disposition", `inline; filename="`+e.Name+`-`+list.Outcome+`.csv"`)
			return c.Blob(http.StatusOK, "text/csv; charset=utf-8", []byte(jobsCSV(e, jq.params, list)))
		}
		return c.JSON(http.StatusOK, list)
	}
}

// jobsCSV writes a list as present.CSVOf writes a run: the parameters, the outcome and the point, and the
// present.Provenance as comment lines, then one id a row under an "id" header.
func jobsCSV(e *experiments.Experiment, params any, list experiments.JobList) string {
	var b strings.Builder
	present.CSVComments(&b, e, params, present.ProvenanceOf(e, params), "outcome", list.Outcome, "point", list.Point)
	b.WriteString("id\r\n")
	for _, id := range list.IDs {
		b.WriteString(strconv.FormatInt(id, 10) + "\r\n")
	}
	return b.String()
}

// JobAPI handles "GET /api/experiments/:name/jobs/:id": the job's events at the point, as
// {"id","outcome","point","step_unit","events":[{"step","kind","detail"}]}; outcome, optional,
// picks the policy or design whose story is told where a point has several (lease, crash-sweep).
func (h *Handlers) JobAPI() echo.HandlerFunc {
	return func(c echo.Context) error {
		e, ok := experiments.Lookup(c.Param("name"))
		if !ok {
			return noExperiment(c)
		}
		if sealed, err := h.sealedAPI(c, e); sealed {
			return err
		}
		jq, err := readJobsQuery(e, c.QueryParams(), false)
		if err != nil {
			return h.apiRefusal(c, err)
		}
		tr, err := h.jobTrace(c.Request().Context(), jq, c.Param("id"))
		if err != nil {
			return h.apiRefusal(c, err)
		}
		return c.JSON(http.StatusOK, tr)
	}
}

// panelID is the shape of a block's jobs panel id; anything else in HX-Target is ignored rather
// than echoed into the page.
var panelID = regexp.MustCompile(`^[a-z0-9-]{1,80}-which-jobs$`)

// jobsTarget is the panel an htmx request loads into, or "" for a whole page.
func jobsTarget(c echo.Context) string {
	h := web.HTMXOf(c.Request())
	if h.Active && panelID.MatchString(h.Target) {
		return h.Target
	}
	return ""
}

// jobsURL builds the links of a list or a trace: the page's own path and the API's, each with
// the run's parameters and the given extra keys.
func (h *Handlers) jobsURL(path string, jq jobsQuery, extra ...string) string {
	q := url.Values{}
	for k, v := range jq.e.Format(jq.params) {
		q.Set(k, v)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] != "" {
			q.Set(extra[i], extra[i+1])
		}
	}
	return h.site("").URL(path) + "?" + q.Encode()
}

// pageRefusal turns bad input to a jobs page into a 400 that says which key was wrong.
func pageRefusal(err error) error {
	var fe experiments.FieldErrors
	if errors.As(err, &fe) {
		return &web.Error{Status: http.StatusBadRequest, Msg: fe.Error()}
	}
	return err
}

// JobsPage handles "GET /jobs/:name": the first pages.JobsShown jobs with the outcome at
// the point, each linking to its timeline. An htmx request gets the list alone, for the block's
// jobs panel; any other gets a whole page.
func (h *Handlers) JobsPage() echo.HandlerFunc {
	return func(c echo.Context) error {
		e, err := lookupTraceable(c.Param("name"))
		if err != nil {
			return err
		}
		if err := h.sealedPage(c, e); err != nil {
			return err
		}
		jq, err := readJobsQuery(e, c.QueryParams(), false)
		if err != nil {
			return pageRefusal(err)
		}
		list, err := h.jobsList(c.Request().Context(), jq)
		if err != nil {
			return pageRefusal(err)
		}
		v := pages.JobsView{Experiment: e.Name, Title: e.Title, Outcome: list.Outcome, Point: list.Point, At: list.At,
			Total: list.Total, Target: jobsTarget(c), Params: pages.ParamsText(e, jq.params),
			CSVURL:  h.jobsURL("/api/experiments/"+e.Name+"/jobs", jq, "outcome", list.Outcome, "point", list.Point, "format", "csv"),
			JSONURL: h.jobsURL("/api/experiments/"+e.Name+"/jobs", jq, "outcome", list.Outcome, "point", list.Point)}
		for _, id := range list.IDs[:min(len(list.IDs), pages.JobsShown)] {
			text := strconv.FormatInt(id, 10)
			v.IDs = append(v.IDs, pages.JobID{ID: text,
				URL: h.jobsURL("/jobs/"+e.Name+"/"+text, jq, "point", list.Point, "outcome", list.Outcome)})
		}
		if v.Target != "" {
			return web.Render(c, http.StatusOK, pages.JobsList(v))
		}
		v.Page = true
		v.Back = h.backOf(jq)
		site := h.site("")
		return web.Render(c, http.StatusOK, pages.Layout(site, "Which jobs? "+e.Title, pages.JobsPage(v)))
	}
}

// JobPage handles "GET /jobs/:name/:id": the job's timeline at the point, as a figure and
// a list of events in words; an htmx request gets the timeline alone, for the jobs panel.
func (h *Handlers) JobPage() echo.HandlerFunc {
	return func(c echo.Context) error {
		e, err := lookupTraceable(c.Param("name"))
		if err != nil {
			return err
		}
		if err := h.sealedPage(c, e); err != nil {
			return err
		}
		jq, err := readJobsQuery(e, c.QueryParams(), false)
		if err != nil {
			return pageRefusal(err)
		}
		tr, err := h.jobTrace(c.Request().Context(), jq, c.Param("id"))
		if err != nil {
			return pageRefusal(err)
		}
		v := pages.NewJobView(e, tr)
		v.Target, v.Params = jobsTarget(c), pages.ParamsText(e, jq.params)
		v.JSONURL = h.jobsURL("/api/experiments/"+e.Name+"/jobs/"+v.ID, jq, "point", tr.Point, "outcome", jq.outcome)
		// Back to the list the job came from, or to the list of its own outcome.
		back := jq.outcome
		if back == "" && slices.Contains(e.Outcomes(), tr.Outcome) {
			back = tr.Outcome
		}
		if back != "" {
			v.ListURL = h.jobsURL("/jobs/"+e.Name, jq, "outcome", back, "point", tr.Point)
		}
		if v.Target != "" {
			return web.Render(c, http.StatusOK, pages.JobTimeline(v))
		}
		v.Page = true
		v.Back = h.backOf(jq)
		return web.Render(c, http.StatusOK, pages.Layout(h.site(""), "Job "+v.ID+" · "+e.Title, pages.JobPage(v)))
	}
}

// backOf is what a jobs page that stands alone (no script, or a new tab) says at its foot: the
// way back to the notebook page that shows the experiment, on the same run, and the run's
// provenance.
func (h *Handlers) backOf(jq jobsQuery) pages.JobsBack {
	pv := present.ProvenanceOf(jq.e, jq.params)
	b := pages.JobsBack{Version: pv.Version, ParamsHash: pv.ParamsHash}
	b.Title, b.URL = h.notebookPageOf(jq.e, jq.params)
	return b
}

// notebookPageOf finds the first page of the contents that shows e and links to it with params in
// the query as that page reads them (see pageRuns and readRun): unprefixed for the page's first
// experiment, "name."-prefixed for a later one, except the stream fields it shares with the first,
// which belong to the first form. "" when no page shows e.
func (h *Handlers) notebookPageOf(e *experiments.Experiment, params any) (title, link string) {
	for _, entry := range content.Contents() {
		page, ok := h.book.Page(entry.Slug)
		if !ok {
			continue
		}
		names := pages.ExperimentsOn(page)
		if !slices.Contains(names, e.Name) {
			continue
		}
		var first *experiments.Experiment
		prefix := ""
		if names[0] != e.Name {
			first, _ = experiments.Lookup(names[0])
			prefix = e.Name + "."
		}
		values := e.Format(params)
		q := url.Values{}
		for _, f := range e.Fields {
			key := prefix + f.Name
			if first != nil && f.Shared {
				if ff, ok := first.Field(f.Name); ok && ff == f {
					key = f.Name
				}
			}
			q.Set(key, values[f.Name])
		}
		return page.Title, h.site("").URL(entry.Path) + "?" + q.Encode() + "#" + pages.DOMID(e.Name)
	}
	return "", ""
}
