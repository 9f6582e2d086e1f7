package site

import (
	"errors"
	"fmt"
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
	"effectivelyonce/lab"
	"effectivelyonce/pages"
)

// labOwnerCookie holds a browser's labOwner token: the run it started is the one it may cancel.
// HttpOnly and SameSite=Lax like the rooms' cookies (s.cookie); a day outlasts any run.
const (
	labOwnerCookie = "eo_lab"
	labOwnerMaxAge = 24 * time.Hour
)

// labViewer is the owner token the request carries, or "" for a browser that has none yet.
func labViewer(c echo.Context) labOwner { return labOwner(cookieValue(c, labOwnerCookie)) }

// labForm is the lab's form as the reader filled it in: the values as typed (kept when one is
// wrong), the designs ticked, and every refused field, in the form's order.
type labForm struct {
	designs       []string
	values        map[string]string
	fireAndForget bool
	errs          experiments.FieldErrors
}

// labFormOf is the form holding p's values.
func labFormOf(p lab.Params) labForm {
	f := labForm{values: p.Text(), fireAndForget: p.FireAndForget}
	for _, d := range p.Designs {
		f.designs = append(f.designs, string(d))
	}
	return f
}

// labFormFrom is the form as a request sent it, as typed: a value it left out shows its default.
func labFormFrom(raw url.Values) labForm {
	f := labFormOf(lab.DefaultParams())
	f.designs = raw[lab.FieldDesign]
	for k := range f.values {
		if v, ok := raw[k]; ok && len(v) > 0 {
			f.values[k] = experiments.Clip(v[0], pages.MaxShownValue)
		}
	}
	f.fireAndForget = raw.Get(lab.FieldFireAndForget) == "on"
	return f
}

// isLabQuery says whether a query carries any of the lab's values: a permalink, not a bare /lab.
func isLabQuery(q url.Values) bool {
	for k := range q {
		if k == lab.FieldDesign || k == lab.FieldFireAndForget || slices.ContainsFunc(lab.Fields(lab.MaxJobs), func(f experiments.Field) bool { return f.Name == k }) {
			return true
		}
	}
	return false
}

// labOnPage is the lab's part of GET /lab: the form with a permalink's values (nothing runs on a
// GET, so they are not checked until Run), or the defaults, and the run as this browser sees it.
func (s *server) labOnPage(c echo.Context, site pages.Site) *pages.LabView {
	q := c.QueryParams()
	f := labFormOf(lab.DefaultParams())
	if isLabQuery(q) {
		f = labFormFrom(q)
	}
	return s.labView(site, f, "", labViewer(c))
}

// labView is the lab's part of the page with this form and the instance's current or last run.
func (s *server) labView(site pages.Site, f labForm, notice string, viewer labOwner) *pages.LabView {
	if s.cfg.LabOff {
		return &pages.LabView{Off: true}
	}
	v := &pages.LabView{Action: site.URL("/lab/runs"), Notice: notice, DesignError: f.errs.For(lab.FieldDesign),
		FireAndForget: f.fireAndForget, Status: s.lab.status(site, viewer)}
	for _, d := range lab.Designs() {
		v.Designs = append(v.Designs, pages.LabDesign{ID: "lab-design-" + string(d), Value: string(d), Label: pages.LabDesignLabel(d),
			Checked: slices.Contains(f.designs, string(d))})
	}
	if v.DesignError != "" {
		v.Refused = append(v.Refused, pages.LabRefused{Label: "Designs", Error: v.DesignError, InputID: v.Designs[0].ID})
	}
	for _, spec := range lab.Fields(int64(s.cfg.labMaxJobs())) {
		fv := pages.Field{ID: "lab-" + strings.ReplaceAll(spec.Name, "_", "-"), Name: spec.Name, Label: spec.Label, Unit: spec.Unit,
			Help: spec.Help, Range: spec.Range(), Value: f.values[spec.Name], Error: f.errs.For(spec.Name)}
		v.Fields = append(v.Fields, fv)
		if fv.Error != "" {
			v.Refused = append(v.Refused, pages.LabRefused{Label: fv.Label, Error: fv.Error, InputID: fv.ID})
		}
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
		return &web.Error{Status: http.StatusNotFound, Msg: "no such page"}
	}
	site := s.site(entry.Path)
	view := pages.ArticleView{Site: site, Page: pages.OnceEach(page), Code: s.sources, Lab: v}
	view.Prev, view.Next = pages.Neighbours(site, entry.Path)
	return web.Render(c, status, pages.Layout(site, page.Title, pages.Article(view)))
}

// handleLabRun handles "POST /lab/runs": it starts a run in the background, owned by this
// browser (its cookie, made now if it has none), and sends the reader to the page with the
// run's values in its address and its form, where the progress box follows the run. Wrong values
// are a 422 naming every one, with the form kept; a run already under way is a 409, and an
// address over its hourly allowance a 429, each saying when to try again.
func (s *server) handleLabRun() echo.HandlerFunc {
	return func(c echo.Context) error {
		site := s.site(labEntry().Path)
		viewer := labViewer(c)
		if s.cfg.LabOff {
			return s.renderLab(c, http.StatusForbidden, s.labView(site, labForm{}, "", viewer))
		}
		form, err := c.FormParams()
		if err != nil {
			return &web.Error{Status: http.StatusBadRequest, Msg: "the form could not be read", Err: err}
		}
		f := labFormFrom(form)
		p, errs := lab.ParseParams(form, int64(s.cfg.labMaxJobs()))
		if len(errs) > 0 {
			f.errs = errs
			s.metrics.Rejected.WithLabelValues("invalid").Inc()
			return s.renderLab(c, http.StatusUnprocessableEntity, s.labView(site, f, "", viewer))
		}
		if viewer == "" {
			viewer = newLabOwner()
			s.cookie(c, labOwnerCookie, string(viewer), labOwnerMaxAge)
		}
		_, err = s.lab.start(p, viewer, web.ClientOf(c.Request().Context()))
		var limited *labLimited
		switch {
		case errors.Is(err, errLabBusy):
			wait := s.lab.retryAfter()
			c.Response().Header().Set("Retry-After", strconv.Itoa(web.RetrySeconds(wait)))
			whose := "someone else's run is under way on this server"
			if st := s.lab.status(site, viewer); st != nil && st.Yours {
				whose = "your run below is still under way"
			}
			msg := fmt.Sprintf("Not run: %s, and the lab runs one at a time, since each run starts its own broker and worker processes. You can start yours when it ends, in about %s.", whose, pages.LabWait(wait))
			return s.renderLab(c, http.StatusConflict, s.labView(site, f, msg, viewer))
		case errors.As(err, &limited):
			c.Response().Header().Set("Retry-After", strconv.Itoa(web.RetrySeconds(limited.wait)))
			msg := fmt.Sprintf("Not run: your address has started %d lab runs in the last hour, as many as this server allows one address (LAB_RUNS_PER_HOUR). You can start the next in about %s.",
				s.lab.perHour, pages.LabWait(limited.wait))
			return s.renderLab(c, http.StatusTooManyRequests, s.labView(site, f, msg, viewer))
		case err != nil:
			return &web.Error{Status: http.StatusServiceUnavailable, Msg: "the lab cannot start a run now", Err: err}
		}
		return c.Redirect(http.StatusSeeOther, labPermalink(site, p)+"#lab-status")
	}
}

// handleLabCancel handles "POST /lab/cancel": the run's owner cancels it, waits until its workers
// are gone, and is sent back to the page with the run's values. Anyone else is told, with a 403,
// that the run is not theirs and when they can start their own; the run goes on.
func (s *server) handleLabCancel() echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.cfg.LabOff {
			return &web.Error{Status: http.StatusForbidden, Msg: "the live lab is turned off on this instance"}
		}
		site := s.site(labEntry().Path)
		viewer := labViewer(c)
		if _, err := s.lab.cancelRun(c.FormValue("run"), viewer); errors.Is(err, errLabNotYours) {
			msg := fmt.Sprintf("Not cancelled: this run is someone else's, and only the browser that started it can cancel it. It should end in about %s; then you can start your own.", pages.LabWait(s.lab.retryAfter()))
			return s.renderLab(c, http.StatusForbidden, s.labView(site, labFormOf(lab.DefaultParams()), msg, viewer))
		}
		to := site.URL("/lab") + "#lab-status"
		if st := s.lab.status(site, viewer); st != nil {
			to = st.PageURL
		}
		return c.Redirect(http.StatusSeeOther, to)
	}
}

// handleLabProgress handles "GET /lab/progress": the progress box alone, which the page polls
// while a run is under way, drawn for this browser (its own run, or someone else's). It only
// reads: no GET starts or stops a run.
func (s *server) handleLabProgress() echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.cfg.LabOff {
			return &web.Error{Status: http.StatusNotFound, Msg: "the live lab is turned off on this instance"}
		}
		st := s.lab.status(s.site(labEntry().Path), labViewer(c))
		if st == nil {
			return &web.Error{Status: http.StatusNotFound, Msg: "no lab run has started on this instance yet"}
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return web.Render(c, http.StatusOK, pages.LabProgress(*st))
	}
}
