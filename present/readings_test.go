package present

import (
	"context"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// readingCase is one hand-made run and what its reading must (and must not) say. The results are
// filled in by hand: a reading must follow whatever result it is given, so the tests feed it the
// document's numbers, edge cases and deliberately odd numbers, and check that each surfaces.
type readingCase struct {
	name   string
	params any
	result any
	want   []string
	not    []string
	// empty marks a run the presenter must refuse (params or result of the wrong type).
	empty bool
}

// checkReadings runs each case through the named experiment's presenter.
func checkReadings(t *testing.T, experiment string, cases []readingCase) {
	t.Helper()
	pr, ok := PresenterFor(experiment)
	if !ok {
		t.Fatalf("no presenter for %q", experiment)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pr.Reading(tc.params, tc.result)
			if tc.empty {
				if err == nil || got != nil {
					t.Fatalf("Reading = %q, %v; want nil and an error", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				t.Fatal("Reading gave no paragraphs")
			}
			text := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("reading lacks %q:\n%s", w, text)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(text, n) {
					t.Errorf("reading should not say %q:\n%s", n, text)
				}
			}
			for _, p := range got {
				if strings.ContainsAny(p, "<>*`") || strings.TrimSpace(p) == "" {
					t.Errorf("paragraph is not plain text: %q", p)
				}
			}
		})
	}
}

// TestPresenters walks every experiment: each must have a presenter, and at its defaults the
// presenter must give a table with rows and a reading, and refuse params and results of the wrong
// type. A new experiment without its presenter fails here, not silently in the CSV.
func TestPresenters(t *testing.T) {
	for _, e := range experiments.All() {
		t.Run(e.Name, func(t *testing.T) {
			pr, err := PresenterOf(e)
			if err != nil {
				t.Fatal(err)
			}
			p := e.Defaults()
			res, err := e.Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			tables, err := pr.Tables(p, res)
			if err != nil || len(tables) == 0 || len(tables[0].Rows) == 0 {
				t.Fatalf("Tables at defaults = %v, %v; want a table with rows", tables, err)
			}
			if reading, err := pr.Reading(p, res); err != nil || len(reading) == 0 {
				t.Errorf("Reading at defaults = %q, %v", reading, err)
			}
			if _, err := pr.Charts("exp-"+e.Name, p, res); err != nil {
				t.Error(err)
			}
			if _, err := pr.Tables(p, 42); err == nil {
				t.Error("Tables accepted a result of the wrong type")
			}
			if _, err := pr.Tables(&p, res); err == nil {
				t.Error("Tables accepted a pointer for params")
			}
		})
	}
	if len(presenters()) != len(experiments.All()) {
		t.Errorf("%d presenters for %d experiments: one is for an experiment that does not exist", len(presenters()), len(experiments.All()))
	}
	if _, ok := PresenterFor("nope"); ok {
		t.Error("PresenterFor found an experiment that does not exist")
	}
}

// gc is a grid cell: escaped duplicates e at max delay d and window w.
func gc(d, w, e int64) experiments.GridCell {
	return experiments.GridCell{MaxDelay: d, Window: w, Escaped: e}
}
