package present

import (
	"fmt"
	"reflect"
	"sync"

	"effectivelyonce/experiments"
)

// Presenter shows the runs of one experiment: its charts, its tables (which are also the CSV and the
// command line's output) and the reading written from the numbers. Each experiment has exactly
// one, listed in presenters below, the way experiments/catalog.go lists the experiments' definitions
// (which hold every fact of a run, the prediction questions it answers among them); a test names
// every part an experiment lacks on either side.
type Presenter struct {
	// Experiment is the name of the experiment this presenter shows.
	Experiment string

	charts func(domID string, params, result any) ([]Chart, error)
	// focusCharts draws the charts with one row marked ("" marks none).
	focusCharts func(domID, focus string, params, result any) ([]Chart, error)
	// rowKeys and upTo are set for an experiment whose rows a marker can name (see Scope).
	rowKeys func() []string
	upTo    func(result any, key string) (any, error)
	tables  func(params, result any) ([]Table, error)
	reading func(params, result any) ([]string, error)
	// point, rowWord, band, counts, countsOf, units, ids and noPageSpread are shows' own (see there).
	point        func(experiments.Point) string
	rowWord      string
	band         *bandAxis
	counts       map[string]string
	countsOf     string
	units        map[string]string
	ids          string
	noPageSpread bool
	// ask words the headline's question and asks names the parameters it states (see asking).
	ask  func(params, result any, at experiments.Count) (string, error)
	asks []string
	// opening is shows' opening number, on any (nil when the shows have none).
	opening func(params, result any) (Opening, bool)
	// params and result are the types the presenter is written for.
	params, result reflect.Type
}

// shows is one experiment's presenter as it is written: typed on the experiment's own Params and
// Result, so that the assertions from any happen in one place (present) and nowhere else.
type shows[P, R any] struct {
	// charts may be nil for a result a table says best (the verifier, the scale figures).
	charts  func(domID string, p P, r R) []Chart
	tables  func(p P, r R) []Table
	reading func(p P, r R) []string
	// focusCharts, when set, draws the charts with the row a page is about marked; charts is then
	// focusCharts with no row marked.
	focusCharts func(domID string, p P, r R, focus string) []Chart
	// rows may be nil: only an experiment whose rows a page shows in part has it (see Scope).
	rows *scoping[R]
	// point names a point the experiment's counts stand at, from its values, for a heading
	// ("window 1,000", "timeout 5 s", "outbox, consumer with dedup"), and rowWord puts a count in
	// its row before that name, in words that follow the count's unit ("escaped duplicates at
	// window 1,000", "jobs lost with design at-most-once"). Both are needed by an experiment whose
	// counts stand at points (experiments.PointKind), and by no other.
	point   func(experiments.Point) string
	rowWord string
	// band is the x axis a spread over seeds draws a sweep's counts on, as the experiment's own
	// chart draws them; needed by an experiment whose counts are a sweep and that has seeds.
	band *bandAxis
	// counts names the counts whose words are not their names with spaces for underscores, as
	// the experiment's own table heads them (the lease's policies: "renew at t/3"), and countsOf,
	// when set, is what those counts count, for a chart's title ("Jobs run twice (renew at t/3)").
	counts   map[string]string
	countsOf string
	// units says what the experiment's counts count where that is not what a count of the name
	// counts elsewhere (countUnits): the outbox loses events, not jobs.
	units map[string]string
	// ids is what the ids of a run number, where they number something else than jobs (the
	// outbox's number events): a "which jobs?" link asks "which events?" (see IDsNoun).
	ids string
	// opening is the number the reading opens with where no count says it (the jobs that crashed,
	// the slowest job's seconds): a study room asks about it as about a count (see ReportedBy).
	// Nil where the reading opens with a count, or with no number of the run's own.
	opening func(p P, r R) Opening
	// noPageSpread says the experiment's block offers no spread over seeds on its page, though it
	// draws at random: the verifier answers whether each claim holds on the reader's stream, with
	// its own checks and smallest failing cases, and draws no chart a band could go on, so a field
	// that changed nothing there would be a lie. The API still gives its counts over N seeds.
	noPageSpread bool
	// ask is the question that asks a reader for the experiment's headline (experiments'
	// .headline) before its block shows the run; every experiment needs one.
	ask *asking[P, R]
}

// bandAxis is the x axis of a spread's lines: its name, the format of its labels, and the span
// (largest over smallest value) from which it turns logarithmic (see sweepAxis).
type bandAxis struct {
	name, format string
	ratio        float64
}

// byName is the point of a named row in words: its name, as the row's first cell writes it.
func byName(p experiments.Point) string { return p.Name }

// present wraps typed parts as a Presenter.
func present[P, R any](name string, s shows[P, R]) *Presenter {
	pair := func(params, result any) (P, R, error) {
		p, okP := params.(P)
		r, okR := result.(R)
		if !okP || !okR {
			return p, r, fmt.Errorf("presenter %q: given %T and %T, wants %T and %T", name, params, result, p, r)
		}
		return p, r, nil
	}
	if s.focusCharts != nil {
		s.charts = func(domID string, p P, r R) []Chart { return s.focusCharts(domID, p, r, "") }
	}
	pr := &Presenter{
		Experiment: name,
		charts: func(domID string, params, result any) ([]Chart, error) {
			p, r, err := pair(params, result)
			if err != nil || s.charts == nil {
				return nil, err
			}
			return s.charts(domID, p, r), nil
		},
		focusCharts: func(domID, focus string, params, result any) ([]Chart, error) {
			p, r, err := pair(params, result)
			if err != nil || s.charts == nil {
				return nil, err
			}
			if focus != "" && s.focusCharts != nil {
				return s.focusCharts(domID, p, r, focus), nil
			}
			return s.charts(domID, p, r), nil
		},
		tables: func(params, result any) ([]Table, error) {
			p, r, err := pair(params, result)
			if err != nil {
				return nil, err
			}
			return s.tables(p, r), nil
		},
		reading: func(params, result any) ([]string, error) {
			p, r, err := pair(params, result)
			if err != nil {
				return nil, err
			}
			return s.reading(p, r), nil
		},
		point: s.point, rowWord: s.rowWord, band: s.band, counts: s.counts, countsOf: s.countsOf, units: s.units,
		ids: s.ids, noPageSpread: s.noPageSpread,
		params: reflect.TypeFor[P](), result: reflect.TypeFor[R](),
	}
	if s.ask != nil {
		pr.asks = s.ask.says
		pr.ask = func(params, result any, at experiments.Count) (string, error) {
			p, r, err := pair(params, result)
			if err != nil {
				return "", err
			}
			return s.ask.words(p, r, at), nil
		}
	}
	if s.opening != nil {
		pr.opening = func(params, result any) (Opening, bool) {
			p, r, err := pair(params, result)
			if err != nil {
				return Opening{}, false
			}
			return s.opening(p, r), true
		}
	}
	if s.rows != nil {
		pr.rowKeys = s.rows.keys
		pr.upTo = func(result any, key string) (any, error) {
			r, ok := result.(R)
			if !ok {
				var want R
				return nil, fmt.Errorf("presenter %q: given %T, wants %T", name, result, want)
			}
			return s.rows.upTo(r, key), nil
		}
	}
	return pr
}

// presenters is every experiment's presenter, built once.
var presenters = sync.OnceValue(func() map[string]*Presenter {
	all := []*Presenter{
		present("assembly", assemblyShows),
		present("crash-sweep", crashSweepShows),
		present("keys", keysShows),
		present("window", windowShows),
		present("window-grid", windowGridShows),
		present("window-time", windowTimeShows),
		present("orderings", orderingsShows),
		present("lease", leaseShows),
		present("claims", claimsShows),
		present("scale", scaleShows),
		present("outbox", outboxShows),
	}
	m := make(map[string]*Presenter, len(all))
	for _, p := range all {
		m[p.Experiment] = p
	}
	return m
})

// PresenterFor returns the presenter of the named experiment.
func PresenterFor(name string) (*Presenter, bool) {
	p, ok := presenters()[name]
	return p, ok
}

// PresenterOf returns the presenter of e, or an error naming the experiment that has none.
func PresenterOf(e *experiments.Experiment) (*Presenter, error) {
	if p, ok := PresenterFor(e.Name); ok {
		return p, nil
	}
	return nil, fmt.Errorf("experiment %q has no presenter in pages", e.Name)
}

// Charts draws a run; domID prefixes the chart ids so two experiments on one page never collide.
func (p *Presenter) Charts(domID string, params, result any) ([]Chart, error) {
	return p.charts(domID, params, result)
}

// Tables lays a run out as tables.
func (p *Presenter) Tables(params, result any) ([]Table, error) { return p.tables(params, result) }

// Reading writes the "what the numbers say" paragraphs for a run. It is generated from the result
// actually computed, never from the documents' published numbers, so that the prose beside a chart
// stays true when the reader changes the parameters.
func (p *Presenter) Reading(params, result any) ([]string, error) { return p.reading(params, result) }

// Lacks lists what the presenter of e lacks or gets wrong, in words, beside e's own definition:
// nil when the experiment is shown whole. TestEveryExperimentIsWhole prints every experiment's in
// one message.
func Lacks(e *experiments.Experiment) []string {
	p, _ := PresenterFor(e.Name)
	return lacks(e, p)
}

// lacks is Lacks of e shown by p (nil for none).
func lacks(e *experiments.Experiment, p *Presenter) []string {
	out := e.Lacks()
	if p == nil {
		return append(out, "a presenter (present/presenter.go)")
	}
	if p.params != e.ParamsType() || p.result != e.ResultType() {
		out = append(out, fmt.Sprintf("a presenter for its own types: it shows %s and %s, the run has %s and %s",
			p.params, p.result, e.ParamsType(), e.ResultType()))
	}
	atPoints := e.PointKind() != experiments.WholeRun
	if atPoints && (p.point == nil || p.rowWord == "") {
		out = append(out, fmt.Sprintf("words for the points its counts stand at, %s (shows' point and rowWord)", e.PointKind()))
	}
	if !atPoints && (p.point != nil || p.rowWord != "") {
		out = append(out, "no words for points: its counts are of the whole run")
	}
	if e.PointKind() == experiments.Sweep && experiments.Spreadable(e) && p.band == nil {
		out = append(out, "the x axis a spread over seeds draws its sweep on (shows' band)")
	}
	if p.noPageSpread && !experiments.Spreadable(e) {
		out = append(out, "no noPageSpread: it has no seeds to spread over")
	}
	if p.ask == nil {
		out = append(out, "the question that asks for its headline before the result shows (shows' ask)")
	}
	if p.countsOf != "" && len(p.counts) == 0 {
		out = append(out, "the counts' words that countsOf titles (shows' counts)")
	}
	return out
}

// PageSpreads reports whether the experiment's block on a page offers a spread over seeds (see
// shows' noPageSpread); whether it draws at random at all is experiments.Spreadable's to say.
func (p *Presenter) PageSpreads() bool { return !p.noPageSpread }

// PointWords names a point of the experiment's counts for a heading, from the point's values:
// "window 1,000", "max delay 5,000, window 500", "timeout 30 s", "outbox, consumer with dedup";
// "the run" for a count of the whole run (label "").
func (p *Presenter) PointWords(label string, at experiments.Point) string {
	if label == "" || p.point == nil {
		return "the run"
	}
	return p.point(at)
}

// PointWords names a point of the named experiment's counts, its label and its values, for a
// heading (see Presenter.PointWords); the label itself for an experiment with no presenter.
func PointWords(experiment, label string, at experiments.Point) string {
	p, ok := PresenterFor(experiment)
	if !ok {
		return label // unreachable for the catalog's experiments: TestEveryExperimentIsWhole
	}
	return p.PointWords(label, at)
}

// RowWords places a count of the named experiment in its row, in the words that follow the count
// in a sentence or a heading ("398 jobs lost" and "with design at-most-once", "at window 1,000"),
// or "in the run" for a count of the whole run. A name with no presenter (the workbench's
// handler) has its label said as it is: "at " and the label.
func RowWords(experiment, label string, at experiments.Point) string {
	p, ok := PresenterFor(experiment)
	if !ok {
		return "at " + label
	}
	if w := p.rowWords(label, at); w != "" {
		return w
	}
	return "in the run"
}

// rowWords places a count in its row, in words that follow the count's unit: "at window 1,000",
// "with design at-most-once", "" for a count of the whole run.
func (p *Presenter) rowWords(label string, at experiments.Point) string {
	if label == "" || p.point == nil {
		return ""
	}
	return p.rowWord + " " + p.point(at)
}
