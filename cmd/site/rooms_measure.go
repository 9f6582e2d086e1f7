package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"

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
	u, err := url.Parse(presenting)
	if presenting == "" || err != nil {
		return "", "", nil
	}
	for _, entry := range content.Contents() {
		if entry.Path != u.Path {
			continue
		}
		page, ok := s.book.Page(entry.Slug)
		if !ok {
			return "", "", nil
		}
		names := experimentsOn(page)
		if len(names) == 0 {
			return "", "", nil
		}
		runs, _ := s.pageRuns(ctx, page, u.Query(), names[0], nil)
		if len(runs) == 0 || runs[0].Result == nil {
			return "", "", nil
		}
		e := runs[0].Experiment
		own := url.Values{}
		for _, f := range e.Fields {
			if v, ok := u.Query()[f.Name]; ok {
				own[f.Name] = v
			}
		}
		pr, err := pages.PresenterOf(e)
		if err != nil {
			return "", "", nil
		}
		tables, err := pr.Tables(runs[0].Params, runs[0].Result)
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
	return "", "", nil
}
