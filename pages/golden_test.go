package pages

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden renders c and compares it with testdata/name.golden.html (rewritten with -update).
func golden(t *testing.T, name string, c templ.Component) string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name+".golden.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pages -update)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from %s; if the change is intended, run go test ./pages -update", name, path)
	}
	return buf.String()
}

func testSite() Site {
	return Site{Base: "/nb", CSS: "/nb/static/h/app.css", Scripts: []string{"/nb/static/h/app.js"},
		Contents: []Link{{Title: "Start", URL: "/nb/"}, {Title: "Block 4", URL: "/nb/blocks/4", Current: true}}}
}

func windowRun() Run {
	e, _ := experiments.Lookup("window")
	p := e.Defaults().(experiments.WindowParams)
	p.MaxDelay = 1000
	p.Windows = []int64{500, 1000}
	return Run{Experiment: e, Raw: map[string]string{"max_delay": "1000", "windows": "500,1000"}, Params: p,
		Result: experiments.WindowResult{Jobs: 20000, Crashed: 398, MaxDelay: 1000, Points: []experiments.WindowPoint{
			{Window: 500, Escaped: 198, EscapeRate: 0.0099, StateKB: 7}, {Window: 1000, Escaped: 0, EscapeRate: 0, StateKB: 15}}}}
}

func TestExperimentGolden(t *testing.T) {
	r := windowRun()
	v, err := NewExperimentView(testSite(), "/blocks/4", r, []Run{r})
	if err != nil {
		t.Fatal(err)
	}
	html := golden(t, "experiment-window", Experiment(v))
	for _, want := range []string{
		`action="/nb/blocks/4#exp-window"`, `hx-get="/nb/blocks/4"`, `value="1000"`,
		`data-chart="exp-window-curve-options"`, `<script id="exp-window-curve-options" type="application/json">`,
		`>198<a class="which-jobs"`, `aria-label="which jobs? 198 escaped at window 500"`, `id="exp-window-which-jobs"`, "Reset to the document", `href="/nb/api/experiments/window?`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("experiment block lacks %q", want)
		}
	}
}

func TestExperimentInvalidGolden(t *testing.T) {
	e, _ := experiments.Lookup("window")
	_, err := e.Parse(map[string][]string{"max_delay": {"-5"}, "jobs": {"<b>x</b>"}})
	r := Run{Experiment: e, Raw: map[string]string{"max_delay": "-5", "jobs": "<b>x</b>"}, Errors: err.(experiments.FieldErrors)}
	v, err := NewExperimentView(testSite(), "/blocks/4", r, []Run{r})
	if err != nil {
		t.Fatal(err)
	}
	html := golden(t, "experiment-invalid", Experiment(v))
	if strings.Contains(html, "<b>x</b>") {
		t.Error("reader input reflected unescaped")
	}
	if !strings.Contains(html, `value="-5"`) || strings.Count(html, `class="error"`) != 2 || strings.Contains(html, "data-chart") {
		t.Error("invalid block must keep values, mark both fields and draw nothing")
	}
}

func TestTimelineAndCardsGolden(t *testing.T) {
	tl := TimelineView{Current: 2, Steps: []Step{
		{N: 1, Title: "poll", HTML: "<p>one</p>", Track: "crash", Offset: "41", Rows: "0", Keys: "none", URL: "/semantics?step=1#timeline", Past: true},
		{N: 2, Title: "apply", HTML: "<p>two</p>", Track: "crash", Offset: "41", Rows: "1", Keys: "none", URL: "/semantics?step=2#timeline", Active: true, Past: true},
		{N: 3, Title: "commit", HTML: "<p>three</p>", Track: "fix", Offset: "41", Rows: "1", Keys: "42", URL: "/semantics?step=3#timeline"},
	}}
	html := golden(t, "timeline", Timeline(tl))
	if !strings.Contains(html, `data-tl="prev" href="/semantics?step=1#timeline"`) || !strings.Contains(html, `data-tl="next" href="/semantics?step=3#timeline"`) {
		t.Error("timeline lacks server-rendered step links")
	}
	// Each track is named in words where it starts, and each step shows its state under its title.
	for _, want := range []string{`class="track-label track-crash">Without the fix</text>`, `class="track-label track-fix">With the fix</text>`,
		`class="state">offset 41 · 1 row · key 42</text>`, `<dt>Rows written</dt><dd>1</dd>`, `aria-label="Step 3: commit, offset 41, 1 row, key 42 (with the fix)"`} {
		if !strings.Contains(html, want) {
			t.Errorf("timeline lacks %s", want)
		}
	}
	cards := golden(t, "cards", Cards([]content.Card{{ID: "why", Question: "Why?", Answer: "<p>Because.</p>"}}))
	if !strings.Contains(cards, `<details class="card" id="why"><summary>Why?</summary>`) {
		t.Error("cards are not details/summary")
	}
}
