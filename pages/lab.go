package pages

import (
	"fmt"
	"time"

	"effectivelyonce/lab"
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
	// FireAndForget is the fire-and-forget acks checkbox, as the reader left it.
	FireAndForget bool
	Status        *LabStatus
}

// LabDesign is one design's checkbox.
type LabDesign struct {
	Value   string
	Label   string
	Checked bool
}

// LabStatus is a run as the progress box shows it: live while Running, with the results once it
// has ended. ProgressURL is polled once a second while it runs, and not once it has ended.
type LabStatus struct {
	ID          string
	Running     bool
	Ended       string // how the run ended, as a sentence; "" while it runs
	Design      string // the design running now
	Index       int    // 1-based, of Count designs
	Count       int
	Jobs        int64
	Done        int64
	Killed      int64
	Redelivered int64
	Elapsed     string
	ProgressURL string
	CancelURL   string
	PageURL     string // the page itself, at the box: progress for a reader without script
	Results     []LabResult
}

// LabResult is one design's table: the counts on the real system beside the model's.
type LabResult struct {
	ID          string
	Design      string
	Jobs        int64
	Crashed     int64
	Killed      int64
	Redelivered int64
	Seconds     string
	Rows        []LabRow
	Matches     bool
	Events      []string
	// Lease marks a lease design, which runs on real time: Tolerance counts its jobs that end
	// within a few milliseconds of the lease, which real-time jitter can move either way.
	Lease     bool
	Tolerance int64
	// FireAndForget marks a run with plain acks, whose duplicates may exceed the model's.
	FireAndForget bool
	Extra         int64 // duplicates beyond the model's (lab.Result.ExtraDuplicates)
}

// LabRow is one outcome: the real count, the model's, and whether they differ.
type LabRow struct {
	Name    string
	Real    int64
	Model   int64
	Differs bool
	Within  bool // not equal, but within a lease run's tolerance
	Extra   bool // not equal, by the duplicates fire-and-forget acks added, which the model lacks
}

// LabDesignLabel is a design's name in plain words; a design the page does not know yet (one
// added to the lab after this page) shows its command-line name.
func LabDesignLabel(d lab.Design) string {
	switch d {
	case lab.AckBeforeWork:
		return "Ack before work"
	case lab.AckAfterWork:
		return "Ack after work"
	case lab.DedupOutsideTx:
		return "Dedup key outside the transaction"
	case lab.DedupInTx:
		return "Dedup key in the same transaction"
	case lab.LeaseNoRenewal:
		return "Lease without renewal"
	case lab.LeaseHeartbeat:
		return "Lease with a heartbeat"
	}
	return string(d)
}

// NewLabResult lays one design's result out for its table. Exactly once has no model count of
// its own: it is what the model leaves of the jobs after the lost and the duplicated.
func NewLabResult(r lab.Result) LabResult {
	modelOnce := r.Jobs - r.ModelLost - r.ModelDuplicated
	v := LabResult{ID: "lab-" + string(r.Design), Design: LabDesignLabel(r.Design), Jobs: r.Jobs, Crashed: r.Crashed,
		Killed: r.WorkersKilled, Redelivered: r.Redeliveries, Seconds: fmt.Sprintf("%.1f", r.Seconds), Matches: r.MatchesModel(),
		Lease: r.Design.IsLease(), Tolerance: r.Tolerance, FireAndForget: r.FireAndForgetAcks && !r.Design.IsLease()}
	if v.FireAndForget && r.MatchesModel() {
		v.Extra = r.ExtraDuplicates()
	}
	for _, row := range []LabRow{
		{Name: "Lost", Real: r.Lost, Model: r.ModelLost},
		{Name: "Duplicated", Real: r.Duplicated, Model: r.ModelDuplicated},
		{Name: "Exactly once", Real: r.ExactlyOnce, Model: modelOnce},
	} {
		if row.Real != row.Model {
			d := row.Real - row.Model
			row.Within = v.Lease && d >= -r.Tolerance && d <= r.Tolerance
			// Plain acks: a duplicate more, an exactly-once less, per ack lost with its worker.
			row.Extra = v.Extra > 0 && (row.Name == "Duplicated" && d == v.Extra || row.Name == "Exactly once" && d == -v.Extra)
			row.Differs = !row.Within && !row.Extra
		}
		v.Rows = append(v.Rows, row)
	}
	for _, e := range r.Events {
		v.Events = append(v.Events, LabEventSentence(e))
	}
	return v
}

// LabEventSentence tells one delivery in plain words, as the log under a table lists it.
func LabEventSentence(e lab.Event) string {
	return fmt.Sprintf("Job %d, delivery %d, to worker %d at %s: %s.", e.Job, e.Attempt, e.Worker, LabDuration(e.At), e.What)
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
