package present

import (
	"fmt"
	"slices"
	"strings"

	"effectivelyonce/experiments"
)

// Scope is how one page shows an experiment's result, read from the options of its marker
// (`::: experiment assembly upto=at-least-once focus=at-least-once`): a block shows only the rows
// it has introduced so far and marks the row it is about, so block 1 does not give away the answers
// of blocks 2 and 3, and /assembly shows every row. The run itself, its permalink, its CSV and the
// prediction measures are the same everywhere; only what the page draws changes.
type Scope struct {
	// UpTo keeps the result's rows up to and including the one with this key ("" keeps them all).
	UpTo string
	// Focus marks the row with this key, in the table and in the chart.
	Focus string
	// NoTitle drops the block's own title where the page's heading just above already names it.
	NoTitle bool
}

// CheckScope fails when a marker's scope names rows the experiment does not have, or scopes an
// experiment whose rows cannot be cut: a typo would otherwise silently show every row, or none
// highlighted. The server calls it at start-up for every marker.
func (p *Presenter) CheckScope(s Scope) error {
	if s.UpTo == "" && s.Focus == "" {
		return nil
	}
	if p.rowKeys == nil {
		return fmt.Errorf("experiment %q has no rows a marker can name (upto=, focus=)", p.Experiment)
	}
	keys := p.rowKeys()
	for _, k := range []string{s.UpTo, s.Focus} {
		if k != "" && !slices.Contains(keys, k) {
			return fmt.Errorf("experiment %q has no row %q (rows: %s)", p.Experiment, k, strings.Join(keys, ", "))
		}
	}
	if s.UpTo != "" && s.Focus != "" && slices.Index(keys, s.Focus) > slices.Index(keys, s.UpTo) {
		return fmt.Errorf("experiment %q: focus=%s is cut off by upto=%s", p.Experiment, s.Focus, s.UpTo)
	}
	return nil
}

// View draws a run as one page shows it: the result cut to the scope's rows, then its charts (the
// focus row marked), its tables (the focus row marked) and the reading of what is shown.
func (p *Presenter) View(domID string, s Scope, params, result any) ([]Chart, []Table, []string, error) {
	if s.UpTo != "" && p.upTo != nil {
		var err error
		if result, err = p.upTo(result, s.UpTo); err != nil {
			return nil, nil, nil, err
		}
	}
	charts, err := p.focusCharts(domID, s.Focus, params, result)
	if err != nil {
		return nil, nil, nil, err
	}
	tables, err := p.tables(params, result)
	if err != nil {
		return nil, nil, nil, err
	}
	if s.Focus != "" {
		for i := range tables {
			tables[i].Focus = s.Focus
		}
	}
	reading, err := p.reading(params, result)
	if err != nil {
		return nil, nil, nil, err
	}
	return charts, tables, reading, nil
}

// scoping is what an experiment with named rows gives a marker to cut and mark them by.
type scoping[R any] struct {
	// keys lists every row key a marker may name, in the order the result holds its rows.
	keys func() []string
	// upTo returns the result with its rows after the one with key dropped.
	upTo func(r R, key string) R
}

// Shown is result cut to the rows scope s shows, as View draws it: what a page shows of a run, for
// a study room that asks about the numbers on the page (the rows a block has not introduced yet
// are no question of that page).
func (p *Presenter) Shown(s Scope, result any) any {
	if s.UpTo == "" || p.upTo == nil {
		return result
	}
	if cut, err := p.upTo(result, s.UpTo); err == nil {
		return cut
	}
	return result
}

// ShownSpread is spread, a spread over seeds of result's run, cut to the rows scope s shows, as
// Shown cuts the run: the spread summarises every count of every row, and a block that shows one
// design must not draw the bands of designs it has not introduced yet.
func (p *Presenter) ShownSpread(s Scope, result any, spread experiments.SpreadResult) experiments.SpreadResult {
	if s.UpTo == "" || p.upTo == nil {
		return spread
	}
	e, ok := experiments.Lookup(p.Experiment)
	if !ok {
		return spread // unreachable for the catalog's experiments: TestEveryExperimentIsWhole
	}
	shown := map[string]bool{}
	for _, c := range e.Counts(p.Shown(s, result)) {
		shown[c.Point] = true
	}
	cut := spread
	cut.Counts = nil
	for _, c := range spread.Counts {
		if shown[c.Point] {
			cut.Counts = append(cut.Counts, c)
		}
	}
	return cut
}
