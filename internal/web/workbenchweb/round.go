package workbenchweb

// What the study rooms' handler rounds need of the workbench: its check at a round's parameters,
// and its page as the answer to a handler submitted from its form. The site hands both to the
// rooms, which run no Starlark and draw no workbench of their own.

import (
	"context"
	"net/url"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/workbench"
)

// CheckAt checks source at params, a workbench permalink's query (a handler round's), as Check
// does: in the sandbox, admitted and charged to the client of ctx, one flight per handler and
// parameters, kept in the result cache, so that a round's handlers shown again cost nothing. A
// refused parameter is an experiments.FieldErrors, a mistake in the handler a
// *workbench.CodeError.
func (h *Handlers) CheckAt(ctx context.Context, source, params string) (workbench.Result, error) {
	raw, err := url.ParseQuery(params)
	if err != nil {
		return workbench.Result{}, experiments.FieldErrors{{Field: "params", Message: "is not a query string"}}
	}
	return h.checkParsed(ctx, source, raw)
}

// RoundAnswer answers a handler submitted to a room's round from the workbench's form: with htmx
// the result panel and the parameters (out of band), as Check answers; otherwise the whole page.
// The editor keeps the handler, the parameters are the round's, and the result is the check at
// them, under the line that says what became of the submission.
func (h *Handlers) RoundAnswer(c echo.Context, status int, a pages.RoundAnswer) error {
	site := h.d.Site(workbenchPath)
	v := h.workbenchBase(site, a.Template)
	v.Source, v.Round, v.Submitted = a.Source, a.Round, &a.Note
	raw, _ := url.ParseQuery(a.Params)
	v.Fields = workbenchFields(raw, nil)
	if ce := a.CodeError; ce != nil {
		v.CodeErrors = []pages.CodeErrorView{{Line: ce.Line, Col: ce.Col, Message: ce.Msg}}
	}
	if a.Result != nil {
		r := pages.NewWorkbenchResult(*a.Result, "", workbench.SourceHash(a.Source))
		v.Result = &r
	}
	if web.HTMXOf(c.Request()).Active {
		return web.Render(c, status, pages.WorkbenchCheck(v))
	}
	return h.render(c, site, status, &v)
}

// roomParts puts the reader's study room into a page the workbench draws whole: the room bar, and
// the form's button that submits to the room's handler round.
func (h *Handlers) roomParts(c echo.Context, site *pages.Site, v *pages.WorkbenchView) {
	if h.d.RoomBar != nil {
		if bar := h.d.RoomBar(c, *site); bar != nil {
			site.Bar, site.InRoom = pages.RoomBar(*bar), true
		}
	}
	if v.Round == nil && h.d.Round != nil {
		v.Round = h.d.Round(c)
	}
}
