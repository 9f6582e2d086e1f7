package pages

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
)

// SpreadProgress is the state of a spread over seeds that runs in the background while the block
// shows the form's own run: its progress box, which polls while Running, asks for the banded block
// once Finished, and otherwise says in Note why there is no band (cancelled, busy, failed).
type SpreadProgress struct {
	ID        string
	Done      int
	N         int
	Running   bool
	Finished  bool
	Note      string
	Block     string // the DOM id of the block the band belongs to
	PollURL   string
	CancelURL string
	ReloadURL string // the block's permalink, which draws the band once it is computed
}

// SpreadProgressID is the DOM id of the progress box of the block with DOM id block.
func SpreadProgressID(block string) string { return block + "-spread-progress" }

// ReloadPath is ReloadURL without its fragment, for htmx to fetch.
func (p SpreadProgress) ReloadPath() string {
	u, _, _ := strings.Cut(p.ReloadURL, "#")
	return u
}

// spreadFieldLabel is the spread's label in every form that has it.
const spreadFieldLabel = "Spread over N seeds"

// spreadField is the form's "spread over N seeds" input for r, or false for an experiment that
// draws nothing at random. It is a Field like the experiment's own, so it keeps what was typed and
// shows its own error beside it.
func spreadField(domID string, r Run) (Field, bool) {
	if !experiments.Spreadable(r.Experiment) {
		return Field{}, false
	}
	return Field{
		ID: domID + "-" + experiments.SpreadField, Name: r.Prefix + experiments.SpreadField,
		Label: spreadFieldLabel, Unit: "seeds",
		Help:  "Leave empty for one run. Otherwise the experiment also runs on the next seeds (each seed plus 1, 2, …) and the charts show the middle 90% of the results as a band.",
		Range: fmt.Sprintf("empty, or a whole number from %d to %d", experiments.MinSpread, experiments.MaxSpread),
		Value: experiments.Clip(r.SpreadRaw, MaxShownValue), Error: r.Errors.For(experiments.SpreadField),
	}, true
}

// withSpreadQuery adds the spread to an API link's query when the block shows one.
func withSpreadQuery(q url.Values, r Run) {
	if r.Spread != nil {
		q.Set(experiments.SpreadField, strconv.Itoa(r.Spread.N))
	}
}

// addSpread draws a computed spread into the block: a band chart for each count, a table of every
// count's summary, and a reading of where the form's own run sits.
func addSpread(v *ExperimentView, r Run) {
	s := r.Spread
	if s == nil || len(s.Counts) == 0 {
		return
	}
	// The footer's fingerprint is the spread's: the block now answers for N seeds, not one run.
	v.ParamsHash = r.Experiment.SpreadParamsHash(r.Params, s.N)
	v.Charts = append(v.Charts, bandCharts(v.DOMID, r.Experiment.Name, *s)...)
	v.Tables = append(v.Tables, SpreadTable(r.Experiment.Name, *s))
	v.Reading = append(v.Reading, spreadReading(r.Experiment.Name, *s)...)
}

// pointWords names a point of each sweep for a reader; a design or key names itself.
var pointWords = map[string]string{"window": "window ", "window-grid": "max delay / window ", "lease": "timeout "}

// pointLabel is a count's point as a reader reads it.
func pointLabel(experiment, point string) string {
	if point == "" {
		return "the run"
	}
	p := point
	if n, err := strconv.ParseInt(point, 10, 64); err == nil {
		p = count(n)
	}
	return pointWords[experiment] + p
}

// countWords is a count's name as prose: "renew_third" reads "renew third".
func countWords(name string) string { return strings.ReplaceAll(name, "_", " ") }

// num writes a summary value: whole numbers with separators, halves and the like to one decimal.
func num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return count(int64(x))
	}
	if math.Abs(x) >= 100 {
		return count(int64(math.Round(x)))
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}

// ordinal writes a whole percentile as "38th".
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// verdict says whether the form's own value lies inside the band.
func verdict(c experiments.SpreadCount) string {
	if c.Typical() {
		return "typical"
	}
	return "atypical"
}

// SpreadTable lists every count's summary over the seeds: the page's table under the band charts,
// and the CSV's second table.
func SpreadTable(experiment string, s experiments.SpreadResult) Table {
	t := newTable(fmt.Sprintf("Spread over %d seeds: this run against the others", s.N),
		col{"point", "point", false}, col{"count", "count", false}, col{"this run", "value", true},
		col{"median", "median", true}, col{"middle 90%", "p5_p95", true}, col{"min–max", "min_max", true},
		col{"rank among seeds", "percentile", true})
	// The two forms differ in shape here: people read ranges in one cell, programs want one
	// number per column, so Keys and Data are written out in full below.
	t.Keys = []string{"point", "count", "value", "median", "p5", "p95", "min", "max", "percentile"}
	t.Data = nil
	for _, c := range s.Counts {
		t.Rows = append(t.Rows, []string{pointLabel(experiment, c.Point), countWords(c.Name), num(c.Value), num(c.Median),
			num(c.P5) + "–" + num(c.P95), num(c.Min) + "–" + num(c.Max), ordinal(int(math.Round(c.Percentile))) + ", " + verdict(c)})
		t.Data = append(t.Data, []string{c.Point, c.Name, raw(c.Value), raw(c.Median), raw(c.P5), raw(c.P95),
			raw(c.Min), raw(c.Max), raw(c.Percentile)})
	}
	return t
}

// headlines picks the counts the reading speaks of: every atypical one first (they are the news),
// then those with the largest medians, at most three in all; counts that never moved say nothing.
func headlines(s experiments.SpreadResult) []experiments.SpreadCount {
	var out []experiments.SpreadCount
	for _, c := range s.Counts {
		if !c.Typical() && len(out) < 3 {
			out = append(out, c)
		}
	}
	for len(out) < 3 {
		best := -1
		for i, c := range s.Counts {
			taken := false
			for _, o := range out {
				taken = taken || (o.Point == c.Point && o.Name == c.Name)
			}
			if !taken && c.Max > c.Min && (best < 0 || c.Median > s.Counts[best].Median) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out = append(out, s.Counts[best])
	}
	return out
}

// spreadReading says where the form's own numbers sit among the seeds'.
func spreadReading(experiment string, s experiments.SpreadResult) []string {
	inside := 0
	for _, c := range s.Counts {
		if c.Typical() {
			inside++
		}
	}
	first := fmt.Sprintf("Over %d seeds (the form's seeds and the next %d of each), %d of the %d numbers above come out inside the band of the middle 90%% of seeds.",
		s.N, s.N-1, inside, len(s.Counts))
	var parts []string
	for _, c := range headlines(s) {
		parts = append(parts, fmt.Sprintf("%s %s at %s is at the %s percentile of %d seeds: %s (median %s, middle 90%% %s to %s).",
			num(c.Value), countWords(c.Name), pointLabel(experiment, c.Point), ordinal(int(math.Round(c.Percentile))), s.N, verdict(c),
			num(c.Median), num(c.P5), num(c.P95)))
	}
	if len(parts) == 0 {
		return []string{first + " No number moved at all from one seed to the next."}
	}
	return []string{first, strings.Join(parts, " ")}
}
