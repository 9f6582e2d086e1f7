package roomsweb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/rooms"
)

// measure is the server's rooms.Measurer: the true value of a round's question, from an
// experiment rerun on the server (through the runner, so a cached run costs nothing).
//
// A prediction (q1 to q5) is measured exactly as the home page measures it: the experiment that
// answers it at the document's defaults, the value its definition's Answer gives. A
// measure question parses its stored parameters with the experiment's spec and takes the number
// it names (see reported): typed numbers of the run, never a table's text.
func (h *Handlers) measure(ctx context.Context, q rooms.Question) (float64, error) {
	switch q.Kind {
	case rooms.KindPrediction:
		if !slices.ContainsFunc(present.QuestionSpecs, func(spec present.QuestionSpec) bool { return spec.ID == q.Prediction }) {
			return 0, &rooms.FieldError{Field: "question", Message: "the question is one of q1 to q5", Err: rooms.ErrInvalid}
		}
		e, ok := experiments.Answering(q.Prediction)
		if !ok {
			return 0, fmt.Errorf("question %s: no experiment answers it", q.Prediction)
		}
		r, err := h.reported(ctx, e, e.Defaults(), q.Prediction, "")
		return r.Value, err
	case rooms.KindMeasure:
		e, p, err := parseMeasured(q)
		if err != nil {
			return 0, err
		}
		if err := h.admitRun(ctx, e, p); err != nil {
			return 0, err
		}
		r, err := h.reported(ctx, e, p, q.Measure, q.Point)
		return r.Value, err
	}
	return 0, &rooms.FieldError{Field: "measured", Message: "this question has no experiment to measure it", Err: rooms.ErrInvalid}
}

// reported runs e at p and finds the number a round names: one of the five questions' ids that
// e answers, or a count of the run at its row (present.FindReported, which
// refuses a count reported at several rows unless the row is named).
func (h *Handlers) reported(ctx context.Context, e *experiments.Experiment, p any, measure, point string) (present.Reported, error) {
	res, err := h.admit.Runner.Run(ctx, e, p)
	if err != nil {
		return present.Reported{}, err
	}
	if point == "" {
		if v, ok := e.Answer(measure, p, res); ok {
			return h.predictionReported(e, measure, float64(v)), nil
		}
	}
	r, fe := present.FindReported(present.ReportedAt(e, p, res), measure, point)
	if fe != nil {
		return present.Reported{}, &rooms.FieldError{Field: fe.Field, Message: fe.Message, Err: rooms.ErrInvalid}
	}
	return r, nil
}

// predictionReported is one of the five questions as a number e reports: its words are the
// question's title on the predictions page, its unit the question's.
func (h *Handlers) predictionReported(e *experiments.Experiment, id string, v float64) present.Reported {
	r := present.Reported{Experiment: e.Name, Measure: id, Value: v, Words: id}
	for _, spec := range present.QuestionSpecs {
		if spec.ID == id {
			r.Unit, r.Words = spec.Unit, spec.Unit
		}
	}
	return r
}

// numberChoices lists every number the experiments of a run report, for the host's round form,
// grouped by experiment: runs is each experiment with the parameters to ask at, and results the
// runs already made (an experiment absent there is left out).
func numberChoices(runs []pagePath, results map[string]any) []pages.NumberGroup {
	var groups []pages.NumberGroup
	for _, r := range runs {
		res, ok := results[r.experiment.Name]
		if !ok {
			continue
		}
		params := ownQuery(r.experiment, r.params)
		if pr, ok := present.PresenterFor(r.experiment.Name); ok {
			res = pr.Shown(r.scope, res) // the rows the page shows, and no row it keeps for later
		}
		g := pages.NumberGroup{Title: r.experiment.Title}
		if moved := present.MovedParams(r.experiment, r.params, r.experiment.Fields); moved != "" {
			g.Title += ", with " + moved
		}
		for _, n := range present.ReportedAt(r.experiment, r.params, res) {
			v := url.Values{"experiment": {r.experiment.Name}, "measure": {n.Measure}}
			if params != "" {
				v.Set("params", params)
			}
			if n.Point != "" {
				v.Set("point", n.Point)
			}
			g.Numbers = append(g.Numbers, pages.NumberChoice{Value: v.Encode(), Words: n.Words})
		}
		groups = append(groups, g)
	}
	return groups
}

// ownQuery is p as a permalink's query, with only the values that differ from e's defaults: the
// shortest parameters that run the same experiment.
func ownQuery(e *experiments.Experiment, p any) string {
	got, def := e.Format(p), e.Format(e.Defaults())
	q := url.Values{}
	for _, f := range e.Fields {
		if got[f.Name] != def[f.Name] {
			q.Set(f.Name, got[f.Name])
		}
	}
	return q.Encode()
}

// presentedNumbers are the numbers of the page the room is presenting, at its parameters, for
// the host's round form: only runs already in the cache (the presented page made them), since a
// room's page never waits for an experiment to run.
func (h *Handlers) presentedNumbers(presenting string) []pages.NumberGroup {
	return h.pageNumbers(context.Background(), presenting, false)
}

// pageNumbers are the numbers the notebook page at path (with its query) shows, by experiment:
// those of runs in the cache, and, when run is set, the others run now for the caller of ctx
// (admitted like a Run on the page, which is what the host is looking at). A page with no
// experiment, or parameters it refuses, has none.
func (h *Handlers) pageNumbers(ctx context.Context, path string, run bool) []pages.NumberGroup {
	if path == "" {
		return nil
	}
	_, page, q, problems, ok := h.notebookPage(path)
	if !ok || len(problems) > 0 {
		return nil
	}
	runs, fe := pagePathParams(page, q)
	if fe != nil {
		return nil
	}
	results := map[string]any{}
	for _, r := range runs {
		if res, ok := h.admit.Runner.Cache().Get(r.experiment.Key(r.params)); ok {
			results[r.experiment.Name] = res
			continue
		}
		if !run || h.admitRun(ctx, r.experiment, r.params) != nil {
			continue // not run now: that experiment's numbers are left out, the others listed
		}
		if res, err := h.admit.Runner.Run(ctx, r.experiment, r.params); err == nil {
			results[r.experiment.Name] = res
		}
	}
	return numberChoices(runs, results)
}

// listedNumbers are the numbers of experiment name at params (a permalink's query), for a host
// who asked the round form to list them: the host's own request, so its run is admitted and
// made like a Run on a page. A refusal is said in words for the form.
func (h *Handlers) listedNumbers(ctx context.Context, name, params string) ([]pages.NumberGroup, string) {
	e, p, err := parseMeasured(rooms.Question{Experiment: name, Params: params})
	if err == nil {
		err = h.admitRun(ctx, e, p)
	}
	var res any
	if err == nil {
		res, err = h.admit.Runner.Run(ctx, e, p)
	}
	if err != nil {
		if he, ok := Refusal(err).(*web.Error); ok {
			return nil, present.SayCap(he.Msg) + "."
		}
		return nil, "The experiment could not run now."
	}
	return numberChoices([]pagePath{{experiment: e, params: p}}, map[string]any{e.Name: res}), ""
}

// roundIn is what opens a round, from the API's JSON or a room page's form. It names one of
// the five questions ({"question":"q1"}), a number an experiment reports ({"experiment","params",
// "measure","point"}: params as a permalink's query string, measure a count's name and point its
// row, see present.Reported), or a custom question ({"text","unit","min","max"}).
type roundIn struct {
	Question   string   `json:"question"`
	Experiment string   `json:"experiment"`
	Params     string   `json:"params"`
	Measure    string   `json:"measure"`
	Point      string   `json:"point"`
	Text       string   `json:"text"`
	Unit       string   `json:"unit"`
	Min        *float64 `json:"min"`
	Max        *float64 `json:"max"`
	// Votes (1 or 2) and Seconds (0 for no countdown, else 15 to 600) are how the round runs.
	Votes   int `json:"votes"`
	Seconds int `json:"seconds"`
}

// options are how the round runs, beside what it asks.
func (in roundIn) options() rooms.RoundOptions {
	return rooms.RoundOptions{Votes: in.Votes, Seconds: in.Seconds}
}

// questionOf reads a round's question; a measure whose experiment or parameters are wrong is
// refused now rather than at the reveal, when the room is waiting for the answer.
func questionOf(in roundIn) (rooms.Question, error) {
	q := rooms.Question{Unit: in.Unit}
	if in.Min != nil {
		q.Min = *in.Min
	}
	if in.Max != nil {
		q.Max = *in.Max
	}
	switch {
	case in.Question != "":
		q.Kind, q.Prediction = rooms.KindPrediction, in.Question
	case in.Experiment != "":
		q.Kind, q.Experiment, q.Params, q.Measure, q.Point = rooms.KindMeasure, in.Experiment, in.Params, in.Measure, in.Point
		if _, _, err := parseMeasured(q); err != nil {
			return q, err
		}
	default:
		q.Kind, q.Text = rooms.KindCustom, in.Text
	}
	return q, nil
}

// checkedQuestion reads a round's question and, for an experiment's number, finds it now: a
// number the experiment does not report (or a row left unnamed) would otherwise surface only at
// the reveal, with the round locked and the room waiting. The question is worded here, once, with
// the number, its row, the experiment and its parameters, so members read what they guess. The
// run is cached, so the reveal costs nothing more.
func (h *Handlers) checkedQuestion(ctx context.Context, in roundIn) (rooms.Question, error) {
	q, err := questionOf(in)
	if err != nil || q.Kind != rooms.KindMeasure {
		return q, err
	}
	e, p, err := parseMeasured(q)
	if err != nil {
		return q, err
	}
	if err := h.admitRun(ctx, e, p); err != nil {
		return q, err
	}
	r, err := h.reported(ctx, e, p, q.Measure, q.Point)
	if err != nil {
		return q, Refusal(err)
	}
	q.Point, q.Text = r.Point, r.Question(e, p)
	if q.Unit == "" {
		q.Unit = r.Unit
	}
	return q, nil
}

// parseMeasured finds a measure question's experiment and reads its stored parameters with the
// experiment's own spec, as a permalink's would be.
func parseMeasured(q rooms.Question) (*experiments.Experiment, any, error) {
	e, ok := experiments.Lookup(q.Experiment)
	if !ok {
		return nil, nil, &web.Error{Status: http.StatusBadRequest, Msg: "no experiment of this name; GET /api/experiments lists them",
			Err: &rooms.FieldError{Field: "experiment", Message: "no experiment of this name", Err: rooms.ErrInvalid}}
	}
	vals, problems := experiments.ParseQuery(q.Params)
	if len(problems) > 0 {
		return nil, nil, &web.Error{Status: http.StatusBadRequest, Msg: "params: " + problems[0].Message,
			Err: &rooms.FieldError{Field: "params", Message: problems[0].Message, Err: rooms.ErrInvalid}}
	}
	p, err := e.Parse(vals)
	if err != nil {
		var fe experiments.FieldErrors
		if errors.As(err, &fe) && len(fe) > 0 {
			return nil, nil, &web.Error{Status: http.StatusBadRequest, Msg: "params: " + fe[0].Field + ": " + fe[0].Message,
				Err: &rooms.FieldError{Field: "params", Message: fe[0].Field + ": " + fe[0].Message, Err: rooms.ErrInvalid}}
		}
		return nil, nil, err
	}
	return e, p, nil
}
