package pages

import (
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// JobsShown is how many ids a "which jobs?" list shows; the CSV through the API has all of them.
const JobsShown = 50

// JobLinks turns the job counts of an experiment's tables into "which jobs?" links: it knows the
// experiment, the run's parameters and the panel the list opens in. The zero value links nothing.
type JobLinks struct {
	Experiment string
	// Base is the site's URL of the experiment's jobs page, /jobs/{name}.
	Base string
	// Query is the run's parameters as a permalink carries them.
	Query url.Values
	// Panel is the DOM id of the element inside the block that htmx loads a list into.
	Panel string
	// Outcomes are the experiment's outcomes, the column keys a link can stand for.
	Outcomes []string
}

// NewJobLinks returns the links for a run of e on params shown in the block domID, or the zero
// JobLinks when e has no per-job outcomes.
func NewJobLinks(site Site, e *experiments.Experiment, params any, domID string) JobLinks {
	if !e.Traceable() || params == nil {
		return JobLinks{}
	}
	q := url.Values{}
	for k, v := range e.Format(params) {
		q.Set(k, v)
	}
	return JobLinks{Experiment: e.Name, Base: site.URL("/jobs/" + e.Name), Query: q, Panel: JobsPanelID(domID), Outcomes: e.Outcomes()}
}

// JobsPanelID is the id of the panel a block's "which jobs?" lists and timelines load into. Not
// domID+"-jobs": that is the id of the block's own "jobs" input.
func JobsPanelID(domID string) string { return domID + "-which-jobs" }

// CellLink is a "which jobs?" link on one count of a table.
type CellLink struct {
	URL string
	// Text is the link's words: "which jobs?", or "which events?" where the ids number events.
	Text string
	// Label is the link's accessible name: the question, the count, what it counts and where.
	Label string
}

// outcomeOfKey maps a table's column key for programs to the outcome it counts: the keys carry
// the unit ("lost_jobs", "twice_no_renewal_jobs", "lost_events", "escaped_duplicates_window_500")
// around the count's own name.
func outcomeOfKey(key string, outcomes []string) (outcome, window string, ok bool) {
	if rest, found := strings.CutPrefix(key, "escaped_duplicates"); found {
		return "escaped", strings.TrimPrefix(rest, "_window_"), true
	}
	k := strings.TrimPrefix(key, "twice_")
	for _, suffix := range []string{"_jobs", "_events", ""} {
		if name, found := strings.CutSuffix(k, suffix); found && slices.Contains(outcomes, name) {
			return name, "", true
		}
	}
	return "", "", false
}

// For returns the link on cell (r, c) of t, if that cell is a job count above zero.
func (j JobLinks) For(t present.Table, r, c int) (CellLink, bool) {
	if j.Experiment == "" || c == 0 || c >= len(t.Keys) || r >= len(t.Data) || c >= len(t.Data[r]) {
		return CellLink{}, false
	}
	outcome, window, ok := outcomeOfKey(t.Keys[c], j.Outcomes)
	n := t.Data[r][c]
	if !ok || !n.IsNumber || n.Number == 0 || math.IsNaN(n.Number) || math.IsInf(n.Number, 0) || n.Point == "" {
		return CellLink{}, false
	}
	q := maps.Clone(j.Query) // Set below replaces values whole, so the run's own slices stay untouched
	q.Set("outcome", outcome)
	q.Set("point", n.Point)
	text := "which " + present.IDsNoun(j.Experiment) + "?"
	label := text + " " + t.Rows[r][c] + " " + present.OutcomeWords(outcome) + " at " + t.Head[0] + " " + t.Rows[r][0]
	if window != "" {
		label += ", " + t.Head[c]
	}
	if n.RowAlso != "" {
		// The row's first cell does not tell it from another (the outbox's designs come in
		// pairs, without and with consumer dedup), so the label says what does, or two links
		// would read the same.
		label += ", " + n.RowAlso
	}
	return CellLink{URL: j.Base + "?" + q.Encode(), Text: text, Label: label}, true
}

// JobsView is the "which jobs?" list: the first JobsShown ids with an outcome at a point, each
// linking to its timeline.
type JobsView struct {
	Experiment string
	Title      string
	Outcome    string
	Point      string
	At         experiments.Point // the point's values, for its words
	Total      int64
	IDs        []JobID
	// CSVURL is every id, through the API; JSONURL the same as JSON.
	CSVURL  string
	JSONURL string
	// Target is the DOM id htmx loads the timelines into ("" outside a panel).
	Target string
	// Params are the run's parameters in words, so a list read alone says which run it is.
	Params string
	// Page marks the list shown as a page of its own, where its heading is one level higher.
	Page bool
	// Back is the page's foot, set only when Page is.
	Back JobsBack
}

// JobsBack is the foot of a jobs page that stands alone: the link back to the notebook page that
// shows the experiment, on the same run ("" when no page shows it), and the run's provenance, as
// every run on a notebook page carries it.
type JobsBack struct {
	Title      string
	URL        string
	Version    string
	ParamsHash string
}

// JobID is one listed job.
type JobID struct {
	ID  string
	URL string
}

// JobView is one job's timeline.
type JobView struct {
	Experiment string
	Title      string
	ID         string
	Outcome    string
	Point      string
	At         experiments.Point // the point's values, for its words
	StepUnit   string
	Events     []EventView
	Marks      []StepMark
	// ListURL leads back to the list of jobs with the same outcome; JSONURL is the trace in the API.
	ListURL string
	JSONURL string
	// Target is the DOM id htmx loads the list back into ("" outside a panel).
	Target string
	Params string
	// Page marks the timeline shown as a page of its own, where its heading is one level higher.
	Page bool
	// Back is the page's foot, set only when Page is.
	Back JobsBack
}

// EventView is one event as the list beside the figure says it; Mark is the number of its step's
// mark in the figure. Kind is the vocabulary's name, kept for styling and for programs that read
// the page; Words is what a reader sees.
type EventView struct {
	Mark   int
	Step   string
	Kind   string
	Words  string
	Detail string
}

// StepMark is one mark of the timeline figure: a step at which something happened, at X (in the
// figure's 360-unit width). Above puts its number over the axis instead of under it: a mark close
// to the one before takes the other side, so close numbers never sit on or over each other.
type StepMark struct {
	N     int
	X     int
	Above bool
	Step  string
	// Kinds are the raw kinds at the step (for the mark's colour); Words say them to a reader.
	Kinds string
	Words string
}

// The figure's axis runs from axisLo to axisHi; marks keep at least minGap apart, and a mark
// closer than sideGap to the one before puts its number on the other side of the axis.
const (
	axisLo  = 24
	axisHi  = 336
	minGap  = 12
	sideGap = 24
)

// KindWords says an event kind in words ("dedup_miss" is "dedup miss").
func KindWords(kind experiments.EventKind) string {
	return strings.ReplaceAll(string(kind), "_", " ")
}

// NewJobView lays out a trace as a figure and a list. Steps map onto the axis between the first
// and the last, linearly except that marks are pushed at least minGap apart (the list gives the
// exact steps; the figure's job is their order and rough spacing); events at one step share a mark.
func NewJobView(e *experiments.Experiment, tr experiments.Trace) JobView {
	v := JobView{Experiment: e.Name, Title: e.Title, ID: strconv.FormatInt(tr.ID, 10), Outcome: tr.Outcome,
		Point: tr.Point, At: tr.At, StepUnit: tr.StepUnit}
	if len(tr.Events) == 0 {
		return v
	}
	lo, hi := tr.Events[0].Step, tr.Events[len(tr.Events)-1].Step
	var xs []float64
	for _, ev := range tr.Events {
		if len(v.Marks) == 0 || v.Marks[len(v.Marks)-1].Step != present.StepText(ev.Step) {
			x := float64(axisLo+axisHi) / 2
			if hi > lo {
				x = axisLo + (ev.Step-lo)/(hi-lo)*(axisHi-axisLo)
			}
			xs = append(xs, x)
			v.Marks = append(v.Marks, StepMark{N: len(v.Marks) + 1, Step: present.StepText(ev.Step)})
		}
		m := &v.Marks[len(v.Marks)-1]
		if !containsKind(m.Kinds, string(ev.Kind)) {
			if m.Kinds != "" {
				m.Kinds += ", "
				m.Words += ", "
			}
			m.Kinds += string(ev.Kind)
			m.Words += KindWords(ev.Kind)
		}
		v.Events = append(v.Events, EventView{Mark: m.N, Step: present.StepText(ev.Step), Kind: string(ev.Kind),
			Words: KindWords(ev.Kind), Detail: ev.Detail})
	}
	spread(xs)
	for i := range v.Marks {
		v.Marks[i].X = int(xs[i] + 0.5)
		if i > 0 && v.Marks[i].X-v.Marks[i-1].X < sideGap {
			v.Marks[i].Above = !v.Marks[i-1].Above
		}
	}
	return v
}

// spread pushes increasing positions on the axis at least minGap apart (less when there are too
// many marks for the axis), first forwards, then back from the axis's end, so that two steps
// 8 s apart on a 600 s axis get two marks a reader can tell apart.
func spread(xs []float64) {
	if len(xs) < 2 {
		return
	}
	gap := min(float64(minGap), float64(axisHi-axisLo)/float64(len(xs)-1))
	for i := 1; i < len(xs); i++ {
		xs[i] = max(xs[i], xs[i-1]+gap)
	}
	xs[len(xs)-1] = min(xs[len(xs)-1], axisHi)
	for i := len(xs) - 2; i >= 0; i-- {
		xs[i] = min(xs[i], xs[i+1]-gap)
	}
}

// EndLabel writes a step at an end of the figure's axis with its unit, so that a bare number
// never stands alone: "608.755 s", "step 1,085", "producer step 3".
func EndLabel(unit, step string) string {
	if unit == "s" {
		return step + " s"
	}
	return present.StepName(unit) + " " + step
}

// AxisText says where the figure's axis starts and ends, by the marks that sit there: "The axis
// runs from step 16 (mark 1) to step 1,085 (mark 3)."
func AxisText(v JobView) string {
	last := v.Marks[len(v.Marks)-1]
	return fmt.Sprintf("The axis runs from %s (mark 1) to %s (mark %d).", EndLabel(v.StepUnit, v.Marks[0].Step), EndLabel(v.StepUnit, last.Step), last.N)
}

// OneStepText is said instead of a figure when every event happens at one step, where a figure
// would be a single dot: the order is the list's.
func OneStepText(v JobView) string {
	return "All of it happens at " + EndLabel(v.StepUnit, v.Marks[0].Step) + ", in the order the list gives."
}

// timelineSummary is the figure's description for a screen reader: the marks in order.
func timelineSummary(v JobView) string {
	var b strings.Builder
	b.WriteString("Timeline of job " + v.ID + ": ")
	for i, m := range v.Marks {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(present.StepName(v.StepUnit) + " " + m.Step + ", " + m.Words)
	}
	b.WriteString(". The list below says each event in words.")
	return b.String()
}

// ParamsText writes a run's parameters as its form labels them, in field order, each value as a
// sentence writes it with its unit: "Jobs 5,000 · Crash rate 0.02 · Max redelivery delay 2,000 jobs".
func ParamsText(e *experiments.Experiment, params any) string {
	vals := e.Say(params)
	parts := make([]string, 0, len(e.Fields))
	for _, f := range e.Fields {
		part := f.Label + " " + vals[f.Name]
		if f.Unit != "" {
			part += " " + f.Unit
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " · ")
}

// containsKind reports whether a mark's comma-separated kinds include kind.
func containsKind(kinds, kind string) bool {
	return slices.Contains(strings.Split(kinds, ", "), kind)
}
