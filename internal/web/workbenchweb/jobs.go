package workbenchweb

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/workbench"
)

// "Which jobs?" for every count of a check: the jobs behind a count at one crash point, read
// from the check (which the result cache keeps, so asking costs no second run), as a list in the
// page, as JSON, and every id as CSV, as the notebook's own which-jobs answers.

// parseWhich reads "point:outcome", the point as its number in the check's JSON.
func parseWhich(s string) (int, string, bool) {
	a, b, ok := strings.Cut(s, ":")
	k, err := strconv.Atoi(a)
	return k, b, ok && err == nil && b != ""
}

// jobsOf picks one count's jobs out of a check, or names what does not fit it: point must be one
// of the check's rows, outcome one of its counts.
func jobsOf(res workbench.Result, point int, outcome string) (workbench.Point, []int64, experiments.FieldErrors) {
	var fe experiments.FieldErrors
	var pt *workbench.Point
	var names []string
	for i := range res.Points {
		names = append(names, strconv.Itoa(res.Points[i].CrashPoint))
		if res.Points[i].CrashPoint == point {
			pt = &res.Points[i]
		}
	}
	if pt == nil {
		fe = append(fe, experiments.FieldError{Field: "point", Message: fmt.Sprintf("%d is not a crash point of this check; its points are %s", point, strings.Join(names, ", "))})
	}
	if outcomes := res.Outcomes(); !slices.Contains(outcomes, outcome) {
		fe = append(fe, experiments.FieldError{Field: "outcome", Message: fmt.Sprintf("%q is not a count of this check; it must be one of %s",
			experiments.Clip(outcome, 40), strings.Join(outcomes, ", "))})
	}
	if fe != nil {
		return workbench.Point{}, nil, fe
	}
	return *pt, pt.Jobs(outcome, res.Params.Jobs), nil
}

// jobsJSON is the API's answer for a count's jobs, in the shape of the notebook's which-jobs:
// the outcome, the point (its number, and the operation it follows), how many, and the ids.
func jobsJSON(pt workbench.Point, outcome string, ids []int64) map[string]any {
	return map[string]any{"outcome": outcome, "point": pt.CrashPoint, "label": pt.Label, "total": len(ids), "ids": ids}
}

// jobsCSV writes a count's jobs as every CSV of the notebook starts: the check's parameters, the
// outcome and the point, the version and the handler's hash as comment lines, then one id a row.
func jobsCSV(src string, res workbench.Result, pt workbench.Point, outcome string, ids []int64) []byte {
	var b strings.Builder
	b.WriteString("# check=workbench\r\n")
	values := res.Params.Format()
	for _, f := range workbench.Fields() {
		b.WriteString("# " + f.Name + "=" + values[f.Name] + "\r\n")
	}
	b.WriteString("# outcome=" + outcome + "\r\n# point=" + strconv.Itoa(pt.CrashPoint) + "\r\n")
	b.WriteString("# version=" + present.Version() + "\r\n# source_hash=" + workbench.SourceHash(src) + "\r\n")
	b.WriteString("id\r\n")
	for _, id := range ids {
		b.WriteString(strconv.FormatInt(id, 10) + "\r\n")
	}
	return []byte(b.String())
}

// csvFile answers a count's jobs as a CSV file named after the count.
func csvFile(c echo.Context, disposition, src string, res workbench.Result, pt workbench.Point, outcome string, ids []int64) error {
	c.Response().Header().Set("Content-Disposition", fmt.Sprintf(`%s; filename="workbench-%s-%s.csv"`, disposition, outcome, pages.PointKey(pt.CrashPoint)))
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", jobsCSV(src, res, pt, outcome, ids))
}

// badWhich is the refusal of a which that names no count of the check.
func badWhich(which string, fe experiments.FieldErrors) error {
	msg := "The jobs asked for (" + experiments.Clip(which, 40) + ") are not a crash point and a count of this check"
	if len(fe) > 0 {
		msg += ": " + fe[0].Field + " " + fe[0].Message
	}
	return &web.Error{Status: http.StatusBadRequest, Msg: msg + "."}
}

// Jobs handles "POST /workbench/jobs": the jobs behind one count of the posted handler's check
// (which=point:outcome). htmx gets the list for the result's jobs panel; without script, the
// whole page with the list in the panel; csv=point:outcome answers every id as a CSV file.
func (h *Handlers) Jobs() echo.HandlerFunc {
	return func(c echo.Context) error {
		src, tmpl, raw, err := postedCheck(c)
		if err != nil {
			return h.unreadOr(c, err, false)
		}
		which, asCSV := c.FormValue("which"), false
		if w := c.FormValue("csv"); w != "" {
			which, asCSV = w, true
		}
		site := h.d.Site(workbenchPath)
		v := h.workbenchBase(site, tmpl)
		status, res := h.fillCheck(c.Request().Context(), site, &v, src, raw, "")
		if status == 499 {
			return context.Canceled
		}
		hx := web.HTMXOf(c.Request())
		if res == nil {
			// The check's own refusal, as Check shows it.
			if hx.Active {
				retargetResult(c)
				return web.Render(c, status, pages.WorkbenchCheck(v))
			}
			return h.render(c, site, status, &v)
		}
		point, outcome, ok := parseWhich(which)
		if !ok {
			return badWhich(which, nil)
		}
		pt, ids, fe := jobsOf(*res, point, outcome)
		if fe != nil {
			return badWhich(which, fe)
		}
		if asCSV {
			return csvFile(c, "attachment", src, *res, pt, outcome, ids)
		}
		j := pages.NewWorkbenchJobs(pt, outcome, ids, "")
		v.Jobs = &j
		if hx.Active {
			return web.Render(c, http.StatusOK, pages.WorkbenchJobsList(v, j))
		}
		return h.render(c, site, status, &v)
	}
}

// jobsRequest is the body of POST /api/workbench/jobs: a check's source and parameters as
// /api/workbench/check takes them, and the count: the crash point as the check's JSON numbers it,
// and the outcome (lost, failed, exactly_once, duplicated, redelivered, events_lost,
// events_phantom, events_duplicated).
type jobsRequest struct {
	checkRequest
	Point   *int   `json:"point"`
	Outcome string `json:"outcome"`
	Format  string `json:"format"`
}

// JobsAPI handles "POST /api/workbench/jobs": {"outcome","point","label","total","ids"} for one
// count of the check, or, with format=csv (in the body or the query), every id as CSV. Refusals
// are the API's {"errors"}: 400 naming a parameter, the point or the outcome, 422 for a mistake in
// the handler.
func (h *Handlers) JobsAPI() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in jobsRequest
		if err := web.ReadJSON(c.Request(), &in, false); err != nil {
			if bodyTooLarge(err) {
				return apiTooLarge(c)
			}
			return err
		}
		format := in.Format
		if q := c.QueryParam("format"); q != "" {
			format = q
		}
		var fe experiments.FieldErrors
		if format != "" && format != "json" && format != "csv" {
			fe = append(fe, experiments.FieldError{Field: "format", Message: "must be json or csv"})
		}
		if in.Point == nil {
			fe = append(fe, experiments.FieldError{Field: "point", Message: "is missing; give the crash point as the check's points number it"})
		}
		raw, pfe := paramsOfJSON(in.Params)
		if fe = append(fe, pfe...); fe != nil {
			return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: fe})
		}
		res, err := h.checkParsed(c.Request().Context(), in.Source, raw)
		if err != nil {
			return h.checkAPIError(c, err)
		}
		pt, ids, fe := jobsOf(res, *in.Point, in.Outcome)
		if fe != nil {
			return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: fe})
		}
		if format == "csv" {
			return csvFile(c, "inline", in.Source, res, pt, in.Outcome, ids)
		}
		return c.JSON(http.StatusOK, jobsJSON(pt, in.Outcome, ids))
	}
}

// sharedJobs answers a share's URL that names a count (which=point:outcome): the list in the
// page, JSON, or CSV, as format says.
func (h *Handlers) sharedJobs(c echo.Context, hash, src string, raw map[string][]string, which, format string) error {
	point, outcome, ok := parseWhich(which)
	if !ok {
		return badWhich(which, nil)
	}
	ctx := c.Request().Context()
	if format != "html" {
		res, err := h.checkParsed(ctx, src, raw)
		if err != nil {
			return h.checkAPIError(c, err)
		}
		pt, ids, fe := jobsOf(res, point, outcome)
		if fe != nil {
			return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: fe})
		}
		if format == "csv" {
			return csvFile(c, "inline", src, res, pt, outcome, ids)
		}
		return c.JSON(http.StatusOK, jobsJSON(pt, outcome, ids))
	}
	site := h.d.Site(workbenchPath)
	v := h.sharedView(site, hash, c.QueryParams())
	status, res := h.fillCheck(ctx, site, &v, src, raw, "")
	if status == 499 {
		return context.Canceled
	}
	if res != nil {
		pt, ids, fe := jobsOf(*res, point, outcome)
		if fe != nil {
			return badWhich(which, fe)
		}
		j := pages.NewWorkbenchJobs(pt, outcome, ids, shareJobsURL(v.ShareURL, res.Params, which))
		v.Jobs = &j
	}
	return h.render(c, site, status, &v)
}

// shareJobsURL is the CSV of one count of a share's check.
func shareJobsURL(shareURL string, p workbench.Params, which string) string {
	q := p.Query()
	if q != "" {
		q += "&"
	}
	return shareURL + "?" + q + "which=" + url.QueryEscape(which) + "&format=csv"
}

// InPlace handles "GET /workbench/edit": the workbench's form and result panel for the template
// the query names, at its parameters and the query's, already checked, for "Edit and check" under
// a block's design to load into the block's page. Anything but htmx gets the workbench's whole
// page, as the link's own address gives it without script.
func (h *Handlers) InPlace() echo.HandlerFunc {
	return func(c echo.Context) error {
		q := c.QueryParams()
		site := h.d.Site(workbenchPath)
		v, status := h.page(c.Request().Context(), site, q)
		if status == 499 {
			return context.Canceled
		}
		if !web.HTMXOf(c.Request()).Active {
			return h.render(c, site, status, v)
		}
		t, _ := workbench.LookupTemplate(v.Template)
		return web.Render(c, status, pages.WorkbenchInPlace(*v, t.Title, templateURL(site, t), h.d.EditorScript))
	}
}
