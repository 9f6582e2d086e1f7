// Package lab is the live lab: it runs the notebook's crash designs on a real broker (NATS
// JetStream), a real database (a SQLite file) and real worker processes that die by SIGKILL, and
// sets the counts it measures beside the model's for the same seeded stream. The model can only
// claim that a design loses or duplicates the crashed jobs; the lab shows a real queue and a real
// transaction doing exactly that, job for job.
//
// The package reports counts and progress; it serves nothing. A caller (the site's `lab` command
// or its /lab page) calls Run, and re-executes its own binary as the worker, which calls
// WorkerMain.
package lab

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"time"

	"effectivelyonce/experiments"
)

// Design names one place for the ack and the dedup key. The names are the command line's, so a
// design travels from the CLI to the worker's environment unchanged.
type Design string

// The four crash designs: the blocks' at-most-once, at-least-once, and dedup with the key written
// outside or inside the effect's transaction.
const (
	AckBeforeWork  Design = "ack-before-work"
	AckAfterWork   Design = "ack-after-work"
	DedupOutsideTx Design = "dedup-outside-tx"
	DedupInTx      Design = "dedup-in-tx"
)

// The two lease designs of block 6: slow jobs against the broker's visibility timeout, with no
// crash at all (see lease.go).
const (
	LeaseNoRenewal Design = "lease-no-renewal"
	LeaseHeartbeat Design = "lease-heartbeat"
)

// PublishRetry is the broker's own dedup window: no worker, no crash; a producer whose publish
// acknowledgement is lost publishes the same Nats-Msg-Id again, and the stream's Duplicates window
// decides whether the broker stores it twice (see pubretry.go).
const PublishRetry Design = "publish-retry"

// DesignHandler is a reader's own handler, written for the workbench, run by the workers with the
// workbench's runtime and its operations bound to the real broker, sink and bus (see handler.go).
// It is not among Designs: a run of it needs the handler's source (Config.Handler).
const DesignHandler Design = "handler"

// Designs returns the four crash designs in the order the notebook's assembly reports them, then
// the two lease designs, then the publisher's retry; the slice is the caller's own.
func Designs() []Design {
	return []Design{AckBeforeWork, AckAfterWork, DedupOutsideTx, DedupInTx, LeaseNoRenewal, LeaseHeartbeat, PublishRetry}
}

// IsLease says whether d is one of the lease designs, which draw job durations instead of crashes.
func (d Design) IsLease() bool { return d == LeaseNoRenewal || d == LeaseHeartbeat }

// Limits the page and the CLI share: a run must end in seconds on a small machine and must not
// fork more processes than it has cores to spare.
const (
	MaxJobs    = 5000
	MaxWorkers = 8
)

// Defaults for the zero values of Config.
const (
	// DefaultAckWait is the broker's visibility timeout: short, so that a crashed job comes back
	// within a run that lasts seconds, yet long against a job that takes a millisecond or two.
	DefaultAckWait  = 250 * time.Millisecond
	DefaultDeadline = 3 * time.Minute
)

// Config is one run of one design.
type Config struct {
	Design  Design
	Jobs    int64
	Workers int
	// CrashRate is the crash designs' share of crashed jobs. The lease designs ignore it: they
	// crash nothing, so that every duplicate they show is the lease's doing.
	CrashRate float64
	// Seed is the stream's seed: of the crashes for the crash designs, of the job durations for
	// the lease designs (31 gives block 6's own durations).
	Seed int64
	// AckWait is how long the broker waits for an ack before it redelivers (0: DefaultAckWait).
	// The lease designs derive it from LeaseTimeout and refuse one set here.
	AckWait time.Duration
	// LeaseTimeout is the lease designs' visibility timeout in model seconds, as block 6 states it
	// (0: DefaultLeaseTimeout); the broker's AckWait is LeaseTimeout*ModelSecond. The crash
	// designs ignore it.
	LeaseTimeout float64
	// DupWindow is the publish-retry design's stream Duplicates window in seconds (0:
	// DefaultDupWindow); the other designs refuse one, as they keep the broker's default.
	DupWindow float64
	// Deadline bounds the whole run, counted from its start (0: DefaultDeadline).
	Deadline time.Duration
	// FireAndForgetAcks makes the workers ack with a plain Ack, which is only written to the
	// client's buffer, instead of a confirmed one (DoubleAck, which waits for the server's reply).
	// An ack still in the buffer when SIGKILL lands dies with the process, and the broker
	// redelivers a job that was done: a duplicate the model does not have (see MatchesModel).
	// The lease designs crash nothing and ignore it.
	FireAndForgetAcks bool
	// NATSURL, when set, is an existing NATS server with JetStream to use instead of the embedded
	// one; the run makes its own uniquely named stream there and deletes it afterwards.
	NATSURL string
	// SinkURL, when set, is a postgres:// database to use as the sink instead of a SQLite file:
	// the run makes a schema of its own there and drops it afterwards, cancelled or not.
	SinkURL string
	// ScratchDir is the one directory under which every run keeps its files (broker store, sink
	// file), each run in a directory of its own beside a lock it holds while it lasts; "" means
	// os.TempDir(). Run removes its own directory, and Sweep the directories of runs whose
	// process has gone without removing them (killed by SIGKILL, say).
	ScratchDir string
	// Handler is the handler design's source and crash point; nil for every other design.
	Handler *HandlerConfig
	// leaseTime is set by Run for a handler that calls work(): it lives in lease time like the
	// lease designs (jobs take block 6's durations, the ack wait is the lease).
	leaseTime bool
	// Command makes the command for one worker process, which must end in a call to WorkerMain
	// with the environment Run adds to it. Run sets its process group, its environment (on top
	// of the command's own, or the parent's) and its stderr when nil.
	Command func(ctx context.Context) *exec.Cmd
}

// FieldError is a refused Config: Field is the name the form, the API and the CLI use for it.
type FieldError struct {
	Field string
	Msg   string
}

// Error says the field's name beside the refusal, after "lab:", so a refusal logged or printed
// far from the form still says which setting it was.
func (e *FieldError) Error() string { return "lab: " + e.Field + ": " + e.Msg }

// ErrDeadline is returned (wrapped, beside the counts so far) when a run's deadline passes before
// every job was acked.
var ErrDeadline = errors.New("lab: the run's deadline passed before every job was acked")

// Validate refuses a Config the lab cannot run, naming the field; it does not fill in defaults.
func (c Config) Validate() error { return c.validate(true) }

// validate is Validate for the worker too, which checks the parameters it was given but has no
// command of its own to start.
func (c Config) validate(needCommand bool) error {
	if c.SinkURL != "" && !isPostgres(c.SinkURL) {
		return &FieldError{Field: "database_url", Msg: "the sink is a postgres:// or postgresql:// URL, or empty for a SQLite file"}
	}
	known := c.Design == DesignHandler
	for _, d := range Designs() {
		known = known || c.Design == d
	}
	if err := c.validateHandler(); err != nil {
		return err
	}
	switch {
	case !known:
		return &FieldError{FieldDesign, fmt.Sprintf("%q is not a design of this lab; it must be one of %s", c.Design, designList())}
	case c.Jobs < 1 || c.Jobs > MaxJobs:
		return outOfRange(FieldJobs, experiments.Thousands(c.Jobs))
	case c.Workers < 1 || c.Workers > MaxWorkers:
		return outOfRange(FieldWorkers, strconv.Itoa(c.Workers))
	case !(c.CrashRate >= 0 && c.CrashRate <= 1): // also refuses NaN
		return outOfRange(FieldCrashRate, experiments.FormatFloat(c.CrashRate))
	case c.Seed < 0:
		return outOfRange(FieldSeed, strconv.FormatInt(c.Seed, 10))
	case c.AckWait < 0 || (c.AckWait > 0 && c.AckWait < 10*time.Millisecond) || c.AckWait > time.Minute:
		return &FieldError{"ack_wait", fmt.Sprintf("%v is outside 10ms-1m", c.AckWait)}
	case c.Design.IsLease() && c.AckWait != 0:
		return &FieldError{"ack_wait", "the lease designs' ack wait is their lease_timeout, scaled; set that instead"}
	case !(c.LeaseTimeout == 0 || c.LeaseTimeout >= MinLeaseTimeout && c.LeaseTimeout <= MaxLeaseTimeout):
		return outOfRange(FieldLeaseTimeout, experiments.FormatFloat(c.LeaseTimeout))
	case c.Design != PublishRetry && c.DupWindow != 0:
		return &FieldError{FieldDupWindow, "only the publish-retry design sets the stream's dedup window"}
	case !(c.DupWindow == 0 || c.DupWindow >= MinDupWindow && c.DupWindow <= MaxDupWindow):
		return outOfRange(FieldDupWindow, experiments.FormatFloat(c.DupWindow))
	case c.Deadline < 0:
		return &FieldError{"deadline", fmt.Sprintf("%v is negative", c.Deadline)}
	case needCommand && c.Command == nil:
		return &FieldError{"command", "no way to start a worker process"}
	}
	return nil
}

// outOfRange is the refusal of a value outside its field's bounds, in the words a form uses.
func outOfRange(name, shown string) *FieldError {
	return &FieldError{name, shown + " is out of range; it must be " + field(name).Range()}
}

func (c Config) withDefaults() Config {
	if c.Design == DesignHandler && c.LeaseTimeout == 0 {
		c.LeaseTimeout = DefaultLeaseTimeout
	}
	if c.inLeaseTime() {
		if c.LeaseTimeout == 0 {
			c.LeaseTimeout = DefaultLeaseTimeout
		}
		c.AckWait = scaled(c.LeaseTimeout)
	}
	if c.AckWait == 0 {
		c.AckWait = DefaultAckWait
	}
	if c.Design == PublishRetry && c.DupWindow == 0 {
		c.DupWindow = DefaultDupWindow
	}
	if c.Deadline == 0 {
		c.Deadline = DefaultDeadline
	}
	return c
}

// inLeaseTime says whether the run's jobs take block 6's durations against the broker's ack wait:
// the lease designs', and a handler's that calls work().
func (c Config) inLeaseTime() bool { return c.Design.IsLease() || c.leaseTime }

// Progress is a run's state while it runs, reported a few times a second.
type Progress struct {
	Design Design `json:"design"`
	Jobs   int64  `json:"jobs"`
	// Done counts the jobs the broker holds no more: acked, whatever their fate at the sink.
	Done          int64         `json:"done"`
	WorkersKilled int64         `json:"workers_killed"`
	Redeliveries  int64         `json:"redeliveries"`
	Elapsed       time.Duration `json:"elapsed"`
}

// Result is one design's run: what the sink holds, beside the model's prediction for the same
// stream.
type Result struct {
	Design      Design `json:"design"`
	Jobs        int64  `json:"jobs"`
	Crashed     int64  `json:"crashed"` // jobs the stream marks as crashed: the model's crashes
	Lost        int64  `json:"lost"`
	Duplicated  int64  `json:"duplicated"`
	ExactlyOnce int64  `json:"exactly_once"`
	// WorkersKilled counts worker processes that ended by SIGKILL during the run; with no other
	// killer about, it equals Crashed.
	WorkersKilled int64 `json:"workers_killed"`
	// KilledDeliveries counts the deliveries that died at their crash point, each followed by its
	// worker's SIGKILL: WorkersKilled, but for a handler in lease time, whose worker holds several
	// jobs and dies once for two crash points that came together (see drain).
	KilledDeliveries int64 `json:"killed_deliveries"`
	// DiedWithWorker counts the deliveries of a lease run still working when their worker was
	// killed: 0 when each worker dies holding only its crashed delivery, as the model's do.
	DiedWithWorker int64 `json:"died_with_worker,omitempty"`
	// LateRenewals counts the lease-heartbeat deliveries whose renewals came further apart than
	// the lease, by their worker's clock: a machine too busy to keep time lets those leases lapse,
	// which the model's heartbeat never does, so their jobs count in the Tolerance.
	LateRenewals int64 `json:"late_renewals,omitempty"`
	// SlowAcks counts the deliveries without renewals whose ack left their worker at or past the
	// lease although the model's duration ends well inside it: a machine slower than the model
	// (a busy core, a slow commit) may have let those jobs go out again, so they count in the
	// Tolerance too.
	SlowAcks        int64   `json:"slow_acks,omitempty"`
	Redeliveries    int64   `json:"redeliveries"`
	Seconds         float64 `json:"seconds"`
	ModelLost       int64   `json:"model_lost"`
	ModelDuplicated int64   `json:"model_duplicated"`
	// Workers, CrashRate and Seed are the run's own, so that a result states what made it; the
	// lease designs ignore CrashRate and draw durations from Seed.
	Workers   int     `json:"workers"`
	CrashRate float64 `json:"crash_rate"`
	Seed      int64   `json:"seed"`
	// LeaseTimeout is the lease designs' visibility timeout in model seconds (0 for the others).
	LeaseTimeout float64 `json:"lease_timeout_s,omitempty"`
	// Tolerance is how far a count may stray from the model's and still match (see Compare): 0
	// for the crash designs, whose counts must be the model's digit for digit; for
	// lease-no-renewal and a handler that calls work() the number of jobs whose duration lies
	// within leaseJitter of the timeout, the only jobs real time can send the other way (see
	// lease.go); for a handler with a key window its jobs redelivered near the window's edge (see
	// replay.go); plus, in a lease run, the deliveries that died with their worker.
	Tolerance int64 `json:"tolerance"`
	// FireAndForgetAcks is the run's Config.FireAndForgetAcks: plain acks, not confirmed ones.
	FireAndForgetAcks bool `json:"fire_and_forget_acks"`
	// Events is the log of a few crashed jobs, every delivery of each, in order.
	Events []Event `json:"events"`
	// PublishRetry is the publish-retry design's own: its window, each retry, real and
	// modelled; nil for the other designs. Its Duplicated is the jobs the stream holds twice.
	PublishRetry *PublishRetryResult `json:"publish_retry,omitempty"`
	// Handler is the handler design's own: its crash point, its exactly-once and event counts
	// real and modelled; nil for the other designs.
	Handler *HandlerResult `json:"handler,omitempty"`
}

// ExtraDuplicates is how many more jobs the real run duplicated than the model: with
// fire-and-forget acks, the jobs whose ack was lost with a killed worker; 0 when there are none
// or fewer duplicates than the model.
func (r Result) ExtraDuplicates() int64 { return max(r.Duplicated-r.ModelDuplicated, 0) }

// Event is one delivery of one job as its worker recorded it.
type Event struct {
	Job    int64 `json:"job"`
	Worker int   `json:"worker"`
	// Replaces is the worker whose death started this one, or 0 for one of the run's first
	// Workers: the supervisor numbers workers in the order it starts them, so with 2 workers a
	// "worker 9" is the seventh replacement, and the log should say so.
	Replaces int           `json:"replaces,omitempty"`
	Attempt  int           `json:"attempt"` // the broker's delivery count
	At       time.Duration `json:"at"`      // since the run began
	What     string        `json:"what"`
}
