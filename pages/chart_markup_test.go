package pages

import (
	"strings"
	"testing"
)

// TestChartFigureMarkup: the title is the figure's caption, and both layouts ship beside the box.
func TestChartFigureMarkup(t *testing.T) {
	r := windowRun()
	v, err := NewExperimentView(testSite(), "/blocks/4", r, []Run{r})
	if err != nil {
		t.Fatal(err)
	}
	html := golden(t, "experiment-window", Experiment(v))
	for _, want := range []string{
		`<figcaption id="exp-window-curve-caption" class="chart-title">Escape rate versus dedup window</figcaption>`,
		`data-chart="exp-window-curve-options" data-chart-narrow="exp-window-curve-narrow-options" data-narrow-below="500"`,
		`<script id="exp-window-curve-narrow-options" type="application/json">`,
		`<p class="table-caption" id="exp-window-table-1-caption">`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the block lacks %s", want)
		}
	}
	chart, table, reading := strings.Index(html, `class="chart-figure"`), strings.Index(html, `class="table-block"`), strings.Index(html, `class="reading"`)
	if !(chart < table && table < reading) {
		t.Errorf("chart at %d, table at %d, reading at %d: want chart, table, reading", chart, table, reading)
	}
}
