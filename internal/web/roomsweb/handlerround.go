package roomsweb

// Handler rounds: the host puts a workbench challenge to the room (a template, the parameters a
// handler must survive, a reference handler), members submit a handler from the workbench, and
// the server checks it at the round's parameters. The rooms run no Starlark: a check is the
// workbench's (HandlerChecks, which the site hands over), admitted and cached as every check is.

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/rooms"
	"effectivelyonce/workbench"
)

// HandlerChecks are what handler rounds need of the workbench (the site hands over
// workbenchweb's). With a nil Check, no handler round can be checked or revealed.
type HandlerChecks struct {
	// Check checks source at params (a workbench permalink's query), admitted as a check is
	// (charged to the client of ctx), one flight per handler and parameters, kept in the result
	// cache. A mistake in the handler is a *workbench.CodeError.
	Check func(ctx context.Context, source, params string) (workbench.Result, error)
	// Answer draws the workbench's answer to a submission from its form: for htmx the result
	// panel, otherwise the whole workbench page, the editor keeping the member's handler.
	Answer func(c echo.Context, status int, a pages.RoundAnswer) error
}

// handlerIn is what opens a handler round: {"kind":"handler","template","params","reference",
// "seconds"}, params as a workbench permalink writes them, reference a template (empty: the
// one workbench.ReferenceFor suggests).
type handlerIn struct {
	Template, Params, Reference string
}

// openIn is the body of "POST /api/rooms/:code/rounds": a question of one of the kinds roundIn
// reads, or a handler challenge ("kind": "handler").
type openIn struct {
	roundIn
	Kind      string `json:"kind"`
	Template  string `json:"template"`
	Reference string `json:"reference"`
}

// question reads the round's question from an API body, checked now (see checkedQuestion).
func (h *Handlers) question(ctx context.Context, in openIn) (rooms.Question, error) {
	switch in.Kind {
	case "", string(rooms.KindPrediction), string(rooms.KindMeasure), string(rooms.KindCustom):
		return h.checkedQuestion(ctx, in.roundIn)
	case string(rooms.KindHandler):
		q, err := handlerQuestion(handlerIn{Template: in.Template, Params: in.Params, Reference: in.Reference})
		return q, refusal(err)
	}
	return rooms.Question{}, Refusal(&rooms.FieldError{Field: "kind", Err: rooms.ErrInvalid,
		Message: "a round's kind is prediction, measure, custom or handler"})
}

// refusal is Refusal for an error that may be nil.
func refusal(err error) error {
	if err == nil {
		return nil
	}
	return Refusal(err)
}

// handlerQuestion reads a handler challenge: the template must be one of the workbench's, the
// parameters the workbench's own (over the template's, as its permalinks read), each refused one
// named, and the reference a template too. The challenge is worded here, once.
func handlerQuestion(in handlerIn) (rooms.Question, error) {
	t, ok := workbench.LookupTemplate(strings.TrimSpace(in.Template))
	if !ok {
		return rooms.Question{}, &rooms.FieldError{Field: "template", Err: rooms.ErrInvalid,
			Message: "no workbench template of this name; the templates are " + strings.Join(templateNames(), ", ")}
	}
	params, err := challengeParams(t, in.Params)
	if err != nil {
		return rooms.Question{}, err
	}
	ref := strings.TrimSpace(in.Reference)
	if ref == "" {
		ref = workbench.ReferenceFor(t.Name)
	} else if _, ok := workbench.LookupTemplate(ref); !ok {
		return rooms.Question{}, &rooms.FieldError{Field: "reference", Err: rooms.ErrInvalid,
			Message: "the reference is a workbench template: " + strings.Join(templateNames(), ", ")}
	}
	return rooms.Question{Kind: rooms.KindHandler, Template: t.Name, Reference: ref, Params: params,
		Text: challengeText(params)}, nil
}

// challengeText is a handler round's question: the parameters it must survive, or, for a
// template that sets none, the workbench's defaults said as a sentence rather than after a colon.
func challengeText(params string) string {
	if params == "" {
		return "Write a handler that survives the workbench's default parameters"
	}
	return "Write a handler that survives: " + pages.ChallengeParams(params)
}

func templateNames() []string {
	var out []string
	for _, t := range workbench.Templates() {
		out = append(out, t.Name)
	}
	return out
}

// challengeParams reads the parameters a host typed (a query, or a workbench permalink pasted
// whole) over the template's own and checks them with the workbench's spec: the answer keeps
// every key given, each value as the workbench writes it, so that the challenge states what the
// host asked for and a check of the stored query needs no template underneath.
func challengeParams(t workbench.Template, typed string) (string, error) {
	typed = strings.TrimSpace(typed)
	if i := strings.IndexByte(typed, '?'); i >= 0 {
		typed = typed[i+1:]
	}
	given, err := url.ParseQuery(typed)
	if err != nil {
		return "", &rooms.FieldError{Field: "params", Err: rooms.ErrInvalid, Message: "the parameters are not a query string, like key_window=1000&max_delay=2000"}
	}
	raw, _ := url.ParseQuery(t.Query)
	for k, v := range given {
		raw[k] = v
	}
	p, err := workbench.Parse(raw)
	if fe := firstFieldError(err); fe != nil {
		return "", &rooms.FieldError{Field: "params", Err: rooms.ErrInvalid, Message: fe.Field + ": " + fe.Message}
	}
	if err != nil {
		return "", err
	}
	f := p.Format()
	out := url.Values{}
	for k := range raw {
		out.Set(k, f[k])
	}
	return out.Encode(), nil
}

// openHandlerRound opens a handler round from the room page's form, the refused fields reported
// as the other round forms report theirs.
func (h *Handlers) openHandlerRound(ctx context.Context, c echo.Context, who rooms.Caller) error {
	var refused []error
	q, err := handlerQuestion(handlerIn{Template: c.FormValue("template"), Params: c.FormValue("params"), Reference: c.FormValue("reference")})
	if err != nil {
		refused = append(refused, err)
	}
	seconds, err := formWhole("seconds", c.FormValue("seconds"))
	if err != nil {
		refused = append(refused, err)
	}
	if len(refused) > 0 {
		return firstInForm(refused, []string{"template", "params", "reference", "seconds"})
	}
	if n, ok := h.noneSurvive(q.Params); ok && c.FormValue("confirmed") != "yes" {
		return h.askNoneSurvive(c, who, n)
	}
	_, err = h.rooms.OpenRoundWith(ctx, who, q, rooms.RoundOptions{Seconds: seconds})
	return err
}

// askNoneSurvive answers the host's form when no handler can survive the challenge's parameters:
// it says so and why, and lets the host open it anyway (the same form, confirmed=yes) or go back
// and raise the window. It asks rather than refuses: a round the group finds impossible teaches
// block 4 too. With script the answer is the form's message, holding the button; without, a page.
func (h *Handlers) askNoneSurvive(c echo.Context, who rooms.Caller, n pages.NoneSurvive) error {
	c.Response().Header().Set("Cache-Control", "no-store")
	if web.HTMXOf(c.Request()).Active {
		return web.Render(c, http.StatusUnprocessableEntity, pages.HandlerRoundWarning(n))
	}
	form, err := c.FormParams()
	if err != nil {
		return err
	}
	site := h.site("")
	site.InRoom = true
	v := pages.HandlerRoundAskView{Site: site, Title: who.Room.Title, None: n, Action: c.Request().URL.Path, Back: site.URL("/rooms/" + who.Room.ID)}
	for _, k := range slices.Sorted(maps.Keys(form)) {
		if k != "confirmed" {
			v.Fields = append(v.Fields, pages.Hidden{Name: k, Value: form.Get(k)})
		}
	}
	return web.Render(c, http.StatusOK, pages.Layout(site, who.Room.Title, pages.HandlerRoundAsk(v)))
}

// noneSurvive is workbench.NoHandlerSurvives at a challenge's parameters (a permalink's query),
// with block 4's link. Every screen of a revealed round asks it, so the answers are kept
// (h.forgets): a room's rounds reuse few parameters.
func (h *Handlers) noneSurvive(params string) (pages.NoneSurvive, bool) {
	e, ok := h.forgets.Get(params)
	if !ok {
		raw, err := url.ParseQuery(params)
		if err != nil {
			return pages.NoneSurvive{}, false
		}
		p, err := workbench.Parse(raw)
		if err != nil {
			return pages.NoneSurvive{}, false
		}
		// A bounded computation (a window over at most workbench.MaxJobs jobs, milliseconds),
		// asked of every view, so it runs to its end rather than under a request's context.
		f, none, err := workbench.NoHandlerSurvives(context.Background(), p)
		if err != nil {
			return pages.NoneSurvive{}, false
		}
		e = forgetEntry{f, none}
		h.forgets.Put(params, e)
	}
	if !e.none {
		return pages.NoneSurvive{}, false
	}
	return pages.NoneSurvive{Forgetting: e.f, Block4URL: h.site("").URL("/blocks/4") + "?" + e.f.Block4}, true
}

// forgetEntry is what noneSurvive keeps of a challenge's parameters.
type forgetEntry struct {
	f    workbench.Forgetting
	none bool
}

// checker is the server's rooms.Checker, over the workbench's check, and its Measurer (a round's
// reveal takes one). It keeps what it last checked, for the answer that shows it.
type checker struct {
	rooms.Measurer
	h   *Handlers
	q   *rooms.Question
	res *workbench.Result
}

// Check checks source at q's parameters (the round's, never a member's).
func (ch *checker) Check(ctx context.Context, q rooms.Question, source string) (rooms.Verdict, error) {
	ch.q = &q
	res, err := ch.h.check(ctx, source, q.Params)
	if err != nil {
		return rooms.Verdict{}, err
	}
	ch.res = &res
	return verdictOf(res), nil
}

// Reference checks the round's reference handler at its parameters.
func (ch *checker) Reference(ctx context.Context, q rooms.Question) (rooms.Verdict, error) {
	t, ok := workbench.LookupTemplate(q.Reference)
	if !ok {
		return rooms.Verdict{}, &rooms.FieldError{Field: "reference", Err: rooms.ErrInvalid, Message: "the round's reference is no workbench template"}
	}
	return ch.Check(ctx, q, t.Source)
}

// check is the workbench's check, or a refusal when this server was given none.
func (h *Handlers) check(ctx context.Context, source, params string) (workbench.Result, error) {
	if h.checks.Check == nil {
		return workbench.Result{}, &web.Error{Status: http.StatusServiceUnavailable, Msg: "This server checks no handlers."}
	}
	return h.checks.Check(ctx, source, params)
}

// verdictOf is a check in the numbers a room keeps: crash points survived, and what the others
// cost summed over them.
func verdictOf(res workbench.Result) rooms.Verdict {
	v := rooms.Verdict{Points: len(res.Points), Survives: res.Verdict.Survives}
	var events int64
	for _, p := range res.Points {
		if p.Survives {
			v.Survived++
		}
		v.Lost += p.Lost
		v.Duplicated += p.Duplicated
		for _, e := range []*int64{p.EventsLost, p.EventsPhantom, p.EventsDuplicated} {
			if e != nil {
				events += *e
			}
		}
	}
	if res.Publishes {
		v.Events = &events
	}
	return v
}

// challengeTemplates are the workbench's templates as the host's form offers them.
func challengeTemplates() []pages.ChallengeTemplate {
	var out []pages.ChallengeTemplate
	for _, t := range workbench.Templates() {
		out = append(out, pages.ChallengeTemplate{Name: t.Name, Title: t.Title, Summary: t.Summary})
	}
	return out
}

// addHandlerParts gives a view whose newest round is a handler round what it draws beside the
// rooms' view: the template's title and the workbench link at the round's parameters, and the
// reference's title (for whoever may know it) and, once revealed, its source and whether any
// handler could survive the round's parameters.
func (h *Handlers) addHandlerParts(v *pages.RoomView) {
	rd := v.Current()
	if rd == nil || rd.Handler == nil {
		return
	}
	q := rd.Question
	p := &pages.HandlerRoundParts{Seq: rd.Seq}
	if t, ok := workbench.LookupTemplate(q.Template); ok {
		p.TemplateTitle = t.Title
		p.WorkbenchURL = v.Site.URL("/workbench") + "?template=" + url.QueryEscape(t.Name)
		if q.Params != "" {
			p.WorkbenchURL += "&" + q.Params
		}
	}
	if t, ok := workbench.LookupTemplate(q.Reference); ok {
		p.ReferenceTitle = t.Title
		if rd.State == rooms.RoundRevealed {
			p.ReferenceSource = t.Source
		}
	}
	if rd.State == rooms.RoundRevealed {
		if n, ok := h.noneSurvive(q.Params); ok {
			p.NoneSurvive = &n
		}
	}
	v.Handlers = p
}

// projectorRound is a handler round as the projector may show it: no control's ids, no share a
// member did not hand out, names only where the host shows them to members, and the reference
// unnamed until the reveal.
func projectorRound(rd rooms.RoundView) rooms.RoundView {
	h := rd.Handler
	if h == nil {
		return rd
	}
	out := *h
	out.Yours = nil
	out.Submissions = make([]rooms.SubmissionView, 0, len(h.Submissions))
	for _, s := range h.Submissions {
		s.MemberID, s.Hash = "", ""
		if !rd.NamesVisible {
			s.Name = ""
		}
		out.Submissions = append(out.Submissions, s)
	}
	if !rd.NamesVisible {
		out.ShownName = ""
	}
	out.ShownHash = ""
	if rd.State != rooms.RoundRevealed {
		rd.Question.Reference = ""
	}
	rd.Handler = &out
	return rd
}

// addShown draws the handler the host puts on the projector: its source and its check at the
// round's parameters, which showing it made (so this is the result cache's, not a new check).
func (h *Handlers) addShown(ctx context.Context, v *pages.RoomView) {
	rd := v.Current()
	if rd == nil || rd.Handler == nil || rd.State != rooms.RoundRevealed || rd.Handler.Shown == "" || v.Handlers == nil {
		return
	}
	q, hv := rd.Question, rd.Handler
	s := &pages.ShownHandler{Title: "A handler submitted", Source: hv.ShownSource}
	switch {
	case hv.Shown == rooms.ShownReference:
		t, _ := workbench.LookupTemplate(q.Reference)
		s.Title, s.Source = "The reference handler: "+t.Title, t.Source
	case hv.ShownName != "":
		s.Title = hv.ShownName + "'s handler"
	}
	if s.Source == "" {
		s.Problem = "Its source cannot be read just now."
	} else if res, err := h.check(ctx, s.Source, q.Params); err != nil {
		s.Problem = "Its check is not at hand just now; show it again in a moment."
	} else {
		r := pages.NewWorkbenchResult(res, "", workbench.SourceHash(s.Source))
		s.Result = &r
	}
	v.Handlers.Shown = s
}

// ShowOnProjector handles "POST /rooms/:id/rounds/:seq/projector": the host puts a revealed
// round's handler on the projector; shown is a member's id, "reference", or "" to take it off.
func (h *Handlers) ShowOnProjector() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		return h.rooms.ShowOnProjector(ctx, who, seq, c.FormValue("shown"), &checker{h: h})
	})
}

// openHandler is the newest round of a view when it is a handler round taking submissions.
func openHandler(v *pages.RoomView) *rooms.RoundView {
	rd := v.Current()
	if rd == nil || rd.Handler == nil || rd.State != rooms.RoundOpen || v.Room.Closed {
		return nil
	}
	return rd
}

// firstFieldError is the first of a parameter refusal's fields, nil for another error.
func firstFieldError(err error) *experiments.FieldError {
	var fe experiments.FieldErrors
	if errors.As(err, &fe) && len(fe) > 0 {
		return &fe[0]
	}
	return nil
}
