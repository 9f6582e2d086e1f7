package pages

// How a spread over seeds reads and draws: numbers written one way, labels in the experiment's own
// words, readings that speak of the counts that moved, and band charts whose options carry no long
// decimals, whose tooltips name what they list, and whose band the median does not hide.

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

func mustExperiment(t *testing.T, name string) *experiments.Experiment {
	t.Helper()
	e, ok := experiments.Lookup(name)
	if !ok {
		t.Fatalf("no experiment %q", name)
	}
	return e
}

// TestSpreadBoxWords: the running box says the band is added beside the run's charts (not that it
// replaces them), and offers its reload link only to a reader without script.
func TestSpreadBoxWords(t *testing.T) {
	var b bytes.Buffer
	p := SpreadProgress{Running: true, Done: 3, N: 20, Block: "exp-window", PollURL: "/p", CancelURL: "/c", ReloadURL: "/r"}
	if err := SpreadBox(p).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	if strings.Contains(h, "replaces") {
		t.Errorf("the box says the band replaces the chart: %s", h)
	}
	if !regexp.MustCompile(`<noscript><a[^>]*>Reload to see how far it has got</a></noscript>`).MatchString(h) {
		t.Errorf("the reload link is not for no-script readers only: %s", h)
	}
	if !strings.Contains(h, `id="exp-window-spread-progress"`) {
		t.Errorf("the box's id is not its own: %s", h)
	}
}

// TestSpreadFieldUnit: the spread field's unit does not repeat its label.
func TestSpreadFieldUnit(t *testing.T) {
	f, ok := spreadField("exp-window", Run{Experiment: mustExperiment(t, "window")})
	if !ok || f.Unit != "" {
		t.Errorf("spread field unit %q repeats its label %q", f.Unit, f.Label)
	}
}
