package present

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"effectivelyonce/experiments"
)

// Headline is the number a block asks a reader to guess before it shows a run, when they hide
// results until they guess: the count the experiment's definition names (experiments.Headline),
// the question in words at the run's own parameters, what the number counts, and the value as the
// verdict beside the guess writes it.
type Headline struct {
	experiments.Count
	// Question asks for the count at the run's parameters: "How many duplicates escape a window
	// of 1,000 ids when redeliveries come up to 2,000 jobs late, on 20,000 jobs with 2% crashing?"
	Question string
	// Unit is what the number counts, beside the field a guess is typed in: "escaped duplicates".
	Unit string
	// Measured is the count as GuessNumber writes it: "195".
	Measured string
}

// asking is how a presenter asks for its experiment's headline: words writes the question at a
// run's own parameters, and says lists the parameters the question states, or that the count
// does not depend on; any other the reader moved from its default is added after the question
// (HeadlineOf), so a reader who changed a seed is asked about their run, not the document's.
type asking[P, R any] struct {
	says  []string
	words func(p P, r R, at experiments.Count) string
}

// HeadlineOf is the headline of a run of e on the page whose marker names row ("" for none), or
// false when the run reports no headline (a sweep given no points, a run of another type).
func HeadlineOf(e *experiments.Experiment, params, result any, row string) (Headline, bool) {
	pr, ok := PresenterFor(e.Name)
	if !ok || pr.ask == nil {
		return Headline{}, false // unreachable for the catalog's experiments: TestEveryExperimentIsWhole
	}
	c, ok := e.Headline(params, result, row)
	if !ok {
		return Headline{}, false
	}
	q, err := pr.ask(params, result, c)
	if err != nil {
		return Headline{}, false
	}
	var rest []experiments.Field
	for _, f := range e.Fields {
		if !slices.Contains(pr.asks, f.Name) {
			rest = append(rest, f)
		}
	}
	if moved := MovedParams(e, params, rest); moved != "" {
		q += " (With " + moved + ".)"
	}
	return Headline{Count: c, Question: q, Unit: countUnit(e.Name, c.Name), Measured: GuessNumber(c.Value)}, true
}

// GuessNumber writes a guess, a measurement or the gap between them as the verdict says them:
// thousands separators and at most two decimals (1,234.57), the way app.js writes them when it
// reveals a result, so the verdict a reload draws reads the same as the one the reveal wrote.
func GuessNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "unbounded"
	}
	return group(strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64))
}

// GuessVerdict puts a reader's guess beside the measured value: "You guessed 300; measured 195
// (105 too high)." The gap is the lesson, so it is said as a number and never as praise.
func GuessVerdict(guess, measured float64) string {
	gap := "exactly right"
	switch d := GuessNumber(math.Abs(guess - measured)); {
	case d == "0":
	case guess > measured:
		gap = d + " too high"
	default:
		gap = d + " too low"
	}
	return fmt.Sprintf("You guessed %s; measured %s (%s).", GuessNumber(guess), GuessNumber(measured), gap)
}

// crashing says what share of a stream's workers die mid-job, after "with": "2% crashing".
func crashing(r float64) string {
	if r == 0 {
		return "none crashing"
	}
	return rate(r) + " crashing"
}

// ofJobs names a stream's length after "how many of": "20,000 jobs".
func ofJobs(n int64) string { return Plural(n, "job", "jobs") }
