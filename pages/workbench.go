package pages

import (
	"strconv"

	"effectivelyonce/experiments"
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
	WorkbenchLabID    = "wb-lab"
)

// WorkbenchView is the workbench's part of its page: the templates menu, the editor and the
// parameter form, the exercise ladder, and the result of the last check (or why there is none).
type WorkbenchView struct {
	// Action is where Check posts the form; TraceAction answers a job's timeline, ShareAction
	// keeps the source and leads to its permanent URL.
	Action, TraceAction, ShareAction string
	Templates                        []WorkbenchTemplate
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
	Result  *WorkbenchResult
	// Trace is the timeline a reader asked for, shown in the result's timeline panel.
	Trace *JobView
	// ShareURL is the permanent URL of this source when it is a share; JSONURL the same check as
	// the API's JSON.
	ShareURL, JSONURL string
	// Lab is "Run on the real lab" under a result (nil without one).
	Lab *WorkbenchLab
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

// Place says where a mistake is, as the errors list shows it.
func (e CodeErrorView) Place() string {
	if e.Line == 0 {
		return "The handler"
	}
	return "Line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Col)
}

// WorkbenchResult is a check as the page shows it.
type WorkbenchResult struct {
	Survives  bool
	Verdict   string
	Publishes bool
	Rows      []WorkbenchRow
	Failures  []WorkbenchFailure
	// Smallest is the smallest failing case in words, and URL the permalink that checks it alone.
	Smallest, SmallestURL string
	Output                string
	Dropped               int64
	Hash                  string
}

// WorkbenchRow is one crash point's row of the result table.
type WorkbenchRow struct {
	Point, Label string
	Cells        []WorkbenchCell
	Survives     bool
	// Anchor is the id of the point's failure below the table ("" for a point that survives).
	Anchor string
}

// WorkbenchCell is one count; Anchor, when set, is the "which jobs?" list behind it.
type WorkbenchCell struct {
	Text, Anchor, Label string
}

// WorkbenchFailure is a failing point told in words: its explanation, the timeline of the job the
// explanation follows, and "which jobs?" for each count that breaks it.
type WorkbenchFailure struct {
	ID, Point, Label, Explanation string
	Timeline                      *JobView
	Jobs                          []WorkbenchJobs
}

// WorkbenchJobs is one count's jobs: the first JobsShown ids, each a button that asks for that
// job's timeline (Trace is the value the form posts: "point:job").
type WorkbenchJobs struct {
	ID, Words string
	Total     int64
	IDs       []WorkbenchJob
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

// PointName is a crash point as its row names it: its number, or "relay" for the outbox relay's.
func PointName(k int) string {
	if k == workbench.RelayPoint {
		return "relay"
	}
	return strconv.Itoa(k)
}

// NewWorkbenchResult turns a check into the rows, failures and job lists the page shows.
func NewWorkbenchResult(res workbench.Result, smallestURL, hash string) WorkbenchResult {
	v := WorkbenchResult{Survives: res.Verdict.Survives, Verdict: res.Verdict.Text, Publishes: res.Publishes,
		Output: res.Output, Dropped: res.DroppedLines, Hash: hash}
	if s := res.Smallest; s != nil {
		v.Smallest, v.SmallestURL = s.Text, smallestURL
	}
	for _, p := range res.Points {
		name := PointName(p.CrashPoint)
		id := "wb-point-" + name
		row := WorkbenchRow{Point: name, Label: p.Label, Survives: p.Survives}
		cell := func(n int64, outcome string) WorkbenchCell {
			c := WorkbenchCell{Text: experiments.Thousands(n)}
			if n > 0 && !p.Survives && outcome != "" {
				c.Anchor = id + "-" + outcome
				c.Label = "which jobs? " + experiments.Thousands(n) + " " + OutcomeWords(outcome) + " at crash point " + name
			}
			return c
		}
		row.Cells = []WorkbenchCell{cell(p.Lost, workbench.OutcomeLost), cell(p.ExactlyOnce, ""),
			cell(p.Duplicated, workbench.OutcomeDuplicated), cell(p.Deliveries, "")}
		if res.Publishes {
			row.Cells = append(row.Cells, cell(deref(p.EventsLost), workbench.OutcomeEventsLost),
				cell(deref(p.EventsPhantom), workbench.OutcomeEventsPhantom), cell(deref(p.EventsDuplicated), workbench.OutcomeEventsDuplicated))
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
				ids := p.IDs[o]
				if len(ids) == 0 {
					continue
				}
				j := WorkbenchJobs{ID: id + "-" + o, Words: experiments.Thousands(int64(len(ids))) + " " + OutcomeWords(o), Total: int64(len(ids))}
				for _, job := range ids[:min(len(ids), JobsShown)] {
					js := strconv.FormatInt(job, 10)
					j.IDs = append(j.IDs, WorkbenchJob{ID: js, Trace: strconv.Itoa(p.CrashPoint) + ":" + js})
				}
				f.Jobs = append(f.Jobs, j)
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

// WorkbenchHead is the result table's header, as the command line's table names its columns.
func (r WorkbenchResult) Head() []string {
	h := []string{"lost", "exactly once", "duplicated", "deliveries"}
	if r.Publishes {
		h = append(h, "events lost", "phantom", "duplicated events")
	}
	return h
}
