package pages

import (
	"strconv"
	"strings"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
	"effectivelyonce/workbench"
)

// The workbench's element ids: the form (which buttons elsewhere on the page submit with their
// form attribute), the textarea the editor enhances, its errors list, the parameters' fieldset,
// the result panel and the timeline panel inside it.
const (
	WorkbenchFormID   = "wb-form"
	WorkbenchSourceID = "wb-source"
	WorkbenchParamsID = "wb-params"
	WorkbenchResultID = "wb-result"
	WorkbenchTraceID  = "wb-trace"
	WorkbenchJobsID   = "wb-which"
	WorkbenchLabID    = "wb-lab"
	// WorkbenchShareStatusID says beside Share what became of it; a share's URL ends with it, so
	// the page opens there.
	WorkbenchShareStatusID = "wb-share-status"
	// WorkbenchInPlaceID is the box under a block's design that "Edit and check" loads the
	// workbench's form into.
	WorkbenchInPlaceID = "wb-in-place"
)

// EditLink is one "Edit and check" under a block's design: URL opens the workbench's page with
// the template chosen (where the link leads without script), InPlace the same form and result
// for htmx to load into the block's page, under the link.
type EditLink struct {
	Title, URL, InPlace string
}

// WorkbenchView is the workbench's part of its page: the templates menu, the editor and the
// parameter form, the exercise ladder, and the result of the last check (or why there is none).
type WorkbenchView struct {
	// Action is where Check posts the form; TraceAction answers a job's timeline, JobsAction a
	// count's jobs, ShareAction keeps the source and leads to its permanent URL.
	Action, TraceAction, JobsAction, ShareAction string
	Templates                                    []WorkbenchTemplate
	// Template is the name of the template the source started from ("" for a share's own).
	Template string
	Source   string
	Fields   []WorkbenchField
	Ladder   []Exercise
	// CodeErrors are the handler's mistakes, at their lines (line 0: the whole handler's).
	CodeErrors []CodeErrorView
	// FieldErrors counts the refused parameters; each is said beside its field.
	FieldErrors int
	// Problem says why nothing was checked when neither the code nor a field is at fault (busy,
	// rate limited, the sandbox failed).
	Problem string
	// Unread says the form was too large for the server to read, so Source and Fields are not the
	// reader's.
	Unread bool
	// ShareError says beside Share why it was refused.
	ShareError string
	Result     *WorkbenchResult
	// Trace is the timeline a reader asked for, shown in the result's timeline panel.
	Trace *JobView
	// Jobs is the "which jobs?" list a reader asked for, shown in the result's jobs panel.
	Jobs *WorkbenchJobs
	// ShareURL is the permanent URL of this source when it is a share, ShareLink the same with the
	// check's parameters (the link Share says it made); JSONURL the same check as the API's JSON.
	ShareURL, ShareLink, JSONURL string
	// Lab is "Run on the real lab" under a result (nil without one).
	Lab *WorkbenchLab
	// Round is the study room's handler round the reader may submit the editor's handler to (nil
	// when there is none); Submitted says what became of a submission, above its check.
	Round     *WorkbenchRound
	Submitted *RoundNote
}

// WorkbenchLab is the control that runs the checked handler on the live lab: its worker
// processes, a real broker and database, at one crash point of the result's table. Its inputs
// belong to the workbench's form (their form attribute), so the run takes the editor's source and
// the form's stream. Off says the instance has the lab turned off, and then nothing else shows.
type WorkbenchLab struct {
	Off    bool
	Action string
	Points []WorkbenchLabPoint
	// Jobs is the run's number of jobs, which the lab bounds far below the check's.
	Jobs  Field
	Again bool
	// Notice says why the last press was refused as a whole (another run under way, the hourly
	// allowance, the lab's own limits).
	Notice string
	Status *LabStatus
}

// WorkbenchLabPoint is one crash point the lab can kill its workers at.
type WorkbenchLabPoint struct {
	Value, Label string
	Selected     bool
}

// WorkbenchTemplate is one entry of the templates menu.
type WorkbenchTemplate struct {
	Name, Title, From, Summary, URL string
	Current                         bool
}

// WorkbenchField is one parameter of a check in the form: a text field, or a menu where the
// parameter takes only words (Options).
type WorkbenchField struct {
	Field
	Options []string
}

// Exercise is one rung of the ladder: what to make the handler do, and where to start.
type Exercise struct {
	Title, Task, URL string
}

// CodeErrorView is a mistake in the handler, for the errors list the editor marks lines from.
type CodeErrorView struct {
	Line, Col int
	Message   string
}

// CodeAlert is the alert above the handler's mistakes. The editor marks a mistake at its line; a
// refusal of the whole handler (its size) has no line to mark, and a form too large to read left
// nothing in the page to keep.
func (v WorkbenchView) CodeAlert() string {
	for _, e := range v.CodeErrors {
		if e.Line > 0 {
			return "The handler has a mistake; the editor marks its line, and the form keeps what you wrote."
		}
	}
	if v.Unread {
		return "The form was too large for the server to read; below is what to do."
	}
	return "The handler was refused as a whole, for the reason below, so no line is marked; the form keeps what you wrote."
}

// Text is a mistake as the errors list says it: at its place ("Line 3, column 5: undefined:
// tx"), or, for a fault of the whole handler, which has no place, the message as a sentence.
func (e CodeErrorView) Text() string {
	if e.Line == 0 {
		return sentence(e.Message)
	}
	return "Line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Col) + ": " + e.Message
}

// WorkbenchResult is a check as the page shows it.
type WorkbenchResult struct {
	Survives  bool
	Verdict   string
	Publishes bool
	// Producer says the check ran in the producer's world, whose first count is failed requests.
	Producer bool
	Rows     []WorkbenchRow
	Failures []WorkbenchFailure
	// Smallest is the smallest failing case in words, SmallestNote what its search could not
	// try, and SmallestURL the permalink that checks it alone.
	Smallest, SmallestNote, SmallestURL string
	Output                              string
	Dropped                             int64
	Hash                                string
	// Jobs is the stream's length, which the table's caption states: the page's introduction
	// names no number, since a reader may set any.
	Jobs int64
}

// WorkbenchRow is one crash point's row of the result table.
type WorkbenchRow struct {
	Point, Label string
	Cells        []WorkbenchCell
	Survives     bool
	// Anchor is the id of the point's failure below the table ("" for a point that survives).
	Anchor string
}

// WorkbenchCell is one count; Which, when set, asks for the "which jobs?" list behind it (the
// value the form posts: "point:outcome"), and Label names that list for a screen reader.
type WorkbenchCell struct {
	Text, Which, Label string
}

// WorkbenchFailure is a failing point told in words: its explanation, the timeline of the job the
// explanation follows, and "which jobs?" for each count that breaks it.
type WorkbenchFailure struct {
	ID, Point, Label, Explanation string
	Timeline                      *JobView
	Jobs                          []WorkbenchJobs
}

// WorkbenchJobs is one count's jobs: the first JobsShown ids, each a button that asks for that
// job's timeline (Trace is the value the form posts: "point:job"). Which is the count's
// "point:outcome", which the CSV of every id is asked for by: CSVURL, a link, where the handler
// is a share, else a button that posts the form.
type WorkbenchJobs struct {
	ID, Words string
	// Point and Label say the crash point the list is at, for its heading.
	Point, Label string
	Which        string
	CSVURL       string
	Total        int64
	IDs          []WorkbenchJob
}

// WorkbenchJob is one listed job.
type WorkbenchJob struct {
	ID, Trace string
}

// workbenchExperiment names the workbench to the jobs views, which say an experiment's name and
// title beside a timeline.
var workbenchExperiment = &experiments.Experiment{Name: "workbench", Title: "Your handler"}

// NewWorkbenchTimeline lays out a trace of the reader's handler with the jobs views' figure.
func NewWorkbenchTimeline(tr experiments.Trace) JobView {
	return NewJobView(workbenchExperiment, tr)
}

// PointName is a crash point as its row names it: its number, "relay" for the outbox relay's, or
// "as drawn" for the producer's world, whose crashes fall where the stream draws them (as site
// check names it).
func PointName(k int) string {
	switch {
	case k == workbench.RelayPoint:
		return "relay"
	case k < 0:
		return "as drawn"
	}
	return strconv.Itoa(k)
}

// PointKey is a crash point in an element id or a file name: its number, "relay" or "drawn".
func PointKey(k int) string {
	switch {
	case k == workbench.RelayPoint:
		return "relay"
	case k < 0:
		return "drawn"
	}
	return strconv.Itoa(k)
}

// WorkbenchWhich is the value that asks for one count's jobs: "point:outcome", the point as
// its number in the check's JSON.
func WorkbenchWhich(point int, outcome string) string { return strconv.Itoa(point) + ":" + outcome }

// WorkbenchOutcomeWords names a count of the workbench's in words, for a list's heading and its
// link's label.
func WorkbenchOutcomeWords(outcome string) string {
	switch outcome {
	case workbench.OutcomeLost:
		return "lost"
	case workbench.OutcomeFailed:
		return "failed in front of their caller"
	case workbench.OutcomeExactlyOnce:
		return "applied exactly once"
	case workbench.OutcomeDuplicated:
		return "applied more than once"
	case workbench.OutcomeRedelivered:
		return "delivered more than once"
	case workbench.OutcomeEventsLost:
		return "with their event lost"
	case workbench.OutcomeEventsPhantom:
		return "with a phantom event"
	case workbench.OutcomeEventsDuplicated:
		return "with their event published more than once"
	}
	return present.OutcomeWords(outcome)
}

// NewWorkbenchJobs is the list of one count's jobs at a point: the first JobsShown of ids as
// timeline buttons. csvURL is the link to all of them, "" where the CSV is asked for by a post.
func NewWorkbenchJobs(p workbench.Point, outcome string, ids []int64, csvURL string) WorkbenchJobs {
	name := PointName(p.CrashPoint)
	j := WorkbenchJobs{ID: "wb-point-" + PointKey(p.CrashPoint) + "-" + outcome,
		Words: experiments.Thousands(int64(len(ids))) + " " + WorkbenchOutcomeWords(outcome), Total: int64(len(ids)),
		Point: name, Label: p.Label, Which: WorkbenchWhich(p.CrashPoint, outcome), CSVURL: csvURL}
	for _, job := range ids[:min(len(ids), JobsShown)] {
		js := strconv.FormatInt(job, 10)
		j.IDs = append(j.IDs, WorkbenchJob{ID: js, Trace: strconv.Itoa(p.CrashPoint) + ":" + js})
	}
	return j
}

// NewWorkbenchResult turns a check into the rows, failures and job lists the page shows. Every
// count above 0 asks for its jobs; a failing point also lists the jobs behind its failing counts
// under its explanation.
func NewWorkbenchResult(res workbench.Result, smallestURL, hash string) WorkbenchResult {
	v := WorkbenchResult{Survives: res.Verdict.Survives, Verdict: res.Verdict.Text, Publishes: res.Publishes,
		Producer: res.Params.World == workbench.WorldProducer, Output: res.Output, Dropped: res.DroppedLines, Hash: hash, Jobs: res.Params.Jobs}
	if s := res.Smallest; s != nil {
		v.Smallest, v.SmallestNote, v.SmallestURL = s.Text, s.Note, smallestURL
	}
	outcomes := res.Outcomes()
	for _, p := range res.Points {
		name := PointName(p.CrashPoint)
		id := "wb-point-" + PointKey(p.CrashPoint)
		row := WorkbenchRow{Point: name, Label: p.Label, Survives: p.Survives}
		counts := map[string]int64{workbench.OutcomeLost: p.Lost, workbench.OutcomeFailed: deref(p.Failed), workbench.OutcomeExactlyOnce: p.ExactlyOnce,
			workbench.OutcomeDuplicated: p.Duplicated, workbench.OutcomeRedelivered: p.Deliveries,
			workbench.OutcomeEventsLost: deref(p.EventsLost), workbench.OutcomeEventsPhantom: deref(p.EventsPhantom), workbench.OutcomeEventsDuplicated: deref(p.EventsDuplicated)}
		for _, o := range outcomes {
			n := counts[o]
			c := WorkbenchCell{Text: experiments.Thousands(n)}
			// Deliveries count deliveries, not jobs: their list is the jobs handed out more than
			// once, which is empty when every job was delivered once.
			listed := n
			if o == workbench.OutcomeRedelivered {
				listed = int64(len(p.IDs[o]))
			}
			if listed > 0 {
				c.Which = WorkbenchWhich(p.CrashPoint, o)
				c.Label = "which jobs? " + experiments.Thousands(listed) + " " + WorkbenchOutcomeWords(o) + " at crash point " + name
				if o == workbench.OutcomeRedelivered {
					// The name starts with the number shown, as a reader who speaks it says it.
					c.Label = c.Text + " deliveries: which jobs? " + experiments.Thousands(listed) + " " + WorkbenchOutcomeWords(o) + " at crash point " + name
				}
			}
			row.Cells = append(row.Cells, c)
		}
		if !p.Survives {
			row.Anchor = id
			f := WorkbenchFailure{ID: id, Point: name, Label: p.Label, Explanation: p.Explanation}
			if p.Job != nil && len(p.Timeline) > 0 {
				unit := "job"
				if res.LeaseTime {
					unit = "s"
				}
				tl := NewWorkbenchTimeline(experiments.Trace{ID: *p.Job, Outcome: explainedOutcome(p, *p.Job), Point: p.Label, StepUnit: unit, Events: p.Timeline})
				f.Timeline = &tl
			}
			for _, o := range []string{workbench.OutcomeLost, workbench.OutcomeDuplicated, workbench.OutcomeEventsLost,
				workbench.OutcomeEventsPhantom, workbench.OutcomeEventsDuplicated} {
				if ids := p.IDs[o]; len(ids) > 0 {
					f.Jobs = append(f.Jobs, NewWorkbenchJobs(p, o, ids, ""))
				}
			}
			v.Failures = append(v.Failures, f)
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// explainedOutcome is what happened to the job a failure's explanation follows.
func explainedOutcome(p workbench.Point, job int64) string {
	for _, o := range []string{workbench.OutcomeLost, workbench.OutcomeDuplicated, workbench.OutcomeEventsLost,
		workbench.OutcomeEventsPhantom, workbench.OutcomeEventsDuplicated} {
		for _, id := range p.IDs[o] {
			if id == job {
				return o
			}
		}
	}
	return workbench.OutcomeExactlyOnce
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// Head is the result table's header, as the command line's table names its columns.
func (r WorkbenchResult) Head() []string {
	h := []string{"lost", "exactly once", "duplicated", "deliveries"}
	if r.Producer {
		h[0] = "failed"
	}
	if r.Publishes {
		h = append(h, "events lost", "phantom", "duplicated events")
	}
	return h
}

// codeParts splits s at its backticks: the odd parts are code. An unpaired last backtick is kept
// in the text before it.
func codeParts(s string) []string {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		last := parts[len(parts)-1]
		parts = parts[:len(parts)-1]
		parts[len(parts)-1] += "`" + last
	}
	return parts
}

// PlainCode is a text of CodeText's where no markup may go (a menu's option, a label for a
// screen reader): the code as it is, without its backticks.
func PlainCode(s string) string { return strings.Join(codeParts(s), "") }

// workbenchPlace puts a crash point's label after a job's outcome: "when the worker dies after
// `queue.ack()`", "when the relay dies after publishing…"; a label that is no event of its own
// (the producer's world's) in brackets.
func workbenchPlace(label string) string {
	switch {
	case strings.HasPrefix(label, "dies "):
		return "when the worker " + label
	case strings.HasPrefix(label, "the relay dies "):
		return "when " + label
	case label == "":
		return ""
	}
	return "(" + label + ")"
}
