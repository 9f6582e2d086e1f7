package workbenchweb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/lab"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/workbench"
)

// The lab control's own inputs, named apart from the check's crash_point and crash_again: the
// check may cover every point while the lab kills its workers at one.
const (
	fieldLabPoint = "lab_point"
	fieldLabJobs  = "lab_jobs"
	fieldLabAgain = "lab_again"
)

// defaultLabJobs is the lab run's jobs at first: the check's 20,000 would take the lab minutes,
// and 2,000 at the documents' crash rate still crashes some forty jobs.
const defaultLabJobs = 2000

// labChoice is what the reader chose in the lab control, as posted ("" before any post).
type labChoice struct {
	posted      bool
	point, jobs string
	again       bool
	jobsError   string
	notice      string
	status      *pages.LabStatus
}

// labJobsField is the spec of the run's jobs, bounded by the instance's lab.
func (h *Handlers) labJobsField() experiments.Field {
	return experiments.Field{Name: fieldLabJobs, Label: "Jobs on the lab", Kind: experiments.KindInt, MinInt: 1, MaxInt: max(h.d.LabMaxJobs, 1),
		Help: "The lab's stream: the form's crash rate and seed, this many jobs."}
}

// labPoints are the crash points of res the lab can kill a worker at: every row but the outbox
// relay's, which dies in no worker.
func labPoints(res workbench.Result) []workbench.Point {
	var out []workbench.Point
	for _, p := range res.Points {
		if p.CrashPoint >= 0 && p.CrashPoint <= workbench.MaxPoints {
			out = append(out, p)
		}
	}
	return out
}

// labControl is "Run on the real lab" under res, with the reader's choices when they posted
// some: at first the first failing point (the one worth seeing on a real system), or point 1.
func (h *Handlers) labControl(site pages.Site, res workbench.Result, ch labChoice) *pages.WorkbenchLab {
	l := &pages.WorkbenchLab{Off: h.d.LabRun == nil || h.d.LabOff, Action: site.URL(workbenchPath + "/lab"), Notice: ch.notice, Status: ch.status}
	if l.Off {
		return l
	}
	points := labPoints(res)
	want := ch.point
	if !ch.posted {
		for _, p := range points {
			if want == "" && !p.Survives {
				want = strconv.Itoa(p.CrashPoint)
			}
		}
		if want == "" && len(points) > 1 {
			want = strconv.Itoa(points[1].CrashPoint)
		}
	}
	for i, p := range points {
		v := strconv.Itoa(p.CrashPoint)
		l.Points = append(l.Points, pages.WorkbenchLabPoint{Value: v, Label: p.Label, Selected: v == want || want == "" && i == 0})
	}
	f := h.labJobsField()
	l.Jobs = pages.Field{ID: "wb-lab-jobs", Name: f.Name, Label: f.Label, Help: f.Help, Range: f.Range(),
		Value: strconv.FormatInt(min(defaultLabJobs, f.MaxInt), 10), Error: ch.jobsError}
	l.Again = res.Params.CrashAgain
	if ch.posted {
		l.Jobs.Value, l.Again = experiments.Clip(ch.jobs, pages.MaxShownValue), ch.again
	}
	return l
}

// RunOnLab handles "POST /workbench/lab": Run on the real lab. It checks the posted handler as
// Check does (a handler the workbench refuses is refused here, at its line, before any process
// starts), then checks it again at the lab run's stream and crash point, the model the lab's
// table compares with, and hands the run to the lab. Without script it answers the whole page;
// from htmx, the lab control with its progress box, or the result panel when the handler or a
// parameter was refused.
func (h *Handlers) RunOnLab() echo.HandlerFunc {
	return func(c echo.Context) error {
		src, tmpl, raw, err := postedCheck(c)
		if err != nil {
			return h.unreadOr(c, err, false)
		}
		ch := labChoice{posted: true, point: c.FormValue(fieldLabPoint), jobs: c.FormValue(fieldLabJobs), again: c.FormValue(fieldLabAgain) == "yes"}
		ctx := c.Request().Context()
		site := h.d.Site(workbenchPath)
		v := h.workbenchBase(site, tmpl)
		hx := web.HTMXOf(c.Request())
		status, _ := h.fillCheck(ctx, site, &v, src, raw, "")
		if status == 499 {
			return context.Canceled
		}
		if v.Result == nil {
			// The check's own refusal, as Check shows it.
			if hx.Active {
				retargetResult(c)
				return web.Render(c, status, pages.WorkbenchCheck(v))
			}
			return h.render(c, site, status, &v)
		}
		res, status := h.startLab(c, src, raw, &ch)
		v.Lab = h.labControl(site, res, ch)
		if hx.Active {
			return web.Render(c, status, pages.WorkbenchLabPanel(*v.Lab))
		}
		return h.render(c, site, status, &v)
	}
}

// startLab reads the lab control's choices, checks the handler at the run's parameters and starts
// the run, putting into ch what the control should show; it answers the check the control's
// points come from and the status of the answer.
func (h *Handlers) startLab(c echo.Context, src string, raw map[string][]string, ch *labChoice) (workbench.Result, int) {
	ctx := c.Request().Context()
	p, _ := workbench.Parse(raw) // fillCheck has parsed it already
	form, _ := h.check(ctx, src, p)
	if h.d.LabRun == nil || h.d.LabOff {
		ch.notice = "Not run: the live lab is turned off on this instance."
		return form, http.StatusForbidden
	}
	point, err := strconv.Atoi(ch.point)
	if err != nil || !slices.ContainsFunc(labPoints(form), func(p workbench.Point) bool { return p.CrashPoint == point }) {
		ch.notice = "Not run: pick one of the table's crash points for the lab."
		return form, http.StatusUnprocessableEntity
	}
	jobs, msg := h.labJobsField().ParseScalar(ch.jobs)
	if msg != "" {
		ch.jobsError = msg
		return form, http.StatusUnprocessableEntity
	}
	lp := lab.DefaultParams()
	lp.Designs, lp.Jobs = []lab.Design{lab.DesignHandler}, jobs.(int64)
	lp.CrashRate, lp.Seed, lp.LeaseSeed, lp.LeaseTimeout = p.CrashRate, p.Seed, p.DurationSeed, p.LeaseTimeout
	lp.Handler = &lab.HandlerConfig{Source: src, CrashPoint: point, CrashAgain: ch.again, KeyWindow: p.KeyWindow}
	cfg := lp.Config(lab.DesignHandler)
	var bad *lab.FieldError
	if err := cfg.Validate(); errors.As(err, &bad) && bad.Field != "command" {
		ch.notice = fmt.Sprintf("Not run: the lab cannot run the form's %s: %s.", bad.Field, bad.Msg)
		return form, http.StatusUnprocessableEntity
	}
	// The model: the workbench's check of the same handler at the run's stream and crash point,
	// in the sandbox (a reader's handler never runs in the site's process).
	model, err := h.check(ctx, src, cfg.CheckParams())
	var v pages.WorkbenchView
	if status, done := h.refusal(&v, err); done {
		ch.notice = "Not run: the model's check at the lab's values was refused. " + v.Problem
		for _, ce := range v.CodeErrors {
			ch.notice += " " + strings.TrimSuffix(ce.Text(), ".") + "."
		}
		return form, status
	}
	lp.Handler.Model = &model
	st, err := h.d.LabRun(c, lp)
	var he *web.Error
	switch {
	case web.As(err, &he):
		ch.notice = present.SayCap(strings.TrimSuffix(he.Msg, ".")) + "."
		return form, he.Status
	case err != nil:
		h.d.Log.Error("workbench: lab run", "err", err)
		ch.notice = "Not run: the lab could not start the run."
		return form, http.StatusInternalServerError
	}
	ch.status = st
	return form, http.StatusOK
}
