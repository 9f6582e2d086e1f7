package experiments

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
)

// Experiment is one simulation and every fact the site needs of it: the parameter spec, the run,
// its cost and memory, the counts it reports, the tracer that lists and replays its jobs, the
// prediction questions it answers and, for a verifier, the searches for its failing cases and the
// run whose timelines tell their culprits. All of them are given in the experiment's one
// definition (its xxxExperiment function, listed in catalog.go), typed on its own Params and
// Result, so a new experiment is priced, counted and traced in one place. Params and results
// travel as any so that routes, forms and the CLI treat every experiment alike; the assertions
// back to the typed parts happen here and nowhere else.
type Experiment struct {
	Name    string  `json:"name"`
	Title   string  `json:"title"`
	Summary string  `json:"summary"`
	Fields  []Field `json:"fields"`

	defaults func() any
	run      func(context.Context, any) (any, error)
	cost     func(any) int64
	levers   []lever

	paramsType, resultType reflect.Type
	memory                 func(any) int64
	counts                 func(any) []Count
	pointKind              PointKind
	tracer                 *tracer
	// noJobs says why an experiment without a tracer has none; one of tracer and noJobs is set.
	noJobs  string
	answers []answer
	// headline picks the count a reader guesses before the block shows the run (see Headline).
	headline func(params, result any, row string) (pointAt, string, bool)
	shrinks  func(params, result any) []func(context.Context) Shrunk
	// culprits names the run whose timelines tell a failing case's culprits (see CulpritRun).
	culprits func(Shrunk) (string, url.Values, bool)
	// wrong lists the parts given for another experiment's types, found when the catalog is built.
	wrong []string
}

// answer is one prediction question an experiment answers, and how a run measures it.
type answer struct {
	Question
	measure func(params, result any) (int64, bool)
}

// Question is a "predict before you read" question: its id (q1, q2, ... in the order
// content/predictions.md asks them, which holds the wording), the path of the page whose block
// answers it, and what its number counts. A question is always answered by its experiment at the
// document's values, the parameters its wording states: a reader's run at other values answers a
// different question.
type Question struct {
	ID   string
	Page string
	Unit string
}

// definition is an experiment being defined: its methods add the typed parts one by one, each
// checked by the compiler against the experiment's own P and R.
type definition[P, R any] struct{ e *Experiment }

// define starts a definition from its spec, run and cost. cost returns the run's work units;
// levers are the parameters that cost grows with, one of which a refused run's message will point
// at. The other parts are added with the definition's methods, and build returns the Experiment.
func define[P, R any](name, title, summary string, fields []Field, defaults func() P,
	run func(context.Context, P) (R, error), cost func(P) int64, levers ...lever) *definition[P, R] {
	e := &Experiment{
		Name: name, Title: title, Summary: summary, Fields: slices.Clone(fields),
		paramsType: reflect.TypeFor[P](), resultType: reflect.TypeFor[R](),
		levers: levers,
	}
	if defaults != nil {
		e.defaults = func() any { return defaults() }
	}
	if run != nil {
		e.run = func(ctx context.Context, p any) (any, error) { return run(ctx, p.(P)) }
	}
	if cost != nil {
		e.cost = func(p any) int64 { return cost(p.(P)) }
	}
	if e.defaults != nil && e.cost != nil {
		e.mustBind()
		e.fitRanges()
	}
	return &definition[P, R]{e}
}

// memory sets the estimate, in bytes, of the most memory a run holds at once: the run admission
// adds these up so that the heavy runs admitted together fit under the server's memory limit. Each
// is an upper bound of the bytes the run allocates in all (TestMemoryEstimates holds it there).
func (d *definition[P, R]) memory(f func(P) int64) *definition[P, R] {
	d.e.memory = func(p any) int64 { return f(p.(P)) }
	return d
}

// counts sets the numbers a result's charts and tables report (see Count), and the kind of points
// they stand at.
func (d *definition[P, R]) counts(kind PointKind, f func(R) []Count) *definition[P, R] {
	d.e.pointKind = kind
	d.e.counts = func(r any) []Count {
		if typed, ok := r.(R); ok {
			return f(typed)
		}
		return nil
	}
	return d
}

// traced sets the tracer that lists and replays the jobs behind the counts.
func (d *definition[P, R]) traced(t *tracer) *definition[P, R] {
	if want := reflect.TypeFor[P](); t.params != want {
		d.e.wrong = append(d.e.wrong, fmt.Sprintf("its tracer replays %s, not %s", t.params, want))
	}
	d.e.tracer = t
	return d
}

// untraced says why the experiment has no jobs to list: its reader is told so.
func (d *definition[P, R]) untraced(why string) *definition[P, R] {
	d.e.noJobs = why
	return d
}

// answers adds a prediction question the experiment answers: measure is its value on a run, or
// false when the run is not the one the question's wording states.
func (d *definition[P, R]) answers(q Question, measure func(P, R) (int64, bool)) *definition[P, R] {
	d.e.answers = append(d.e.answers, answer{q, func(p, r any) (int64, bool) {
		tp, okP := p.(P)
		tr, okR := r.(R)
		if !okP || !okR {
			return 0, false
		}
		return measure(tp, tr)
	}})
	return d
}

// headline sets the count a reader who hides results until they guess is asked for first: f
// names its point and count's name on a run, given the named row the page is about ("" where the
// page names none). See headlines.go.
func (d *definition[P, R]) headline(f func(p P, r R, row string) (pointAt, string)) *definition[P, R] {
	d.e.headline = func(params, result any, row string) (pointAt, string, bool) {
		tp, okP := params.(P)
		tr, okR := result.(R)
		if !okP || !okR {
			return pointAt{}, "", false
		}
		at, name := f(tp, tr, row)
		return at, name, true
	}
	return d
}

// shrinks sets, for an experiment that checks claims, the searches for the smallest failing case
// of each claim a run broke.
func (d *definition[P, R]) shrinks(f func(P, R) []func(context.Context) Shrunk) *definition[P, R] {
	d.e.shrinks = func(p, r any) []func(context.Context) Shrunk {
		tp, okP := p.(P)
		tr, okR := r.(R)
		if !okP || !okR {
			return nil
		}
		return f(tp, tr)
	}
	return d
}

// build ends the definition.
func (d *definition[P, R]) build() *Experiment { return d.e }

// Lacks lists every part the experiment's definition is missing or has given for another
// experiment's types, in words that say where to add it; nil for a whole definition. The tests
// print every experiment's lacks in one message, so a new experiment learns all it needs at once.
func (e *Experiment) Lacks() []string {
	var out []string
	if e.Title == "" || e.Summary == "" {
		out = append(out, "a title and a summary")
	}
	if e.defaults == nil || len(e.Fields) == 0 {
		out = append(out, "parameters (fields and defaults)")
	}
	if e.run == nil {
		out = append(out, "a run")
	}
	if e.cost == nil {
		out = append(out, "a cost (define's cost)")
	}
	if e.memory == nil {
		out = append(out, "a memory estimate (.memory)")
	}
	if e.counts == nil {
		out = append(out, "its counts (.counts)")
	}
	if e.tracer == nil && e.noJobs == "" {
		out = append(out, "a tracer (.traced), or why it has none (.untraced)")
	}
	if e.tracer != nil && e.noJobs != "" {
		out = append(out, "both a tracer and a reason to have none")
	}
	if e.headline == nil {
		out = append(out, "a headline, the count a reader guesses before the result shows (.headline)")
	}
	if e.shrinks != nil && e.culprits == nil {
		out = append(out, "the run its failing cases' culprits are traced in (.culprits)")
	}
	if e.culprits != nil && e.shrinks == nil {
		out = append(out, "the searches for failing cases whose culprits .culprits traces (.shrinks)")
	}
	for _, a := range e.answers {
		if a.ID == "" || a.Page == "" || a.Unit == "" {
			out = append(out, fmt.Sprintf("an id, a page and a unit for its question %q (.answers)", a.ID))
		}
	}
	return append(out, e.wrong...)
}

// lacksOf says every lack of every experiment in list, one line each, or "" when none lacks a part.
func lacksOf(list []*Experiment) string {
	var lines []string
	for _, e := range list {
		if l := e.Lacks(); len(l) > 0 {
			lines = append(lines, e.Name+" lacks "+strings.Join(l, "; "))
		}
	}
	return strings.Join(lines, "\n")
}

// ParamsType and ResultType are the experiment's own Params and Result types: a presenter
// written for other types is found when the catalog is checked, not at a request.
func (e *Experiment) ParamsType() reflect.Type { return e.paramsType }

// ResultType is the type a run of the experiment returns (see ParamsType).
func (e *Experiment) ResultType() reflect.Type { return e.resultType }

// Counts lists the numbers a result of e reports, point by point in the result's own order, each
// point's counts in a fixed order; a value of another type has none.
func (e *Experiment) Counts(result any) []Count {
	if e.counts == nil {
		return nil
	}
	return e.counts(result)
}

// PointKind is the kind of points e's counts stand at.
func (e *Experiment) PointKind() PointKind { return e.pointKind }

// Memory estimates, in bytes, the most memory a run of e on params holds at once (see memory).
func (e *Experiment) Memory(params any) int64 {
	if e.memory == nil {
		return smallRun // unreachable for the catalog's experiments: TestEveryDefinitionIsWhole
	}
	return e.memory(params)
}

// Questions returns the prediction questions e answers, in the order it defines them.
func (e *Experiment) Questions() []Question {
	qs := make([]Question, len(e.answers))
	for i, a := range e.answers {
		qs[i] = a.Question
	}
	return qs
}

// Questions returns every prediction question the catalog's experiments answer, in the order of
// the catalog and of each definition, which is the order the questions are asked in (q1, q2, ...;
// TestEveryDefinitionIsWhole holds it).
func Questions() []Question {
	var out []Question
	for _, e := range catalog() {
		out = append(out, e.Questions()...)
	}
	return out
}

// Answer measures prediction question id on a run of e: false when e does not answer it, or
// when the run is not the one the question's wording states.
func (e *Experiment) Answer(id string, params, result any) (int64, bool) {
	for _, a := range e.answers {
		if a.ID == id {
			return a.measure(params, result)
		}
	}
	return 0, false
}

// Answering returns the experiment of the catalog that answers prediction question id.
func Answering(id string) (*Experiment, bool) {
	for _, e := range catalog() {
		if slices.ContainsFunc(e.answers, func(a answer) bool { return a.ID == id }) {
			return e, true
		}
	}
	return nil, false
}

// Headline is the number a reader who hides results until they guess is asked for before a run of
// e shows: one of the run's Counts, at the point its definition names for the page's row (a
// marker's focus=, "" for none). false when the run reports no such count (a sweep given no
// points), or for a value of another type.
func (e *Experiment) Headline(params, result any, row string) (Count, bool) {
	if e.headline == nil {
		return Count{}, false
	}
	at, name, ok := e.headline(params, result, row)
	if !ok {
		return Count{}, false
	}
	for _, c := range e.Counts(result) {
		if c.Point == at.label && c.Name == name {
			return c, true
		}
	}
	return Count{}, false
}

// Shrinks returns one search per claim a run of e broke, each finding the claim's smallest
// failing case within ShrinkBudget; nil for an experiment that checks no claims, or when every
// claim held.
func (e *Experiment) Shrinks(params, result any) []func(context.Context) Shrunk {
	if e.shrinks == nil {
		return nil
	}
	return e.shrinks(params, result)
}
