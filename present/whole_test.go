package present

import (
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestEveryExperimentIsWhole: every experiment has every part of its definition and its
// presenter, and every question the home page asks is answered by exactly one experiment. All
// that is missing, for every experiment, is said in one failure: a new experiment (two
// registrations, its definition in experiments/catalog.go and its presenter here) learns at once
// everything it still needs.
func TestEveryExperimentIsWhole(t *testing.T) {
	var lines []string
	for _, e := range experiments.All() {
		if l := Lacks(e); len(l) > 0 {
			lines = append(lines, e.Name+" lacks "+strings.Join(l, "; "))
		}
	}
	for _, q := range QuestionSpecs {
		var by []string
		for _, e := range experiments.All() {
			for _, asked := range e.Questions() {
				if asked.ID == q.ID {
					by = append(by, e.Name)
				}
			}
		}
		if len(by) != 1 {
			lines = append(lines, q.ID+" is answered by "+strings.Join(by, ", ")+" (want exactly one experiment's .answers)")
		}
	}
	if len(presenters()) != len(experiments.All()) {
		lines = append(lines, "a presenter shows an experiment that is not in the catalog")
	}
	if len(lines) > 0 {
		t.Fatalf("experiments that are not whole:\n%s", strings.Join(lines, "\n"))
	}
}

// TestLacksNamesAMissingPresenter: an experiment with no presenter is told so beside what its
// definition lacks, and a whole one lacks nothing.
func TestLacksNamesAMissingPresenter(t *testing.T) {
	e := &experiments.Experiment{Name: "nameless"}
	got := strings.Join(Lacks(e), "; ")
	for _, want := range []string{"a presenter", "a memory estimate", "its counts", "a run"} {
		if !strings.Contains(got, want) {
			t.Errorf("Lacks = %q, want it to name %q", got, want)
		}
	}
	whole, _ := experiments.Lookup("window")
	if l := Lacks(whole); l != nil {
		t.Errorf("window lacks %q", l)
	}
}

// TestLacksNamesThePointsParts: a presenter that does not say its experiment's points in words,
// leaves a sweep with seeds without the axis its spread is drawn on, or has no question for its
// headline, is told so, all at once;
// and one that gives words to points an experiment does not have is told that too.
func TestLacksNamesThePointsParts(t *testing.T) {
	window, _ := experiments.Lookup("window")
	bare := present("window", shows[experiments.WindowParams, experiments.WindowResult]{tables: windowTables, reading: readWindow})
	got := strings.Join(lacks(window, bare), "; ")
	for _, want := range []string{"words for the points its counts stand at, a sweep", "the x axis a spread over seeds draws",
		"the question that asks for its headline"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks = %q, want it to name %q", got, want)
		}
	}
	scale, _ := experiments.Lookup("scale")
	worded := present("scale", shows[experiments.ScaleParams, experiments.ScaleResult]{tables: scaleTables, reading: readScale, point: byName, rowWord: "at"})
	if got := strings.Join(lacks(scale, worded), "; "); !strings.Contains(got, "of the whole run") {
		t.Errorf("lacks = %q, want it to refuse words for points scale's counts do not have", got)
	}
}
