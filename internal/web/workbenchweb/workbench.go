// Package workbenchweb serves the workbench: its page's part (the editor, the check's result, a
// job's timeline), the form's posts, the check API and the shares with their permanent URLs. The
// checks run in the workbench's sandbox (a child process), admitted like heavy runs.
package workbenchweb

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/web"
	"effectivelyonce/lab"
	"effectivelyonce/pages"
	"effectivelyonce/workbench"
)

// defaultTemplate is what the editor holds on a first visit: the first rung of the ladder, a
// design that breaks, so the first result a reader sees already has something to explain.
const defaultTemplate = "ack-after-work"

// workbenchPath is the workbench's page, one entry of content.Contents().
const workbenchPath = "/workbench"

// Deps is what the workbench's handlers need.
type Deps struct {
	// Site is the page chrome for the page at current.
	Site func(current string) pages.Site
	// Base is the base path the site is served under ("" at the root), for redirects and the
	// API's URLs.
	Base string
	// EditorScript is the editor's script URL (the hashed lib/editor.min.js).
	EditorScript string
	// Book and Sources are the notebook's prose and highlighted code: a POST's answer is the
	// workbench's whole page.
	Book    *content.Book
	Sources map[string]pages.Source
	Log     *slog.Logger
	// Runner runs the checks in its heavy slots and keeps them in its result cache; Admit charges
	// them to the client's allowance of runs.
	Runner *runs.Runner
	Admit  *runs.Admission
	// Checks runs a check in its child process.
	Checks workbench.Sandbox
	// Shares keeps shared handlers (nil: this server keeps none; see SetShares); ShareCreates
	// limits the shares a client address creates.
	Shares       ShareStore
	ShareCreates *web.RateLimiter[netip.Addr]
	// Rejected counts refused requests by reason, Lookups the result cache's hits and misses.
	Rejected, Lookups *prometheus.CounterVec
	// LabRun starts a run of a handler the workbench has checked (its model in p.Handler) on the
	// instance's live lab, owned by the browser c comes from, and answers its progress box; a
	// refusal is a *web.Error saying when to try again. The site hands over the lab's own
	// (labweb's StartHandler): the lab's limits are the lab's. Nil, or LabOff (LAB=off): the
	// result says the lab is off. LabMaxJobs bounds a run's jobs.
	LabRun     func(c echo.Context, p lab.Params) (*pages.LabStatus, error)
	LabOff     bool
	LabMaxJobs int64
	// RoomBar is the study room bar of the reader's current room (nil when they are in none), for
	// the pages the workbench draws whole; Round the handler round the reader may submit the
	// editor's handler to (nil when none): the rooms' (roomsweb's Bar and WorkbenchRound).
	RoomBar func(c echo.Context, site pages.Site) *pages.RoomView
	Round   func(c echo.Context) *pages.WorkbenchRound
}

// Handlers serve the workbench.
type Handlers struct {
	d Deps
}

// New builds the workbench's handlers.
func New(d Deps) *Handlers { return &Handlers{d: d} }

// SetShares gives the handlers the store shares are kept in, before the server serves.
func (h *Handlers) SetShares(st ShareStore) { h.d.Shares = st }

// WithEditor adds the editor's script to a page's scripts, before app.js, which mounts it again
// after every htmx swap.
func (h *Handlers) WithEditor(site pages.Site) pages.Site {
	ed := h.d.EditorScript
	scripts := make([]string, 0, len(site.Scripts)+1)
	for i, src := range site.Scripts {
		if i == len(site.Scripts)-1 {
			scripts = append(scripts, ed)
		}
		scripts = append(scripts, src)
	}
	site.Scripts = scripts
	return site
}

// workbenchBase is the part of the workbench's view that does not depend on the check: where its
// forms post, the templates menu with current marked, and the exercise ladder.
func (h *Handlers) workbenchBase(site pages.Site, current string) pages.WorkbenchView {
	v := pages.WorkbenchView{Action: site.URL(workbenchPath), TraceAction: site.URL(workbenchPath + "/trace"),
		JobsAction: site.URL(workbenchPath + "/jobs"), ShareAction: site.URL(workbenchPath + "/share"), Template: current}
	for _, t := range workbench.Templates() {
		v.Templates = append(v.Templates, pages.WorkbenchTemplate{Name: t.Name, Title: t.Title, From: t.From, Summary: t.Summary,
			URL: templateURL(site, t), Current: t.Name == current})
	}
	for _, r := range workbench.Ladder() {
		t, _ := workbench.LookupTemplate(r.Template)
		v.Ladder = append(v.Ladder, pages.Exercise{Title: r.Title, Task: r.Task, URL: templateURL(site, t)})
	}
	return v
}

// templateURL opens the workbench with t in the editor, at the parameters t is meant for.
func templateURL(site pages.Site, t workbench.Template) string {
	u := site.URL(workbenchPath) + "?template=" + url.QueryEscape(t.Name)
	if t.Query != "" {
		u += "&" + t.Query
	}
	return u
}

// paramsOf keeps of q the check's parameters, over base (a template's own): a page's query may
// carry other keys (template, trace), which are not the check's.
func paramsOf(base string, q url.Values) map[string][]string {
	raw := map[string][]string{}
	if b, err := url.ParseQuery(base); err == nil {
		for k, v := range b {
			raw[k] = v
		}
	}
	for _, f := range workbench.Fields() {
		if v, ok := q[f.Name]; ok {
			raw[f.Name] = v
		}
	}
	return raw
}

// OnPage is the workbench on its page for "GET /workbench": the template the query names (or the
// first rung's), at its parameters and the query's, already checked, since a check is cached and
// the reader should see a result at once, with the button that submits it to the reader's
// room's handler round when one is open. It answers the status the page should have (499: the
// reader left).
func (h *Handlers) OnPage(c echo.Context, site pages.Site) (*pages.WorkbenchView, int) {
	v, status := h.page(c.Request().Context(), site, c.QueryParams())
	if h.d.Round != nil {
		v.Round = h.d.Round(c)
	}
	return v, status
}

// page is the workbench's part of its page for the query q (see OnPage).
func (h *Handlers) page(ctx context.Context, site pages.Site, q url.Values) (*pages.WorkbenchView, int) {
	name := q.Get("template")
	t, ok := workbench.LookupTemplate(name)
	if !ok {
		t, _ = workbench.LookupTemplate(defaultTemplate)
	}
	v := h.workbenchBase(site, t.Name)
	raw := paramsOf(t.Query, q)
	if name != "" && !ok {
		// The editor holds another handler than the one asked for: the page says so and checks
		// nothing, so that no result stands under the notice as if it were the template's.
		v.Source, v.Fields = t.Source, workbenchFields(raw, nil)
		v.Problem = "There is no template named " + strconv.Quote(experiments.Clip(name, 40)) + "; the editor holds " + t.Title +
			" instead. Pick a design from the list above, or press Check to check this one."
		return &v, http.StatusNotFound
	}
	status, _ := h.fillCheck(ctx, site, &v, t.Source, raw, "")
	return &v, status
}

// fillCheck puts the source, the form's values and the check's answer into v: the result, or
// the handler's mistakes, the refused fields, or why nothing ran. trace ("point:job"), when set,
// also asks for one job's timeline. It answers the status the page should have, and the check
// when there is one.
func (h *Handlers) fillCheck(ctx context.Context, site pages.Site, v *pages.WorkbenchView, src string, raw map[string][]string, trace string) (int, *workbench.Result) {
	v.Source = src
	p, err := workbench.Parse(raw)
	var fe experiments.FieldErrors
	errors.As(err, &fe)
	v.Fields = workbenchFields(raw, fe)
	if err != nil {
		v.FieldErrors = len(fe)
		return http.StatusUnprocessableEntity, nil
	}
	res, err := h.check(ctx, src, p)
	if status, done := h.refusal(v, err); done {
		return status, nil
	}
	smallestURL := ""
	if s := res.Smallest; s != nil {
		switch {
		case v.ShareURL != "":
			smallestURL = v.ShareURL + "?" + s.Query
		case isTemplate(v.Template, src):
			// The page lays the template's own parameters under the link's, so the link is
			// written over them: a value set back to its default must say so.
			t, _ := workbench.LookupTemplate(v.Template)
			under, _ := url.ParseQuery(t.Query)
			base, _ := workbench.Parse(under)
			smallestURL = site.URL(workbenchPath) + "?template=" + url.QueryEscape(v.Template)
			if q := s.Params.QueryOver(base); q != "" {
				smallestURL += "&" + q
			}
		}
	}
	r := pages.NewWorkbenchResult(res, smallestURL, workbench.SourceHash(src))
	v.Result = &r
	v.Lab = h.labControl(site, res, labChoice{})
	if trace == "" {
		return http.StatusOK, &res
	}
	point, job, ok := parseTrace(trace)
	if !ok {
		v.Problem = "The timeline asked for (" + experiments.Clip(trace, 24) + ") is not a crash point and a job."
		return http.StatusBadRequest, &res
	}
	tr, err := h.trace(ctx, src, p, point, job)
	if status, done := h.refusal(v, err); done {
		v.Result = &r // the check stands; only the timeline was refused
		return status, &res
	}
	tv := pages.NewWorkbenchTimeline(tr)
	v.Trace = &tv
	return http.StatusOK, &res
}

// refusal puts a failed check's reason into v: the handler's mistake at its line, refused
// parameters beside their fields, or why it could not run now. done is false when err is nil.
func (h *Handlers) refusal(v *pages.WorkbenchView, err error) (status int, done bool) {
	if err == nil {
		return 0, false
	}
	var ce *workbench.CodeError
	var fe experiments.FieldErrors
	var he *web.Error
	switch {
	case errors.As(err, &ce):
		v.CodeErrors = []pages.CodeErrorView{{Line: ce.Line, Col: ce.Col, Message: ce.Msg}}
		return http.StatusUnprocessableEntity, true
	case errors.As(err, &fe):
		v.FieldErrors = len(fe)
		v.Fields = workbenchFields(formValues(v.Fields), fe)
		return http.StatusUnprocessableEntity, true
	case web.As(err, &he):
		v.Problem = he.Msg
		if he.RetryAfter > 0 {
			v.Problem += " Wait " + strconv.Itoa(web.RetrySeconds(he.RetryAfter)) + " s, then press Check again."
		}
		return he.Status, true
	case errors.Is(err, context.Canceled):
		return 499, true
	}
	h.d.Log.Error("workbench check", "err", err)
	v.Problem = "The check's process failed on the server."
	return http.StatusInternalServerError, true
}

// isTemplate reports whether src is the named template's source, unchanged.
func isTemplate(name, src string) bool {
	t, ok := workbench.LookupTemplate(name)
	return ok && t.Source == src
}

// parseTrace reads "point:job".
func parseTrace(s string) (int, int64, bool) {
	a, b, ok := strings.Cut(s, ":")
	point, err1 := strconv.Atoi(a)
	job, err2 := strconv.ParseInt(b, 10, 64)
	return point, job, ok && err1 == nil && err2 == nil && job >= 0
}

// workbenchFields is the parameter form: the reader's values as typed (the defaults where they
// gave none), each refused one with its message.
func workbenchFields(raw map[string][]string, fe experiments.FieldErrors) []pages.WorkbenchField {
	defaults := workbench.DefaultParams().Format()
	var out []pages.WorkbenchField
	for _, f := range workbench.Fields() {
		value := defaults[f.Name]
		if v, ok := raw[f.Name]; ok && len(v) > 0 {
			value = v[0]
		}
		wf := pages.WorkbenchField{Field: pages.Field{ID: "wb-" + f.Name, Name: f.Name, Label: f.Label, Unit: f.Unit,
			Help: f.Help, Range: f.Range(), Value: experiments.Clip(value, pages.MaxShownValue)}}
		if f.OnlyWords {
			wf.Options = f.Words
		}
		for _, e := range fe {
			if e.Field == f.Name {
				wf.Error = e.Message
			}
		}
		out = append(out, wf)
	}
	return out
}

// formValues reads the values back out of a form's fields.
func formValues(fields []pages.WorkbenchField) map[string][]string {
	raw := map[string][]string{}
	for _, f := range fields {
		raw[f.Name] = []string{f.Value}
	}
	return raw
}

// postedCheck reads a posted workbench form: the source, the template it started from, and the
// check's parameters (the form's other keys are not parameters). A body over MaxBody is answered
// by unreadOr.
func postedCheck(c echo.Context) (src, tmpl string, raw map[string][]string, err error) {
	form, err := c.FormParams()
	if err != nil {
		return "", "", nil, &web.Error{Status: http.StatusBadRequest, Msg: "The form could not be read.", Err: err}
	}
	return strings.ReplaceAll(form.Get("source"), "\r\n", "\n"), form.Get("template"), paramsOf("", form), nil
}

// unreadOr answers a post whose form postedCheck could not read: the workbench's own refusal
// when the body was over MaxBody (share says the post was Share's), else err as it is.
func (h *Handlers) unreadOr(c echo.Context, err error, share bool) error {
	if bodyTooLarge(err) {
		return h.unreadForm(c, share)
	}
	return err
}

// Check handles "POST /workbench": Check. Without script it answers the whole page with the
// result; from htmx, the result panel and the parameters alone.
func (h *Handlers) Check() echo.HandlerFunc {
	return h.post(false)
}

// Trace handles "POST /workbench/trace": one job's timeline at one crash point of the posted
// handler (trace=point:job). htmx gets the timeline alone, for the result's panel.
func (h *Handlers) Trace() echo.HandlerFunc {
	return h.post(true)
}

func (h *Handlers) post(traced bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		src, tmpl, raw, err := postedCheck(c)
		if err != nil {
			return h.unreadOr(c, err, false)
		}
		site := h.d.Site(workbenchPath)
		v := h.workbenchBase(site, tmpl)
		trace := ""
		if traced {
			trace = c.FormValue("trace")
		}
		status, _ := h.fillCheck(c.Request().Context(), site, &v, src, raw, trace)
		if status == 499 {
			return context.Canceled
		}
		hx := web.HTMXOf(c.Request())
		switch {
		case hx.Active && traced && v.Trace != nil:
			return web.Render(c, status, pages.JobTimeline(*v.Trace))
		case hx.Active:
			if traced {
				// The check, or the timeline, was refused: the refusal takes the result's place,
				// where a Check's would, not the timeline panel's.
				retargetResult(c)
			}
			return web.Render(c, status, pages.WorkbenchCheck(v))
		}
		return h.render(c, site, status, &v)
	}
}

// render renders the workbench's page whole around v, as handleArticle renders it.
func (h *Handlers) render(c echo.Context, site pages.Site, status int, v *pages.WorkbenchView) error {
	page, ok := h.d.Book.Page("workbench")
	if !ok {
		return &web.Error{Status: http.StatusNotFound, Msg: "no such page"}
	}
	h.roomParts(c, &site, v)
	site = h.WithEditor(site)
	view := pages.ArticleView{Site: site, Page: page, Code: h.d.Sources, Workbench: v}
	view.Prev, view.Next = pages.Neighbours(site, workbenchPath)
	return web.Render(c, status, pages.Layout(site, page.Title, pages.Article(view)))
}

// EditLinks are the "Edit and check" links of a page whose designs the workbench has as
// templates: after a block's first design (its first source part), after the assembly's
// experiment, after the outbox on the page across system boundaries.
func (h *Handlers) EditLinks(site pages.Site, entry content.Entry, page *content.Page) *pages.EditLinks {
	var want func(t workbench.Template) bool
	marker := content.MarkerSource
	switch n := entry.Block(); {
	case n > 0:
		prefix := "Block " + strconv.Itoa(n)
		want = func(t workbench.Template) bool {
			return t.From == prefix || strings.HasPrefix(t.From, prefix+" ")
		}
	case entry.Slug == "assembly":
		want = func(t workbench.Template) bool { return strings.HasSuffix(t.From, "the assembly") }
		marker = content.MarkerExperiment
	case entry.Slug == "boundaries":
		want = func(t workbench.Template) bool { return t.From == "The concept page" }
		marker = content.MarkerExperiment
	default:
		return nil
	}
	e := &pages.EditLinks{After: -1}
	for i, part := range page.Parts {
		if part.Marker == marker {
			e.After = i
			break
		}
	}
	for _, t := range workbench.Templates() {
		if want(t) {
			u := templateURL(site, t)
			in := site.URL(workbenchPath+"/edit") + u[strings.Index(u, "?"):]
			e.Links = append(e.Links, pages.EditLink{Title: t.Title, URL: u, InPlace: in})
		}
	}
	if e.After < 0 || len(e.Links) == 0 {
		return nil
	}
	return e
}

// Stop ends the share limiter's sweeps, at shutdown.
func (h *Handlers) Stop() {
	if h.d.ShareCreates != nil {
		h.d.ShareCreates.Close()
	}
}

// retargetResult has htmx put this answer (a refusal in the workbench's words, or a result drawn
// whole) over the workbench's result panel, whichever element asked.
func retargetResult(c echo.Context) {
	web.Retarget(c, "#"+pages.WorkbenchResultID, "outerHTML show:none")
}
