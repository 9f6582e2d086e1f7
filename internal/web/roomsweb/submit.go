package roomsweb

// A member's handler submitted to a handler round: from the workbench's form (its second submit
// button posts the same form here, with script or without, so the handler is the editor's and
// the parameters are ignored for the round's) and from the API.

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/rooms"
	"effectivelyonce/workbench"
)

// SubmitForm handles "POST /rooms/:id/rounds/:seq/submission": the workbench's form submitted to
// a handler round. It reads its room once, charges the change to the member's key, and answers
// with the workbench (HandlerChecks.Answer): the editor keeps the handler, the parameters show the
// round's, and the result is the check the verdict came from, under a line that says whether the
// handler was kept. Every refusal is said there too, so a member never loses what they wrote.
func (h *Handlers) SubmitForm() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		form, err := c.FormParams()
		if tooLarge(err) {
			return h.unreadSubmission(c)
		}
		if err != nil {
			return &web.Error{Status: http.StatusBadRequest, Msg: "The form could not be read.", Err: err}
		}
		src := strings.ReplaceAll(form.Get("source"), "\r\n", "\n")
		a := pages.RoundAnswer{Source: src, Template: form.Get("template"), Params: workbenchQuery(form)}
		ch := &checker{h: h}
		var r rooms.Room
		var sub rooms.Submission
		seq, err := roundSeq(c)
		if err == nil {
			r, err = h.asCaller(ctx, c, func(ctx context.Context, c echo.Context, who rooms.Caller) (err error) {
				sub, err = h.rooms.Submit(ctx, who, seq, src, ch) // Submit answers a refusal
				return err
			})
		}
		if errors.Is(err, context.Canceled) {
			return err
		}
		if ch.q != nil {
			a.Params, a.Result = ch.q.Params, ch.res // the check shown is the round's
		}
		again := &pages.WorkbenchRound{Action: c.Request().URL.Path, Seq: seq, Room: r.Title, Params: pages.ChallengeParams(a.Params)}
		if h.checks.Answer == nil {
			return h.plainAnswer(c, r, sub, err)
		}
		status := http.StatusOK
		var ce *workbench.CodeError
		switch {
		case err == nil:
			a.Note = pages.RoundNote{OK: true, RoomURL: h.base + "/rooms/" + r.ID,
				Text: fmt.Sprintf("Submitted to round %d of “%s”: your handler %s.", seq, r.Title, pages.VerdictText(sub.Verdict))}
			a.Round = again
		case errors.As(err, &ce):
			a.CodeError, status, a.Round = ce, http.StatusUnprocessableEntity, again
			a.Note.Text = "Not submitted: the handler has a mistake, which the editor marks at its line."
		case firstFieldError(err) != nil:
			fe := firstFieldError(err)
			status = http.StatusUnprocessableEntity
			a.Note.Text = "Not submitted: the round's parameters are refused (" + fe.Field + ": " + fe.Message + ")."
		default:
			var he *web.Error
			if !web.As(Refusal(err), &he) {
				return err
			}
			status = he.Status
			a.Note.Text = "Not submitted: " + strings.TrimSuffix(he.Msg, ".") + "."
			if he.RetryAfter > 0 {
				wait := web.RetrySeconds(he.RetryAfter)
				c.Response().Header().Set("Retry-After", strconv.Itoa(wait))
				a.Note.Text += " Submit again in " + strconv.Itoa(wait) + " s."
				a.Round = again
			}
			// A value the form carried that the round refuses (the handler's size) is the form's
			// 422, as the workbench answers it; and htmx swaps a refusal only as a 422 (or a
			// limit's 429 and 503), beside the form.
			if status == http.StatusBadRequest || web.HTMXOf(c.Request()).Active && status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable {
				status = http.StatusUnprocessableEntity
			}
		}
		return h.checks.Answer(c, status, a)
	}
}

// unreadHandler is the refusal of a submission whose body passed what the route reads (the
// workbench's bound, given by the assembly): the handler was not read at all.
const unreadHandler = "the handler was not read: what was sent is larger than this route reads, and a handler may have at most 16,384 bytes (16 KB)"

// tooLarge reports whether err comes from a body past the route's bound.
func tooLarge(err error) bool {
	var mb *http.MaxBytesError
	return errors.As(err, &mb)
}

// unreadSubmission answers a submission too large to read: in the workbench when the site draws
// one, as its note (htmx swaps it beside a form that keeps the editor's handler; without script the
// page says where the handler still is), else as the refusal alone.
func (h *Handlers) unreadSubmission(c echo.Context) error {
	msg := "Not submitted: " + unreadHandler + ". Your handler is still in the page you sent it from: go back to it."
	if h.checks.Answer == nil {
		return &web.Error{Status: http.StatusRequestEntityTooLarge, Msg: msg}
	}
	status := http.StatusRequestEntityTooLarge
	if web.HTMXOf(c.Request()).Active {
		status = http.StatusUnprocessableEntity // htmx swaps a refusal only as a 422
	}
	return h.checks.Answer(c, status, pages.RoundAnswer{Note: pages.RoundNote{Text: msg}})
}

// plainAnswer answers a submission where the site drew no workbench (a test of the rooms alone):
// the refusal, or back to the room.
func (h *Handlers) plainAnswer(c echo.Context, r rooms.Room, sub rooms.Submission, err error) error {
	if err != nil {
		return Refusal(err)
	}
	if web.HTMXOf(c.Request()).Active {
		return c.HTML(http.StatusOK, html.EscapeString("Submitted: your handler "+pages.VerdictText(sub.Verdict)+"."))
	}
	return c.Redirect(http.StatusSeeOther, h.base+"/rooms/"+r.ID)
}

// workbenchQuery is a workbench form's check parameters as a query (its other fields are not).
func workbenchQuery(form url.Values) string {
	out := url.Values{}
	for _, f := range workbench.Fields() {
		if v, ok := form[f.Name]; ok {
			out[f.Name] = v
		}
	}
	return out.Encode()
}

// SubmissionJSON is the answer of a submission: the share its source is kept under (url opens it
// in the workbench at the round's parameters) and its verdict there.
type SubmissionJSON struct {
	Seq     int         `json:"seq"`
	Hash    string      `json:"hash"`
	URL     string      `json:"url"`
	Verdict VerdictJSON `json:"verdict"`
}

// VerdictJSON is a handler's verdict: crash points checked and survived, jobs lost and duplicated
// summed over them, event faults (for a handler that publishes), whether it survives, and all of
// it in words.
type VerdictJSON struct {
	Points     int    `json:"crash_points"`
	Survived   int    `json:"survived"`
	Lost       int64  `json:"lost"`
	Duplicated int64  `json:"duplicated"`
	Events     *int64 `json:"events,omitempty"`
	Survives   bool   `json:"survives"`
	Text       string `json:"text"`
}

func verdictJSONOf(v rooms.Verdict) VerdictJSON {
	return VerdictJSON{Points: v.Points, Survived: v.Survived, Lost: v.Lost, Duplicated: v.Duplicated, Events: v.Events,
		Survives: v.Survives, Text: pages.VerdictText(v)}
}

// codeErrorJSON is a mistake in a handler, in the workbench API's shape: its line and column.
type codeErrorJSON struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
}

// APISubmit handles "POST /api/rooms/:code/rounds/:seq/submission" (member) with {"source"}: the
// handler checked at the round's parameters and kept as the member's submission; 200 with its
// share and verdict. A mistake in the handler is 422 with its line and column, as the
// workbench's API answers it; a round that takes no handler now 409; a handler over 16 KB 400.
func (h *Handlers) APISubmit() echo.HandlerFunc {
	return func(c echo.Context) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		var in struct {
			Source string `json:"source"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			if tooLarge(err) {
				return c.JSON(http.StatusRequestEntityTooLarge, present.APIError("source", unreadHandler))
			}
			return err
		}
		ch := &checker{h: h}
		sub, err := h.rooms.Submit(c.Request().Context(), h.apiCaller(c), seq, in.Source, ch)
		var ce *workbench.CodeError
		switch {
		case errors.As(err, &ce):
			return c.JSON(http.StatusUnprocessableEntity, map[string]any{"errors": []codeErrorJSON{{Field: "source", Message: ce.Msg, Line: ce.Line, Col: ce.Col}}})
		case firstFieldError(err) != nil:
			fe := firstFieldError(err)
			return c.JSON(http.StatusBadRequest, present.APIError("params", fe.Field+": "+fe.Message))
		case err != nil:
			return Refusal(err)
		}
		u := h.base + "/workbench/s/" + sub.Hash
		if ch.q != nil && ch.q.Params != "" {
			u += "?" + ch.q.Params
		}
		return c.JSON(http.StatusOK, SubmissionJSON{Seq: seq, Hash: sub.Hash, URL: u, Verdict: verdictJSONOf(sub.Verdict)})
	}
}

// barKey is where Bar leaves the bar's view in the request's echo.Context, so that the workbench's
// form, drawn in the same request, finds the round without reading the room again.
const barKey = "roomsweb.bar"

// WorkbenchRound is the handler round the visitor may submit the workbench's handler to: their
// current room's newest round, when it is a handler round taking submissions and they are a
// member of the room; nil otherwise. It reads the view the request's room bar was drawn from.
func (h *Handlers) WorkbenchRound(c echo.Context) *pages.WorkbenchRound {
	v, ok := c.Get(barKey).(*pages.RoomView)
	if !ok {
		v = h.Bar(c, h.site(""))
	}
	if v == nil || !v.IsMember() {
		return nil
	}
	rd := openHandler(v)
	if rd == nil {
		return nil
	}
	return &pages.WorkbenchRound{Action: v.Action("/rounds/" + strconv.Itoa(rd.Seq) + "/submission"), Seq: rd.Seq,
		Room: v.Room.Title, Params: pages.ChallengeParams(rd.Question.Params)}
}
