package lab

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// runLease runs one lease design at the given scale and logs its counts beside the model's.
func runLease(t *testing.T, d Design, jobs int64, nworkers int, seed int64, timeout float64) Result {
	t.Helper()
	var w workers
	// A crash rate is given on purpose: the lease designs must ignore it and crash nothing.
	cfg := Config{Design: d, Jobs: jobs, Workers: nworkers, CrashRate: 0.05, Seed: seed, LeaseTimeout: timeout,
		Deadline: time.Minute, ScratchDir: t.TempDir(), Command: w.command}
	var last Progress
	res, err := Run(context.Background(), cfg, func(p Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d jobs, %d workers, seed %d, lease %v model s: duplicated %d (model %d, tolerance %d), lost %d, redelivered %d, killed %d, %.2f s",
		d, res.Jobs, nworkers, seed, res.LeaseTimeout, res.Duplicated, res.ModelDuplicated, res.Tolerance,
		res.Lost, res.Redeliveries, res.WorkersKilled, res.Seconds)
	for _, e := range res.Events {
		t.Logf("job %d: worker %d, delivery %d, at %v: %s", e.Job, e.Worker, e.Attempt, e.At.Round(time.Millisecond), e.What)
	}
	if res.Crashed != 0 || res.WorkersKilled != 0 {
		t.Errorf("%d crashed, %d workers killed; a lease design crashes nothing", res.Crashed, res.WorkersKilled)
	}
	if res.Lost != 0 || res.ModelLost != 0 {
		t.Errorf("lost %d (model %d); a lease loses nothing", res.Lost, res.ModelLost)
	}
	if res.Lost+res.Duplicated+res.ExactlyOnce != res.Jobs {
		t.Errorf("lost+duplicated+exactly once = %d, want %d", res.Lost+res.Duplicated+res.ExactlyOnce, res.Jobs)
	}
	if last.Done != res.Jobs {
		t.Errorf("last progress %+v does not close the run", last)
	}
	assertGone(t, w.pids())
	return res
}

// Without renewal, jobs that outlive the 50 ms AckWait are handed to a second worker while the
// first still works, and both apply them: duplicates with no crash at all, about as many as block
// 6's model counts on the same durations.
func TestLeaseNoRenewalDuplicatesWithoutACrash(t *testing.T) {
	res := runLease(t, LeaseNoRenewal, DefaultLeaseJobs, 4, 31, 0)
	if res.ModelDuplicated == 0 || res.Duplicated == 0 {
		t.Fatalf("duplicated %d, model %d: the lease doubled nothing", res.Duplicated, res.ModelDuplicated)
	}
	// Real time on a loaded machine (the whole test suite runs beside this) stretches sleeps by
	// more than the tolerance's 5 ms, so the test holds the count to a band around the model;
	// MatchesModel's tighter agreement is what the page and the CLI report.
	if res.Duplicated < res.ModelDuplicated/2 || res.Duplicated > 2*res.ModelDuplicated+res.Tolerance {
		t.Errorf("duplicated %d; the model says %d, tolerance %d", res.Duplicated, res.ModelDuplicated, res.Tolerance)
	}
	// MaxDeliver 2: each redelivery is one second execution, of a job that then counts duplicated.
	if res.Redeliveries != res.Duplicated {
		t.Errorf("%d redeliveries, %d duplicated", res.Redeliveries, res.Duplicated)
	}
}

// With in-progress acks every third of the AckWait the same durations double nothing, but for a
// delivery whose worker could not keep time: a renewal that came a lease after the one before
// (the machine's delay, stated as LateRenewals) may let its job go out again.
func TestLeaseHeartbeatDuplicatesNothing(t *testing.T) {
	// A 30-model-second lease (a 300 ms AckWait, a heartbeat every 100 ms) leaves a loaded
	// machine 200 ms to be late with a heartbeat without the lease lapsing.
	res := runLease(t, LeaseHeartbeat, DefaultLeaseJobs, 4, 31, 30)
	if res.ModelDuplicated != 0 || res.Duplicated > res.LateRenewals || res.Redeliveries > res.LateRenewals || !res.MatchesModel() {
		t.Errorf("duplicated %d (model %d), %d redeliveries, %d deliveries renewed late; want none but for those renewed late",
			res.Duplicated, res.ModelDuplicated, res.Redeliveries, res.LateRenewals)
	}
	if len(res.Events) == 0 {
		t.Fatal("no event log for the slow jobs")
	}
	for _, e := range res.Events { // the sample outlives its lease: each was renewed
		if strings.Contains(e.What, ", 0 in-progress acks") {
			t.Errorf("job %d outlived its lease with no heartbeat: %s", e.Job, e.What)
		}
	}
}

func TestLeaseConfig(t *testing.T) {
	if got := Designs(); !slices.Equal(got[4:], []Design{LeaseNoRenewal, LeaseHeartbeat, PublishRetry}) || len(got) != 7 {
		t.Errorf("Designs() = %v, want the four crash designs, then lease-no-renewal, lease-heartbeat, publish-retry", got)
	}
	if string(LeaseNoRenewal) != "lease-no-renewal" || string(LeaseHeartbeat) != "lease-heartbeat" {
		t.Error("the lease designs' names are not the command line's")
	}
	cmd := func(context.Context) *exec.Cmd { return nil }
	good := Config{Design: LeaseHeartbeat, Jobs: 10, Workers: 2, CrashRate: 0.1, Command: cmd}
	if err := good.Validate(); err != nil {
		t.Fatalf("a good config refused: %v", err)
	}
	if c := good.withDefaults(); c.LeaseTimeout != DefaultLeaseTimeout || c.AckWait != 50*time.Millisecond {
		t.Errorf("defaults: lease %v model s, ack wait %v; want %v, 50ms", c.LeaseTimeout, c.AckWait, DefaultLeaseTimeout)
	}
	good.LeaseTimeout = 15
	if c := good.withDefaults(); c.AckWait != 150*time.Millisecond {
		t.Errorf("a 15 s lease waits %v for its ack, want 150ms", c.AckWait)
	}
	for field, mutate := range map[string]func(*Config){
		"ack_wait":      func(c *Config) { c.AckWait = time.Second },
		"lease_timeout": func(c *Config) { c.LeaseTimeout = MaxLeaseTimeout + 1 },
	} {
		c := good
		mutate(&c)
		var fe *FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: got %v, want a FieldError naming %q", field, err, field)
		}
	}
	// The crash designs ignore a lease timeout, so that one command line can run them all.
	crash := Config{Design: AckAfterWork, Jobs: 10, Workers: 2, LeaseTimeout: 15, Command: cmd}
	if err := crash.Validate(); err != nil {
		t.Errorf("a crash design refused a lease timeout: %v", err)
	}
	if c := crash.withDefaults(); c.AckWait != DefaultAckWait {
		t.Errorf("a crash design's ack wait is %v, want %v", c.AckWait, DefaultAckWait)
	}
	// Tolerance is the lease's alone: a crash design one duplicate off does not match.
	if (Result{Design: AckAfterWork, Duplicated: 3, ModelDuplicated: 2}).MatchesModel() {
		t.Error("a crash design one duplicate off the model matches it")
	}
	if !(Result{Design: LeaseNoRenewal, Jobs: 10, Duplicated: 3, ExactlyOnce: 7, ModelDuplicated: 2, Tolerance: 1}).MatchesModel() {
		t.Error("a lease run within its tolerance does not match")
	}
}

// TestSlowAcksAreCounted: a delivery without renewals whose ack left its worker at or past the
// lease, though its model duration ends well inside it, is logged as a slow ack and counted in
// the run's tolerance; one whose model duration already lies near or past the lease is the
// model's own business (the lease's edge, or a duplicate the model makes too), and one acked in
// time is nothing.
func TestSlowAcksAreCounted(t *testing.T) {
	w := &worker{ackWait: 50 * time.Millisecond, work: []float64{2, 4.8, 10}} // 20, 48 and 100 ms
	for _, tc := range []struct {
		job  int64
		held time.Duration
		slow bool
	}{
		{0, 47 * time.Millisecond, true},   // a 20 ms job acked at 47 ms: the machine was slow
		{0, 60 * time.Millisecond, true},   // ... or at 60 ms, past the lease
		{0, 40 * time.Millisecond, false},  // acked in time
		{1, 60 * time.Millisecond, false},  // a 48 ms job lies within the lease's jitter already
		{2, 120 * time.Millisecond, false}, // a 100 ms job outlives the lease in the model too
		{7, 60 * time.Millisecond, false},  // a job the worker has no duration for
	} {
		note := w.slowAckNote(tc.job, tc.held)
		if (note != "") != tc.slow {
			t.Errorf("job %d held %v: note %q, want slow %v", tc.job, tc.held, note, tc.slow)
		}
	}
	ctx := t.Context()
	db, err := createSink(ctx, filepath.Join(t.TempDir(), "sink.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, what := range []string{"worked 20ms, acked" + w.slowAckNote(0, 55*time.Millisecond), "worked 20ms, acked", "worked 20ms, acked" + w.slowAckNote(0, 47*time.Millisecond)} {
		if _, err := db.ExecContext(ctx, `INSERT INTO deliveries (job, worker, attempt, at_ns, acked, what) VALUES ($1, 1, 1, 0, 1, $2)`, i, what); err != nil {
			t.Fatal(err)
		}
	}
	if tally, err := tallyLog(ctx, db); err != nil || tally.slowAcks != 2 || tally.lateBeats != 0 || tally.killed != 0 {
		t.Errorf("tallyLog = %+v, %v; want the 2 slow acks logged and nothing else", tally, err)
	}
}
