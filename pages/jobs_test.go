package pages

import (
	"bytes"
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

func renderTimeline(t *testing.T, v JobView) string {
	t.Helper()
	var buf bytes.Buffer
	if err := JobTimeline(v).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func traceAt(unit string, steps ...float64) experiments.Trace {
	tr := experiments.Trace{ID: 7, Outcome: "no_renewal", Point: "300", StepUnit: unit}
	kinds := experiments.EventKinds()
	for i, s := range steps {
		tr.Events = append(tr.Events, experiments.Event{Step: s, Kind: kinds[i%len(kinds)], Detail: "something"})
	}
	return tr
}

// TestTimelineCloseMarksStayApart lays out a lease culprit whose steps 300 s and 308.755 s are a
// few units apart on a 608.755 s axis, and a heartbeat-heavy trace, and checks that marks keep a
// minimum gap, that a close mark's number goes to the other side of the axis, and that numbers on
// one side never come closer than sideGap.
func TestTimelineCloseMarksStayApart(t *testing.T) {
	lease, _ := experiments.Lookup("lease")
	many := []float64{0}
	for k := 1; k <= 45; k++ {
		many = append(many, float64(k)*10)
	}
	for name, steps := range map[string][]float64{
		"culprit":    {0, 300, 308.755, 600, 608.755},
		"heartbeats": many,
	} {
		v := NewJobView(lease, traceAt("s", steps...))
		gap := min(minGap, (axisHi-axisLo)/(len(v.Marks)-1))
		lastSide := map[bool]int{true: -100, false: -100}
		for i, m := range v.Marks {
			if m.X < axisLo || m.X > axisHi {
				t.Errorf("%s: mark %d at x %d, off the axis", name, m.N, m.X)
			}
			if i > 0 {
				prev := v.Marks[i-1]
				if m.X-prev.X < gap-1 {
					t.Errorf("%s: marks %d and %d are %d units apart, want at least %d", name, prev.N, m.N, m.X-prev.X, gap)
				}
				if m.X-prev.X < sideGap && m.Above == prev.Above {
					t.Errorf("%s: close marks %d and %d put their numbers on the same side", name, prev.N, m.N)
				}
			}
			if name == "culprit" && m.X-lastSide[m.Above] < sideGap {
				t.Errorf("%s: mark %d's number is %d units from the last one on its side", name, m.N, m.X-lastSide[m.Above])
			}
			lastSide[m.Above] = m.X
		}
	}
}

// TestTimelineWordsAndUnits checks that the page and the figure's description say event kinds in
// words while the raw kind stays in a data attribute and a class, and that the axis's end labels
// carry their unit.
func TestTimelineWordsAndUnits(t *testing.T) {
	window, _ := experiments.Lookup("window")
	tr := experiments.Trace{ID: 16, Outcome: "escaped", Point: "1000", StepUnit: "job", Events: []experiments.Event{
		{Step: 16, Kind: experiments.EventDedupMiss, Detail: "Its id is not in the window."},
		{Step: 16, Kind: experiments.EventKeyWritten, Detail: "Its id enters the window."},
		{Step: 16, Kind: experiments.EventRedeliveryScheduled, Detail: "It comes back later."},
		{Step: 1085, Kind: experiments.EventRedelivered, Detail: "Again."},
	}}
	html := renderTimeline(t, NewJobView(window, tr))
	for _, want := range []string{">dedup miss<", ">key written<", ">redelivery scheduled<", `data-kind="dedup_miss"`, `class="ev-dedup_miss"`,
		"step 16, dedup miss, key written, redelivery scheduled", "The axis runs from step 16 (mark 1) to step 1,085 (mark 2)."} {
		if !strings.Contains(html, want) {
			t.Errorf("the timeline lacks %q", want)
		}
	}
	for _, raw := range []string{">dedup_miss<", ">key_written<", "16, dedup_miss"} {
		if strings.Contains(html, raw) {
			t.Errorf("the timeline shows the raw kind %q to a reader", raw)
		}
	}
	// An end's label must not sit in the figure, where one right-aligned at the axis's end ran
	// back under the mark before it (issue 19: "step 1,085" under mark 2, the eviction at 1,016).
	if strings.Contains(html, `class="end"`) {
		t.Error("the figure still prints the axis's ends inside it")
	}
	// An end's label must not sit in the figure, where one right-aligned at the axis's end ran
	// back under the mark before it (issue 19: "step 1,085" under mark 2, the eviction at 1,016).
	if strings.Contains(html, `class="end"`) {
		t.Error("the figure still prints the axis's ends inside it")
	}
	lease, _ := experiments.Lookup("lease")
	if html := renderTimeline(t, NewJobView(lease, traceAt("s", 0, 30, 608.755))); !strings.Contains(html, "from 0 s (mark 1) to 608.755 s (mark 3)") {
		t.Errorf("the lease figure's ends lack their unit: %s", html)
	}
}

// TestTimelineAtOneStep checks that a trace whose events all happen at one step gets a sentence
// saying so instead of a figure that would be a single dot.
func TestTimelineAtOneStep(t *testing.T) {
	keys, _ := experiments.Lookup("keys")
	html := renderTimeline(t, NewJobView(keys, traceAt("job", 16, 16, 16, 16)))
	if strings.Contains(html, "<svg") || !strings.Contains(html, "All of it happens at step 16") {
		t.Errorf("a one-step trace draws a figure or does not say so: %s", html)
	}
}

// TestEveryJobCountIsLinked: at the defaults of every traceable experiment, each count with jobs
// behind it (an outcome its tracer lists, above zero) has a "which jobs?" link on its table that
// asks for exactly its point and outcome, and no link asks for a point the run's counts do not
// have: the tables carry the counts' own points rather than rebuilding them from their cells.
func TestEveryJobCountIsLinked(t *testing.T) {
	for _, e := range experiments.All() {
		if !e.Traceable() {
			continue
		}
		p := e.Defaults()
		res, err := e.Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := present.PresenterOf(e)
		if err != nil {
			t.Fatal(err)
		}
		tables, err := pr.Tables(p, res)
		if err != nil {
			t.Fatal(err)
		}
		links := NewJobLinks(Site{}, e, p, DOMID(e.Name))
		asked := map[[2]string]bool{}
		for _, tb := range tables {
			for r := range tb.Data {
				for c := range tb.Data[r] {
					if l, ok := links.For(tb, r, c); ok {
						u, err := url.Parse(l.URL)
						if err != nil {
							t.Fatal(err)
						}
						asked[[2]string{u.Query().Get("point"), u.Query().Get("outcome")}] = true
					}
				}
			}
		}
		counted := map[[2]string]bool{}
		for _, c := range e.Counts(res) {
			k := [2]string{c.Point, c.Name}
			counted[k] = true
			if slices.Contains(e.Outcomes(), c.Name) && c.Value > 0 && !asked[k] {
				t.Errorf("%s: %v %s at %q has no link", e.Name, c.Value, c.Name, c.Point)
			}
		}
		for k := range asked {
			if !counted[k] {
				t.Errorf("%s: a link asks for %s at %q, which the run does not count", e.Name, k[1], k[0])
			}
		}
	}
}
