package pages

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
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

// PageSpreads reports whether e's block on a page offers a spread over seeds: every experiment
// that draws at random, unless its presenter says its block has no use for one (the verifier's;
// see present's noPageSpread). The API still gives every such experiment's counts over N seeds.
func PageSpreads(e *experiments.Experiment) bool {
	p, ok := present.PresenterFor(e.Name)
	return experiments.Spreadable(e) && ok && p.PageSpreads()
}

// spreadFieldLabel is the spread's label in every form that has it.
const spreadFieldLabel = "Spread over N seeds"

// spreadField is the form's "spread over N seeds" input for r, or false for an experiment that
// draws nothing at random. It is a Field like the experiment's own, so it keeps what was typed and
// shows its own error beside it.
func spreadField(domID string, r Run) (Field, bool) {
	if !PageSpreads(r.Experiment) {
		return Field{}, false
	}
	return Field{
		ID: domID + "-" + experiments.SpreadField, Name: r.Prefix + experiments.SpreadField,
		Label: spreadFieldLabel, // no unit: "(seeds)" would only repeat the label
		Help:  "Leave empty for one run. Otherwise the experiment also runs on the next seeds (each seed plus 1, 2, …) and the charts show the middle 90% of the results as a band.",
		Range: fmt.Sprintf("empty, or a whole number from %d to %d", experiments.MinSpread, experiments.MaxSpread),
		Value: ShownValue(r.SpreadRaw), Error: r.Errors.For(experiments.SpreadField),
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
	if s == nil {
		return
	}
	// The rows the page shows, and no other: a block shows the designs it has introduced so far.
	if pr, ok := present.PresenterFor(r.Experiment.Name); ok {
		cut := pr.ShownSpread(r.Scope, r.Result, *s)
		s = &cut
	}
	if len(s.Counts) == 0 {
		return
	}
	// The footer's fingerprint is the spread's: the block now answers for N seeds, not one run.
	v.ParamsHash = r.Experiment.SpreadParamsHash(r.Params, s.N)
	v.Charts = append(v.Charts, present.BandCharts(v.DOMID, r.Experiment.Name, *s)...)
	v.Tables = append(v.Tables, present.SpreadTable(r.Experiment.Name, *s))
	v.Reading = append(v.Reading, present.SpreadReading(r.Experiment.Name, *s)...)
}
