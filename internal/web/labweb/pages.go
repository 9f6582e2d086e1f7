package labweb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/lab"
	"effectivelyonce/pages"
)

// OwnerCookie holds a browser's Owner token: the run it started is the one it may cancel.
// HttpOnly and SameSite=Lax like the rooms' cookies (web.Cookies); a day outlasts any run.
const (
	OwnerCookie = "eo_lab"
	ownerMaxAge = 24 * time.Hour
)

// Deps is what the lab's handlers need.
type Deps struct {
	// Site is the page chrome for the page at current.
	Site func(current string) pages.Site
	// Book and Sources are the notebook's prose and highlighted code: the answers to the form's
	// POSTs are the lab's whole page.
	Book    *content.Book
	Sources map[string]pages.Source
	Cookies web.Cookies
	// Off turns the lab off on this instance (LAB=off): the page says so and nothing runs.
	Off bool
	// MaxJobs bounds one run's jobs.
	MaxJobs int64
	// Runner holds the instance's one run.
	Runner *Runner
	// Rejected counts refused requests by reason.
	Rejected *prometheus.CounterVec
}

// Handlers serve the lab.
type Handlers struct {
	d Deps
}

// New builds the lab's handlers; d.Runner must be ready (SetUnwatched called).
func New(d Deps) *Handlers { return &Handlers{d: d} }

// Runner is the instance's runner of lab runs; tests reach it to swap the worker command, the
// scratch directory or the unwatched clock before a run, and to look at the run.
func (h *Handlers) Runner() *Runner { return h.d.Runner }

// Sweep removes the files of lab runs a killed site left behind, at start.
func (h *Handlers) Sweep(ctx context.Context) { h.d.Runner.Sweep(ctx) }

// Stop kills a lab run's worker processes and removes its files, at shutdown.
func (h *Handlers) Stop() { h.d.Runner.Stop() }

// labViewer is the owner token the request carries, or "" for a browser that has none yet.
func labViewer(c echo.Context) Owner { return Owner(web.Cookie(c, OwnerCookie)) }

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

// OnPage is the lab's part of GET /lab: the form with a permalink's values (nothing runs on a
// GET, so they are not checked until Run), or the defaults, and the run as this browser sees it.
func (h *Handlers) OnPage(c echo.Context, site pages.Site) *pages.LabView {
	q := c.QueryParams()
	f := labFormOf(lab.DefaultParams())
	if isLabQuery(q) {
		f = labFormFrom(q)
	}
	return h.labView(site, f, "", labViewer(c))
}

// labView is the lab's part of the page with this form and the instance's current or last run.
func (h *Handlers) labView(site pages.Site, f labForm, notice string, viewer Owner) *pages.LabView {
	if h.d.Off {
		return &pages.LabView{Off: true}
	}
	v := &pages.LabView{Action: site.URL("/lab/runs"), Notice: notice, DesignError: f.errs.For(lab.FieldDesign),
		FireAndForget: f.fireAndForget, Status: h.d.Runner.Status(site, viewer)}
	for _, d := range lab.Designs() {
		v.Designs = append(v.Designs, pages.LabDesign{ID: "lab-design-" + string(d), Value: string(d), Label: d.Label(),
			Checked: slices.Contains(f.designs, string(d))})
	}
	if v.DesignError != "" {
		v.Refused = append(v.Refused, pages.LabRefused{Label: "Designs", Error: v.DesignError, InputID: v.Designs[0].ID})
	}
	for _, spec := range lab.Fields(h.d.MaxJobs) {
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
func (h *Handlers) renderLab(c echo.Context, status int, v *pages.LabView) error {
	entry := labEntry()
	page, ok := h.d.Book.Page(entry.Slug)
	if !ok {
		return &web.Error{Status: http.StatusNotFound, Msg: "no such page"}
	}
	site := h.d.Site(entry.Path)
	view := pages.ArticleView{Site: site, Page: pages.OnceEach(page), Code: h.d.Sources, Lab: v}
	view.Prev, view.Next = pages.Neighbours(site, entry.Path)
	return web.Render(c, status, pages.Layout(site, page.Title, pages.Article(view)))
}

// Run handles "POST /lab/runs": it starts a run in the background, owned by this
// browser (its cookie, made now if it has none), and sends the reader to the page with the
// run's values in its address and its form, where the progress box follows the run. Wrong values
// are a 422 naming every one, with the form kept; a run already under way is a 409, and an
// address over its hourly allowance a 429, each saying when to try again.
func (h *Handlers) Run() echo.HandlerFunc {
	return func(c echo.Context) error {
		site := h.d.Site(labEntry().Path)
		viewer := labViewer(c)
		if h.d.Off {
			return h.renderLab(c, http.StatusForbidden, h.labView(site, labForm{}, "", viewer))
		}
		form, err := c.FormParams()
		if err != nil {
			return &web.Error{Status: http.StatusBadRequest, Msg: "the form could not be read", Err: err}
		}
		f := labFormFrom(form)
		p, errs := lab.ParseParams(form, h.d.MaxJobs)
		if len(errs) > 0 {
			f.errs = errs
			h.d.Rejected.WithLabelValues("invalid").Inc()
			return h.renderLab(c, http.StatusUnprocessableEntity, h.labView(site, f, "", viewer))
		}
		viewer, refused := h.start(c, p, site, viewer)
		if refused != nil {
			if refused.RetryAfter > 0 {
				return h.renderLab(c, refused.Status, h.labView(site, f, refused.Msg, viewer))
			}
			return refused
		}
		return c.Redirect(http.StatusSeeOther, labPermalink(site, p)+"#lab-status")
	}
}

// refused is a Start's refusal as the reader is told it, or nil for none: a run already under
// way is a 409, an address over its hourly allowance a 429, each with when to try again.
func (h *Handlers) refused(err error, site pages.Site, viewer Owner) *web.Error {
	var limited *labLimited
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errLabBusy):
		wait := h.d.Runner.retryAfter()
		whose := "someone else's run is under way on this server"
		if st := h.d.Runner.Status(site, viewer); st != nil && st.Yours {
			whose = "your run is still under way"
		}
		msg := fmt.Sprintf("Not run: %s, and the lab runs one at a time, since each run starts its own broker and worker processes. You can start yours when it ends, in about %s.", whose, pages.LabWait(wait))
		return &web.Error{Status: http.StatusConflict, Msg: msg, RetryAfter: wait, Err: err}
	case errors.As(err, &limited):
		msg := fmt.Sprintf("Not run: your address has started %d lab runs in the last hour, as many as this server allows one address (LAB_RUNS_PER_HOUR). You can start the next in about %s.",
			h.d.Runner.PerHour, pages.LabWait(limited.wait))
		return &web.Error{Status: http.StatusTooManyRequests, Msg: msg, RetryAfter: limited.wait, Err: err}
	}
	return &web.Error{Status: http.StatusServiceUnavailable, Msg: "the lab cannot start a run now", Err: err}
}

// StartHandler starts p, a run of a reader's handler that the workbench has checked (its model
// in p.Handler), for the browser c comes from, and answers its progress box, whose links lead to
// the lab's page (where a reader without script follows any run). It is the workbench's way onto
// the lab (the site hands it over as a func): the lab's limits hold as for a press of Run, and a
// refusal is a *web.Error saying when to try again (Retry-After is set).
func (h *Handlers) StartHandler(c echo.Context, p lab.Params) (*pages.LabStatus, error) {
	if h.d.Off {
		return nil, &web.Error{Status: http.StatusForbidden, Msg: "the live lab is turned off on this instance"}
	}
	if len(p.Designs) != 1 || p.Designs[0] != lab.DesignHandler || p.Handler == nil || p.Handler.Model == nil {
		return nil, errors.New("labweb: StartHandler runs one checked handler")
	}
	if p.Jobs < 1 || p.Jobs > h.d.MaxJobs {
		return nil, &web.Error{Status: http.StatusUnprocessableEntity, Msg: fmt.Sprintf("a lab run takes from 1 to %s jobs on this server", experiments.Thousands(h.d.MaxJobs))}
	}
	site := h.d.Site(labEntry().Path)
	viewer, refused := h.start(c, p, site, labViewer(c))
	if refused != nil {
		return nil, refused
	}
	return h.d.Runner.Status(site, viewer), nil
}

// start starts a run of p owned by viewer, this browser (made an owner now, with its cookie,
// when it is none yet), and answers the owner; a refusal carries its Retry-After header already.
func (h *Handlers) start(c echo.Context, p lab.Params, site pages.Site, viewer Owner) (Owner, *web.Error) {
	if viewer == "" {
		viewer = NewOwner()
		h.d.Cookies.Set(c, OwnerCookie, string(viewer), ownerMaxAge)
	}
	_, err := h.d.Runner.Start(p, viewer, web.ClientOf(c.Request().Context()))
	refused := h.refused(err, site, viewer)
	if refused != nil && refused.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(web.RetrySeconds(refused.RetryAfter)))
	}
	return viewer, refused
}

// Cancel handles "POST /lab/cancel": the run's owner cancels it, waits until its workers
// are gone, and is sent back to the page with the run's values. Anyone else is told, with a 403,
// that the run is not theirs and when they can start their own; the run goes on.
func (h *Handlers) Cancel() echo.HandlerFunc {
	return func(c echo.Context) error {
		if h.d.Off {
			return &web.Error{Status: http.StatusForbidden, Msg: "the live lab is turned off on this instance"}
		}
		site := h.d.Site(labEntry().Path)
		viewer := labViewer(c)
		if _, err := h.d.Runner.Cancel(c.FormValue("run"), viewer); errors.Is(err, errLabNotYours) {
			msg := fmt.Sprintf("Not cancelled: this run is someone else's, and only the browser that started it can cancel it. It should end in about %s; then you can start your own.", pages.LabWait(h.d.Runner.retryAfter()))
			return h.renderLab(c, http.StatusForbidden, h.labView(site, labFormOf(lab.DefaultParams()), msg, viewer))
		}
		to := site.URL("/lab") + "#lab-status"
		st := h.d.Runner.Status(site, viewer)
		if st != nil && web.HTMXOf(c.Request()).Active {
			// From the box itself, wherever it is shown (the lab's page, the workbench's): the box,
			// now saying the run was cancelled.
			c.Response().Header().Set("Cache-Control", "no-store")
			return web.Render(c, http.StatusOK, pages.LabAnswer(inRoom(*st, c.FormValue("room"), c.FormValue("bar"))))
		}
		if st != nil {
			to = st.PageURL
		}
		return c.Redirect(http.StatusSeeOther, to)
	}
}

// Progress handles "GET /lab/progress": the progress box alone, which the page polls
// while a run is under way, drawn for this browser (its own run, or someone else's). It only
// reads: no GET starts or stops a run. "every" keeps a box's slower pace (pages.LabPaced: a study
// room's, on every member's screen at once), from pages.LabEvery up to maxEvery; anything else
// is the lab's own pace.
func (h *Handlers) Progress() echo.HandlerFunc {
	return func(c echo.Context) error {
		if h.d.Off {
			return &web.Error{Status: http.StatusNotFound, Msg: "the live lab is turned off on this instance"}
		}
		st := h.d.Runner.Status(h.d.Site(labEntry().Path), labViewer(c))
		if st == nil {
			return &web.Error{Status: http.StatusNotFound, Msg: "no lab run has started on this instance yet"}
		}
		box := *st
		if every, err := time.ParseDuration(c.QueryParam("every")); err == nil && every > pages.LabEvery && every <= maxEvery {
			box = pages.LabPaced(box, every)
		}
		box = inRoom(box, c.QueryParam("room"), c.QueryParam("bar"))
		c.Response().Header().Set("Cache-Control", "no-store")
		if c.QueryParam("part") == "live" {
			// The box's moving part asks (pages.LabProgress): while nothing but the counts and the
			// tables has changed, that part alone, so that Cancel beside it is never replaced;
			// otherwise the whole box, in place of the one the part is in.
			results, _ := strconv.Atoi(c.QueryParam("results"))
			if had := (pages.LabLiveWith{Run: c.QueryParam("run"), Yours: c.QueryParam("yours") == "1", Results: results}); pages.LabLiveOnly(box, had) {
				return web.Render(c, http.StatusOK, pages.LabLive(box, had.Results))
			}
			web.Retarget(c, "closest .lab-status", "outerHTML")
		}
		return web.Render(c, http.StatusOK, pages.LabAnswer(box))
	}
}

// inRoom is box as a study room shows it, when the box's address or form says it is in one
// (pages.LabInRoom): room is whom it is drawn for, bar "1" in the room bar. Those words only label
// the box, so they are taken as given.
func inRoom(box pages.LabStatus, room, bar string) pages.LabStatus {
	if room != pages.RoomHost && room != pages.RoomMember {
		return box
	}
	return pages.LabInRoom(box, room == pages.RoomHost, bar == "1")
}

// maxEvery is the slowest pace a progress box may ask for: well inside Unwatched, so that a run
// shown only in such boxes is never taken for abandoned.
const maxEvery = 5 * time.Second
