package present

import (
	"fmt"
	"slices"
	"strings"

	"effectivelyonce/experiments"
)

// Reported is one number a run of an experiment reports, named so that a person can be asked to
// guess it: the experiment, the count (experiments.Counts' name), the row it stands in, its value,
// and the words for it. It is built from the run's typed counts, never from a table's display
// text, so the question a study room asks and the value its reveal measures are the same number.
type Reported struct {
	Experiment string
	Measure    string  // the count's name: "escaped"
	Point      string  // the row: "1000"; "" for a run that reports the count once
	Value      float64 // what the run reports
	Unit       string  // what the number counts, for a guess: "escaped duplicates"
	Words      string  // the number and its row: "escaped duplicates at window 1,000"
	// Opening marks the number the run's reading opens with that no count says (see Opening);
	// it stands at no row.
	Opening bool
	ask     string // the Opening's question, when it has words of its own
}

// countUnits say what each count counts, by count name, in every experiment whose presenter does
// not say otherwise (shows' units). A count missing here and there is a test failure
// (TestEveryCountHasWords), so a new one cannot reach a room unnamed.
var countUnits = map[string]string{
	"lost":                       "jobs lost",
	"duplicated":                 "jobs duplicated",
	"exactly_once":               "jobs applied exactly once",
	"errors":                     "errors raised",
	"ack_after_duplicated":       "jobs duplicated had the ack come after the work",
	"escaped":                    "escaped duplicates",
	"no_renewal":                 "jobs run twice without renewal",
	"renew_third":                "jobs run twice renewing at t/3",
	"renew_double":               "jobs run twice renewing at 2t (the document's count)",
	"renew_double_real":          "jobs run twice renewing at 2t (a real queue)",
	"phantom":                    "phantom events",
	"duplicate_applications":     "duplicate applications",
	"passed":                     "claims that hold",
	"crashes":                    "crashes in the stream",
	"doubles":                    "jobs run twice",
	"doubles_60s":                "jobs run twice at a 60 s timeout",
	"doubles_300s":               "jobs run twice at a 300 s timeout",
	"duplicates_per_day":         "duplicates a day",
	"seconds_between_duplicates": "seconds between two duplicates",
	"dedup_keys":                 "dedup keys held",
	"dedup_store_bytes":          "bytes of dedup store",
	"retry_peak_multiplier":      "times the usual load at a retry peak",
	"window_ids":                 "ids the window holds",
	"delay_jobs":                 "jobs between a message and its second copy",
}

// countUnit says what the count name of experiment counts, as a noun phrase.
func countUnit(experiment, name string) string {
	if p, ok := PresenterFor(experiment); ok {
		if u, ok := p.units[name]; ok {
			return u
		}
	}
	if u, ok := countUnits[name]; ok {
		return u
	}
	return countWords(experiment, name)
}

// ReportedBy lists every number a run of e reports in result, in the result's own order: its
// counts. ReportedAt adds the reading's headline, which needs the run's parameters.
func ReportedBy(e *experiments.Experiment, result any) []Reported {
	pr, ok := PresenterFor(e.Name)
	if !ok {
		return nil // unreachable for the catalog's experiments: TestEveryExperimentIsWhole
	}
	var out []Reported
	for _, c := range e.Counts(result) {
		r := Reported{Experiment: e.Name, Measure: c.Name, Point: c.Point, Value: c.Value, Unit: countUnit(e.Name, c.Name)}
		r.Words = strings.TrimSpace(r.Unit + " " + pr.rowWords(c.Point, c.At))
		out = append(out, r)
	}
	return out
}

// FindReported finds the number called measure at point among list. An empty point is enough for
// a count reported once; a count reported at several rows needs its row, and the refusal lists
// them, so that no round is ever measured on a row nobody chose.
func FindReported(list []Reported, measure, point string) (Reported, *experiments.FieldError) {
	var rows []string
	for _, r := range list {
		if r.Measure != measure {
			continue
		}
		if r.Point == point {
			return r, nil
		}
		rows = append(rows, r.Point)
	}
	switch {
	case len(rows) == 0:
		var names []string
		for _, r := range list {
			if !slices.Contains(names, r.Measure) {
				names = append(names, r.Measure)
			}
		}
		return Reported{}, &experiments.FieldError{Field: "measure", Message: fmt.Sprintf("this run reports no number called %q; it reports %s",
			experiments.Clip(measure, 40), strings.Join(names, ", "))}
	case point == "" && len(rows) == 1:
		for _, r := range list {
			if r.Measure == measure {
				return r, nil
			}
		}
	}
	return Reported{}, &experiments.FieldError{Field: "point", Message: fmt.Sprintf("%s is reported at %d rows; name one of %s",
		experiments.Clip(measure, 40), len(rows), strings.Join(rows, ", "))}
}

// Question is the question a round on r asks, in words: the number and its row, then the
// experiment and the parameters it runs at ("How many escaped duplicates at window 1,000? (Escape
// rate versus dedup window, with max redelivery delay 5,000 jobs)").
func (r Reported) Question(e *experiments.Experiment, params any) string {
	at := "at its defaults"
	if moved := MovedParams(e, params, e.Fields); moved != "" {
		at = "with " + moved
	}
	if r.ask != "" {
		return fmt.Sprintf("%s (%s, %s)", r.ask, e.Title, at)
	}
	return fmt.Sprintf("How many %s? (%s, %s)", r.Words, e.Title, at)
}

// MovedParams says in words each of fields whose value in p differs from e's default ("max
// redelivery delay 5,000 jobs; dedup windows 100, 500 ids"), or "" when none does.
func MovedParams(e *experiments.Experiment, p any, fields []experiments.Field) string {
	got, def, said := e.Format(p), e.Format(e.Defaults()), e.Say(p)
	var words []string
	for _, f := range fields {
		if got[f.Name] == def[f.Name] {
			continue
		}
		w := strings.ToLower(f.Label[:1]) + f.Label[1:] + " " + said[f.Name]
		if f.Unit != "" {
			w += " " + f.Unit
		}
		words = append(words, w)
	}
	return strings.Join(words, "; ")
}

// Opening is the number a run's reading opens with, when no count of the run is that number: the
// jobs of the stream that crashed ("398 of 20,000 jobs crashed"), the seconds the slowest job
// took. Name is what the result's JSON calls it, so a round names it as it names a count.
type Opening struct {
	Name  string
	Value float64
	Unit  string // what it counts, for a guess: "jobs crashed"
	// Ask is the question in words when "How many <unit>?" would not read ("How long did the
	// slowest job take, in seconds?"); "" for that.
	Ask string
}

// openingOf is the number the reading opens with of a run of the named experiment at params, when its
// presenter has one that is not a count.
func openingOf(experiment string, params, result any) (Reported, bool) {
	pr, ok := PresenterFor(experiment)
	if !ok || pr.opening == nil || params == nil {
		return Reported{}, false
	}
	h, ok := pr.opening(params, result)
	if !ok {
		return Reported{}, false
	}
	return Reported{Experiment: experiment, Measure: h.Name, Value: h.Value, Unit: h.Unit, Words: h.Unit, Opening: true, ask: h.Ask}, true
}

// ReportedAt lists every number a run of e at params reports, as a page shows them: the number
// its reading opens with (when no count says it), then every count, each a number a study room
// may ask about.
func ReportedAt(e *experiments.Experiment, params, result any) []Reported {
	list := ReportedBy(e, result)
	if h, ok := openingOf(e.Name, params, result); ok {
		list = append([]Reported{h}, list...)
	}
	return list
}

// crashedOpening is the opening number of a run whose reading opens with the jobs of its stream that
// crashed ("398 of 20,000 jobs crashed"): the number every count of the run is made of.
func crashedOpening(crashed int64) Opening {
	return Opening{Name: "crashed", Value: float64(crashed), Unit: "jobs crashed"}
}
