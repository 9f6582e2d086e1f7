package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/pages"
	"effectivelyonce/rooms"
)

// measure is the server's rooms.Measurer: the true value of a round's question, from an
// experiment rerun on the server (through the runner, so a cached run costs nothing).
//
// A prediction (q1 to q5) is measured exactly as the home page measures it: its experiment at
// the document's defaults, the value the presenter's Measures names by the question's id. A
// measure question parses its stored parameters with the experiment's spec and takes the value
// called Measure from the presenter's Measures if it is there (a question id), else from the
// run's tables: the column whose key is Measure, in the table's focus row if it marks one, else
// its last row (the tables list their parameter sweep in order, so the last row is the last
// point).
func (s *server) measure(ctx context.Context, q rooms.Question) (float64, error) {
	switch q.Kind {
	case rooms.KindPrediction:
		i := slices.IndexFunc(pages.QuestionSpecs, func(spec pages.QuestionSpec) bool { return spec.ID == q.Prediction })
		if i < 0 {
			return 0, &rooms.FieldError{Field: "question", Message: "the question is one of q1 to q5", Err: rooms.ErrInvalid}
		}
		e, ok := experiments.Lookup(pages.QuestionSpecs[i].Experiment)
		if !ok {
			return 0, fmt.Errorf("question %s: no experiment %q", q.Prediction, pages.QuestionSpecs[i].Experiment)
		}
		return s.measureRun(ctx, e, e.Defaults(), q.Prediction)
	case rooms.KindMeasure:
		e, p, err := parseMeasured(q)
		if err != nil {
			return 0, err
		}
		if err := s.admitRun(ctx, e, p); err != nil {
			return 0, err
		}
		return s.measureRun(ctx, e, p, q.Measure)
	}
	return 0, &rooms.FieldError{Field: "measured", Message: "this question has no experiment to measure it", Err: rooms.ErrInvalid}
}

// measureRun runs e at p and picks the value called name, as measure describes.
func (s *server) measureRun(ctx context.Context, e *experiments.Experiment, p any, name string) (float64, error) {
	res, err := s.runner.run(ctx, e, p)
	if err != nil {
		return 0, err
	}
	pr, err := pages.PresenterOf(e)
	if err != nil {
		return 0, err
	}
	if m, err := pr.Measures(p, res); err == nil {
		if v, ok := m[name]; ok {
			return float64(v), nil
		}
	}
	tables, err := pr.Tables(p, res)
	if err != nil {
		return 0, err
	}
	for _, t := range tables {
		col := slices.Index(t.Keys, name)
		if col < 0 || len(t.Data) == 0 {
			continue
		}
		row := len(t.Data) - 1
		for i, r := range t.Rows {
			if t.Focus != "" && len(r) > 0 && r[0] == t.Focus && i < len(t.Data) {
				row = i
			}
		}
		if col < len(t.Data[row]) {
			if v, err := strconv.ParseFloat(t.Data[row][col], 64); err == nil {
				return v, nil
			}
		}
	}
	return 0, &rooms.FieldError{Field: "measure", Err: rooms.ErrInvalid,
		Message: fmt.Sprintf("experiment %s reports no number called %q (see its CSV's column names)", e.Name, name)}
}

// measureChoices are the numbers a host can ask the room to guess at the room's current
// parameters: each numeric column of the tables that the presented page's first experiment shows
// at the presented parameters (runs the page has just made, so they come from the cache). Nothing
// presented, or a page without an experiment, offers none; the host can still name any
// experiment, parameters and column by hand.
func (s *server) measureChoices(ctx context.Context, presenting string) (exp, params string, choices []pages.MeasureChoice) {
	run, query, known := s.permalinkRun(ctx, presenting)
	if !known || run.Result == nil {
		return "", "", nil
	}
	e := run.Experiment
	own := url.Values{}
	for _, f := range e.Fields {
		if v, ok := query[f.Name]; ok {
			own[f.Name] = v
		}
	}
	pr, err := pages.PresenterOf(e)
	if err != nil {
		return "", "", nil
	}
	tables, err := pr.Tables(run.Params, run.Result)
	if err != nil {
		return "", "", nil
	}
	seen := map[string]bool{}
	for _, t := range tables {
		for i, k := range t.Keys {
			if i == 0 || seen[k] || i >= len(t.Numeric) || !t.Numeric[i] || i >= len(t.Head) {
				continue
			}
			seen[k] = true
			choices = append(choices, pages.MeasureChoice{Key: k, Label: t.Head[i] + " (" + t.Caption + ")"})
		}
	}
	return e.Name, own.Encode(), choices
}

// permalinkRun runs (from the cache, as a rule) the first experiment of the notebook page a
// permalink names, at the permalink's parameters: what the page itself shows first. known is
// false when the path is no notebook page with an experiment, which no later call can change;
// a run that could not be made now comes back with a nil Result.
func (s *server) permalinkRun(ctx context.Context, permalink string) (run pages.Run, query url.Values, known bool) {
	u, err := url.Parse(permalink)
	if permalink == "" || err != nil {
		return pages.Run{}, nil, false
	}
	for _, entry := range content.Contents() {
		if entry.Path != u.Path {
			continue
		}
		page, ok := s.book.Page(entry.Slug)
		if !ok {
			return pages.Run{}, nil, false
		}
		names := experimentsOn(page)
		if len(names) == 0 {
			return pages.Run{}, nil, false
		}
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		query = u.Query()
		runs, _ := s.pageRuns(ctx, page, query, names[0], nil)
		if len(runs) == 0 {
			return pages.Run{}, query, true
		}
		return runs[0], query, true
	}
	return pages.Run{}, nil, false
}
