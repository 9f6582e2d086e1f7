package pages

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/lab"
	"effectivelyonce/present"
)

// LabView is the live lab's part of its page: the form, and the current or last run. Off says
// the instance has the lab turned off, and then nothing else is shown.
type LabView struct {
	Off bool
	// Action is where the form posts a run; Notice is why the last press of Run was refused as a
	// whole (another run under way), shown above the form.
	Action  string
	Notice  string
	Designs []LabDesign
	// DesignError is the message for the designs' checkboxes.
	DesignError string
	Fields      []Field
	// Refused lists every refused value, designs first, in the form's order: the summary above
	// the form that an experiment's refused run shows too.
	Refused []LabRefused
	// FireAndForget is the fire-and-forget acks checkbox, as the reader left it.
	FireAndForget bool
	Status        *LabStatus
}

// LabRefused is one refused value as the summary lists it: the field's label, its message, and
// the input that holds it.
type LabRefused struct {
	Label   string
	Error   string
	InputID string
}

// LabDesign is one design's checkbox.
type LabDesign struct {
	ID      string
	Value   string
	Label   string
	Checked bool
}

// LabStatus is a run as the progress box shows it: live while Running, with the results once it
// has ended. ProgressURL is polled every Every while it runs, and not once it has ended.
type LabStatus struct {
	ID      string
	Running bool
	Ended   string // how the run ended, as a sentence; "" while it runs
	// Yours says the viewer started the run, and so may cancel it; anyone else is told when they
	// can start their own (in about Left seconds, while it runs).
	Yours bool
	Left  string
	// Settings is every value the run was started with, as a sentence (lab.Params.Settings).
	Settings    string
	Design      string // the design running now
	Index       int    // 1-based, of Count designs
	Count       int
	Jobs        int64
	Done        int64
	Killed      int64
	Redelivered int64
	Elapsed     string
	ProgressURL string
	// Every is how often the box asks ProgressURL again while the run goes: LabEvery when zero. A
	// study room's boxes, on every member's screen at once, ask less often (see LabPaced).
	Every time.Duration
	// AskAtOnce has the box ask ProgressURL as soon as it is shown, besides every Every: a box a
	// room's event stream sent was drawn for the stream's request, whose cookies may be older
	// than the run (the host's, who has just started it and owns it), and the browser's own ask
	// draws it for the browser as it is now. An answer to that ask never sets it again.
	AskAtOnce bool
	// Room says a study room shows the box, and to whom: RoomHost or RoomMember ("" outside a
	// room), so that it says whose run it is in the room's words (LabInRoom).
	Room string
	// Bar says the box is in the room bar's fold, whose summary line each poll renews.
	Bar       bool
	CancelURL string
	PageURL   string // the page with the run's values, at the box: progress for a reader without script
	FormURL   string // the page with the run's values, at the form: to run them again
	Results   []LabResult
}

// LabResult is one design's table: the counts on the real system beside the model's.
type LabResult struct {
	ID     string
	Design string
	Jobs   int64
	// Settings is what this design ran with: workers, and the crash rate and stream seed of a
	// crash design, or the lease seed and timeout of a lease design.
	Settings    string
	Crashed     int64
	Killed      int64
	Redelivered int64
	Seconds     string
	Rows        []LabRow
	Matches     bool
	Events      []string
	// Lease marks a lease design (or a handler that calls work()), which runs on real time:
	// Tolerance counts its jobs that end within a few milliseconds of the lease, which real-time
	// jitter can move either way.
	Lease     bool
	Tolerance int64
	// BlockURL is block 6 at this run's jobs, lease seed and timeout, whose count is the model's
	// column here; "" for a crash design.
	BlockURL string
	// Workers is how many workers the run started with: in the log, a higher number is a
	// replacement for a killed one.
	Workers int
	// FireAndForget marks a run with plain acks, whose duplicates may exceed the model's.
	FireAndForget bool
	Extra         int64 // duplicates beyond the model's (lab.Result.ExtraDuplicates)
	// PublishRetry marks the publish-retry design, which runs no worker: Retried jobs were
	// published twice, AckDuplicates of the retries the broker answered as duplicates, and
	// NearEdge of them land so near the window's end that the model's verdict is not claimed.
	PublishRetry  bool
	Retried       int64
	AckDuplicates int64
	NearEdge      int64
	// Handler marks a reader's handler run, whose model is the workbench's check of the same
	// handler, stream and crash point (so Lease has no block 6 to link to).
	Handler bool
	// Replayed marks a handler's model replayed at the redeliveries the real broker made;
	// WindowEdge counts its jobs redelivered near the key window's edge, and Drawn says what the
	// workbench's own drawn delays gave, when that differs ("" otherwise).
	Replayed   bool
	WindowEdge int64
	Drawn      string
	// DiedWithWorker counts a lease run's deliveries that were still working when their worker
	// ended: redeliveries the model never made, whose jobs the tolerance leaves unclaimed.
	DiedWithWorker int64
	// LateRenewals counts a lease-heartbeat run's deliveries whose renewals came further apart
	// than the lease: the machine's delay, which the model's heartbeat never has.
	LateRenewals int64
	// SlowAcks counts the deliveries without renewals acked at or past their lease though their
	// model duration ends inside it: a machine slower than the model, which the model never is.
	SlowAcks int64
	// KilledDeliveries counts the deliveries that died at the crash point: more than Killed when
	// a worker holding several jobs died once for two of them.
	KilledDeliveries int64
	// WithinWhy says why a row off the model by no more than the tolerance still agrees.
	WithinWhy string
}

// LabRow is one outcome: the real count, the model's, and whether they differ.
type LabRow struct {
	Name    string
	Real    int64
	Model   int64
	Differs bool
	Within  bool // not equal, but within the run's stated tolerance
	Extra   bool // not equal, by the duplicates fire-and-forget acks added, which the model lacks
}

// NewLabResult lays one design's result out for its table: the rows and their marks are the lab's
// own comparison (lab.Result.Compare), the one the command line's exit status reads too.
func NewLabResult(r lab.Result, site Site) LabResult {
	v := LabResult{ID: "lab-" + string(r.Design), Design: r.Design.Label(), Jobs: r.Jobs, Crashed: r.Crashed,
		Killed: r.WorkersKilled, Redelivered: r.Redeliveries, Seconds: fmt.Sprintf("%.1f", r.Seconds), Matches: r.MatchesModel(),
		Lease: r.Design.IsLease(), Tolerance: r.Tolerance, FireAndForget: r.FireAndForgetAcks && !r.Design.IsLease(), Workers: r.Workers,
		DiedWithWorker: r.DiedWithWorker, KilledDeliveries: r.KilledDeliveries, LateRenewals: r.LateRenewals, SlowAcks: r.SlowAcks}
	v.Settings = present.Plural(int64(r.Workers), "worker", "workers")
	switch pr := r.PublishRetry; {
	case v.Lease:
		v.Settings += ", " + lab.LeaseSettings(r.Seed, r.LeaseTimeout)
		v.BlockURL = site.URL("/blocks/6") + "?" + url.Values{"jobs": {strconv.FormatInt(r.Jobs, 10)}, "seed": {strconv.FormatInt(r.Seed, 10)},
			"timeouts": {experiments.FormatFloat(r.LeaseTimeout)}}.Encode()
	case pr != nil:
		v.PublishRetry, v.Retried, v.AckDuplicates, v.NearEdge = true, pr.Retried, pr.AckDuplicates, pr.NearEdge
		v.Settings = fmt.Sprintf("publish acks lost at rate %s, stream seed %d, dedup window %s s", experiments.FormatFloat(r.CrashRate), r.Seed,
			experiments.FormatFloat(pr.DupWindow))
	default:
		v.Settings += fmt.Sprintf(", crash rate %s, stream seed %d", experiments.FormatFloat(r.CrashRate), r.Seed)
	}
	if h := r.Handler; h != nil {
		v.Handler, v.Lease, v.Replayed, v.WindowEdge = true, h.LeaseTime, h.Replayed, h.NearEdge
		v.Settings += fmt.Sprintf(", crash point %d (%s)", h.CrashPoint, h.Label)
		if d := h.Drawn; h.Replayed && d != nil && (d.Lost != r.ModelLost || d.Duplicated != r.ModelDuplicated) {
			v.Drawn = fmt.Sprintf("at the workbench's own drawn delays the model said %s lost and %s duplicated",
				experiments.Thousands(d.Lost), experiments.Thousands(d.Duplicated))
		}
	}
	if v.FireAndForget && v.Matches {
		v.Extra = r.ExtraDuplicates()
	}
	// The tolerance as the note states it, by its parts: the lease's edge, the key window's, and
	// the deliveries that died with their worker are each said apart.
	v.Tolerance = r.EdgeTolerance()
	v.WithinWhy = "within the jitter"
	switch {
	case v.PublishRetry:
		v.WithinWhy = "near the window's edge"
	case v.WindowEdge > 0:
		v.WithinWhy = "near the key window's edge"
	case !v.Lease && v.DiedWithWorker > 0:
		v.WithinWhy = "from deliveries that died with their worker"
	}
	for _, c := range r.Compare() {
		v.Rows = append(v.Rows, LabRow{Name: labCountName(c.Count), Real: c.Real, Model: c.Model,
			Differs: c.Agree == lab.Differs, Within: c.Agree == lab.Within, Extra: c.Agree == lab.Extra})
	}
	for _, e := range r.Events {
		v.Events = append(v.Events, LabEventSentence(e))
	}
	return v
}

// labCountName is a compared count's row heading.
func labCountName(count string) string {
	switch count {
	case lab.CountLost:
		return "Lost"
	case lab.CountDuplicated:
		return "Duplicated"
	case lab.CountExactlyOnce:
		return "Exactly once"
	case lab.CountKilled:
		return "Killed at the crash point"
	case lab.CountEventsLost:
		return "Events lost"
	case lab.CountEventsPhantom:
		return "Phantom events"
	case lab.CountEventsDuplicated:
		return "Duplicated events"
	case lab.CountStoredTwice:
		return "Stored twice"
	case lab.CountStoredOnce:
		return "Stored once"
	}
	return count
}

// LabEventSentence tells one delivery in plain words, as the log under a table lists it. A worker
// the supervisor started in place of a killed one says so: with 2 workers, "worker 9" is not a
// ninth worker at once but the seventh replacement.
func LabEventSentence(e lab.Event) string {
	who := fmt.Sprintf("worker %d", e.Worker)
	if e.Replaces > 0 {
		who += fmt.Sprintf(" (a replacement, started when worker %d was killed)", e.Replaces)
	}
	return fmt.Sprintf("Job %d, delivery %d, to %s at %s: %s.", e.Job, e.Attempt, who, LabDuration(e.At), e.What)
}

// LabDuration writes a time since the run began as the progress box does: to the tenth of a
// second, since the box updates once a second.
func LabDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// labDiff is the real count less the model's, signed, as a differing row shows it.
func labDiff(real, model int64) string { return fmt.Sprintf("%+d", real-model) }

// labRefusedIntro leads the list of refused values, as an experiment's summary does.
func labRefusedIntro(n int) string {
	if n == 1 {
		return "One value needs fixing:"
	}
	return strconv.Itoa(n) + " values need fixing:"
}

// labWhose says whose the run is, as the box's first words. In a study room the run is the
// host's: the host reads it as theirs even from a browser that did not start it (their stream's,
// drawn with cookies older than the run), and every member as the host's.
func labWhose(s LabStatus) string {
	switch {
	case s.Yours || s.Room == RoomHost:
		return "Your run"
	case s.Room == RoomMember:
		return "The host's run"
	}
	return "Someone else's run"
}

// Whose a study room's lab box is drawn for (LabStatus.Room).
const (
	RoomHost   = "host"
	RoomMember = "member"
)

// LabInRoom answers s as a study room shows it to its host (host) or a member, in the room bar's
// fold (bar) or on the room's page. The room's words ride in the progress address, as the pace
// does (LabPaced), so that every poll's answer keeps them; they only label the box: Cancel is
// still the run owner's alone.
func LabInRoom(s LabStatus, host, bar bool) LabStatus {
	s.Room, s.Bar = RoomMember, bar
	if host {
		s.Room = RoomHost
	}
	kv := []string{"room", s.Room}
	if bar {
		kv = append(kv, "bar", "1")
	}
	s.ProgressURL = withQuery(s.ProgressURL, kv...)
	return s
}

// LabLiveWith is what a box's moving part sends with each poll (labLiveVals): the run it shows,
// whether it is drawn as the asker's own, and how many tables it holds, so that the answer can
// be that part alone while nothing else has changed (LabLiveOnly).
type LabLiveWith struct {
	Run     string
	Yours   bool
	Results int
}

// LabLiveOnly reports whether a poll from a box that shows had can be answered with the box's
// moving part alone (and the tables finished since, appended): the same run, still going, drawn
// for the same owner. Anything else redraws the whole box: the run ended (Cancel goes), or the
// asker's Cancel must appear.
func LabLiveOnly(s LabStatus, had LabLiveWith) bool {
	return s.Running && s.ID == had.Run && s.Yours == had.Yours && had.Results <= len(s.Results)
}

// labLiveVals is what the moving part's poll sends (LabLiveWith), as htmx's hx-vals.
func labLiveVals(s LabStatus) string {
	yours := "0"
	if s.Yours {
		yours = "1"
	}
	return fmt.Sprintf(`{"part":"live","run":%q,"yours":%q,"results":"%d"}`, s.ID, yours, len(s.Results))
}

// labPartState says, after the bar's fold of the room's lab run, where the run is, so that a
// member who folded it (as a phone does) still reads how far it has gone, or how it ended.
func labPartState(s LabStatus) string {
	if !s.Running {
		word, _, ok := strings.Cut(s.Ended, ":")
		if !ok || word == "" || strings.Contains(word, " ") {
			return "ended"
		}
		return strings.ToLower(word)
	}
	jobs := experiments.Thousands(s.Done) + " of " + experiments.Thousands(s.Jobs) + " jobs"
	if s.Count > 1 {
		return "design " + strconv.Itoa(s.Index) + " of " + strconv.Itoa(s.Count) + ", " + jobs
	}
	return jobs
}

// labPermille is how far the run has gone, in thousandths of all its designs' jobs.
func labPermille(s LabStatus) int {
	if !s.Running {
		return 1000
	}
	done := float64(max(s.Index-1, 0))
	if s.Jobs > 0 {
		done += min(float64(s.Done)/float64(s.Jobs), 1)
	}
	return int(1000 * done / float64(max(s.Count, 1)))
}

// LabEvery is how often a progress box asks for the run's progress by default: often enough that
// the counts move as the jobs go.
const LabEvery = 300 * time.Millisecond

// LabPaced answers s polled every every instead of LabEvery, its progress address saying so (as
// "every", which the lab's progress answer keeps), so that the box drawn again by each poll keeps
// the pace. every below LabEvery is LabEvery.
func LabPaced(s LabStatus, every time.Duration) LabStatus {
	s.Every = max(every, LabEvery)
	s.ProgressURL = withQuery(s.ProgressURL, "every", s.Every.String())
	return s
}

// withQuery is address with its query's keys set to the values that follow each in kv; an
// address that does not parse is answered as it is.
func withQuery(address string, kv ...string) string {
	u, err := url.Parse(address)
	if err != nil {
		return address
	}
	q := u.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// labTrigger is the box's htmx trigger while the run goes: every Every, and at once when it asks
// at once.
func labTrigger(s LabStatus) string {
	every := "every " + strconv.FormatInt(max(s.Every, LabEvery).Milliseconds(), 10) + "ms"
	if s.AskAtOnce {
		return "load, " + every
	}
	return every
}

// labWhoseAttr marks the box for scripts and tests: "yours" or "others".
func labWhoseAttr(s LabStatus) string {
	if s.Yours {
		return "yours"
	}
	return "others"
}

// LabWait writes a wait as the lab's notices do: seconds under two minutes, then minutes.
func LabWait(d time.Duration) string {
	s := int(math.Ceil(d.Seconds()))
	if s < 120 {
		return strconv.Itoa(max(s, 1)) + " s"
	}
	return strconv.Itoa((s+59)/60) + " min"
}

// labWorkers names the first workers of a run: "worker 1", "workers 1 and 2", "workers 1 to 3".
func labWorkers(n int) string {
	switch n {
	case 1:
		return "with worker 1"
	case 2:
		return "with workers 1 and 2"
	}
	return fmt.Sprintf("with workers 1 to %d", n)
}

// labWait tells a viewer who cannot cancel the run who can, and when it should end: in a study
// room the host, anywhere else the browser that started it, and then they may start their own.
func labWait(s LabStatus) string {
	switch s.Room {
	case RoomMember:
		return "Only the host can cancel it. It should end in about " + s.Left + "."
	case RoomHost:
		return "Only the browser you started it from can cancel it. It should end in about " + s.Left + "."
	}
	return "Only the browser that started it can cancel it. The lab runs one at a time: you can start your own run when this one ends, in about " + s.Left + "."
}
