package main

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/lab"
	"effectivelyonce/pages"
)

// labForm is the lab's form as the reader filled it in: the values as typed (kept when one is
// wrong) and a message per field. Field names are lab.FieldError's: design, jobs, workers,
// crash_rate, seed.
type labForm struct {
	designs []string
	values  map[string]string
	errs    map[string]string
}

// defaultLabForm is the form as the page first shows it: every design, the defaults.
func defaultLabForm() labForm {
	f := labForm{values: map[string]string{
		"jobs": strconv.Itoa(labDefaultJobs), "workers": strconv.Itoa(labDefaultWorkers),
		"crash_rate": strconv.FormatFloat(labDefaultRate, 'g', -1, 64), "seed": strconv.Itoa(labDefaultSeed)}}
	for _, d := range lab.Designs() {
		f.designs = append(f.designs, string(d))
	}
	return f
}

// parse reads the form's values into a run's parameters, or fills in errs.
func (f *labForm) parse(maxJobs int) (labParams, bool) {
	f.errs = map[string]string{}
	var p labParams
	known := map[string]bool{}
	for _, d := range lab.Designs() {
		known[string(d)] = true
	}
	for _, d := range f.designs {
		if !known[d] {
			f.errs["design"] = fmt.Sprintf("%q is not a design of this lab", d)
			break
		}
		p.Designs = append(p.Designs, lab.Design(d))
	}
	if len(f.designs) == 0 {
		f.errs["design"] = "pick at least one design"
	}
	var err error
	if p.Jobs, err = strconv.ParseInt(strings.TrimSpace(f.values["jobs"]), 10, 64); err != nil {
		f.errs["jobs"] = "a whole number of jobs, like 400"
	} else if p.Jobs < 1 || p.Jobs > int64(maxJobs) {
		f.errs["jobs"] = fmt.Sprintf("%d is outside 1 to %s, this server's limit", p.Jobs, experiments.Thousands(int64(maxJobs)))
	}
	if p.Workers, err = strconv.Atoi(strings.TrimSpace(f.values["workers"])); err != nil {
		f.errs["workers"] = "a whole number of worker processes, like 3"
	}
	if p.CrashRate, err = strconv.ParseFloat(strings.TrimSpace(f.values["crash_rate"]), 64); err != nil {
		f.errs["crash_rate"] = "a number from 0 to 1, like 0.05"
	}
	if p.Seed, err = strconv.ParseInt(strings.TrimSpace(f.values["seed"]), 10, 64); err != nil {
		f.errs["seed"] = "a whole number, like 13"
	}
	p.FireAndForget = f.values["fire_and_forget"] == "on"
	if len(f.errs) > 0 {
		return p, false
	}
	// The lab's own checks, so the page and the CLI refuse the same values with the same words.
	for _, d := range p.Designs {
		cfg := lab.Config{Design: d, Jobs: p.Jobs, Workers: p.Workers, CrashRate: p.CrashRate, Seed: p.Seed, Command: siteLabWorker}
		var fe *lab.FieldError
		if err := cfg.Validate(); errors.As(err, &fe) {
			f.errs[fe.Field] = fe.Msg
			return p, false
		}
	}
	return p, true
}

// view is the lab's part of the page with this form and the instance's current or last run.
func (s *server) labView(site pages.Site, f labForm, notice string) *pages.LabView {
	if s.cfg.LabOff {
		return &pages.LabView{Off: true}
	}
	v := &pages.LabView{Action: site.URL("/lab/runs"), Notice: notice, DesignError: f.errs["design"], Status: s.lab.status(site)}
	for _, d := range lab.Designs() {
		checked := false
		for _, c := range f.designs {
			checked = checked || c == string(d)
		}
		v.Designs = append(v.Designs, pages.LabDesign{Value: string(d), Label: pages.LabDesignLabel(d), Checked: checked})
	}
	field := func(name, label, unit, help, rng string) pages.Field {
		return pages.Field{ID: "lab-" + strings.ReplaceAll(name, "_", "-"), Name: name, Label: label, Unit: unit, Help: help,
			Range: rng, Value: f.values[name], Error: f.errs[name]}
	}
	v.FireAndForget = f.values["fire_and_forget"] == "on"
	v.Fields = []pages.Field{
		field("jobs", "Jobs", "", "Jobs published to the broker, the same stream for every design.", "1 to "+experiments.Thousands(int64(s.cfg.labMaxJobs()))),
		field("workers", "Workers", "processes", "Worker processes pulling jobs at once.", fmt.Sprintf("1 to %d", lab.MaxWorkers)),
		field("crash_rate", "Crash rate", "", "Share of jobs whose first delivery kills its worker.", "0 to 1"),
		field("seed", "Seed", "", "Picks which jobs crash; the model uses the same one.", "any whole number"),
	}
	return v
}

// labEntry is the lab's page in the contents.
func labEntry() content.Entry {
	for _, e := range content.Contents() {
		if e.Slug == "lab" {
			return e
		}
	}
	return content.Entry{Slug: "lab", Path: "/lab"}
}

// renderLab draws the whole lab page with v in place, for the answers to the form's POSTs.
func (s *server) renderLab(c echo.Context, status int, v *pages.LabView) error {
	entry := labEntry()
	page, ok := s.book.Page(entry.Slug)
	if !ok {
		return &httpError{Status: http.StatusNotFound, Msg: "no such page"}
	}
	site := s.site(entry.Path)
	view := pages.ArticleView{Site: site, Page: onceEach(page), Code: s.sources, Lab: v}
	view.Prev, view.Next = neighbours(site, entry.Path)
	return render(c, status, pages.Layout(site, page.Title, pages.Article(view)))
}

// handleLabRun handles "POST /lab/runs": it starts a run in the background and sends the reader
// to the page, where the progress box follows it. A wrong value is a 422 with the form kept; a
// run already under way is a 409 that says when to try again.
func (s *server) handleLabRun() echo.HandlerFunc {
	return func(c echo.Context) error {
		site := s.site(labEntry().Path)
		if s.cfg.LabOff {
			return s.renderLab(c, http.StatusForbidden, s.labView(site, labForm{}, ""))
		}
		form, err := c.FormParams()
		if err != nil {
			return &httpError{Status: http.StatusBadRequest, Msg: "the form could not be read", Err: err}
		}
		f := labForm{designs: form["design"], values: map[string]string{}}
		for _, k := range []string{"jobs", "workers", "crash_rate", "seed", "fire_and_forget"} {
			f.values[k] = form.Get(k)
		}
		p, ok := f.parse(s.cfg.labMaxJobs())
		if !ok {
			return s.renderLab(c, http.StatusUnprocessableEntity, s.labView(site, f, "Not run: fix the value marked below."))
		}
		if _, err := s.lab.start(p); err != nil {
			if errors.Is(err, errLabBusy) {
				wait := s.lab.retryAfter()
				c.Response().Header().Set("Retry-After", strconv.Itoa(retrySeconds(wait)))
				msg := fmt.Sprintf("Not run: another lab run is under way on this server, and it runs one at a time, since each run starts its own broker and worker processes. Try again in about %d s, when the run below has ended.", retrySeconds(wait))
				return s.renderLab(c, http.StatusConflict, s.labView(site, f, msg))
			}
			return &httpError{Status: http.StatusServiceUnavailable, Msg: "the lab cannot start a run now", Err: err}
		}
		return c.Redirect(http.StatusSeeOther, site.URL("/lab")+"#lab-status")
	}
}

// handleLabCancel handles "POST /lab/cancel": it cancels the run the form names, waits until its
// workers are gone, and sends the reader back to the page.
func (s *server) handleLabCancel() echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.cfg.LabOff {
			return &httpError{Status: http.StatusForbidden, Msg: "the live lab is turned off on this instance"}
		}
		s.lab.cancelRun(c.FormValue("run"))
		return c.Redirect(http.StatusSeeOther, s.site("").URL("/lab")+"#lab-status")
	}
}

// handleLabProgress handles "GET /lab/progress": the progress box alone, which the page polls
// once a second while a run is under way. It only reads: no GET starts or stops a run.
func (s *server) handleLabProgress() echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.cfg.LabOff {
			return &httpError{Status: http.StatusNotFound, Msg: "the live lab is turned off on this instance"}
		}
		st := s.lab.status(s.site(labEntry().Path))
		if st == nil {
			return &httpError{Status: http.StatusNotFound, Msg: "no lab run has started on this instance yet"}
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return render(c, http.StatusOK, pages.LabProgress(*st))
	}
}
