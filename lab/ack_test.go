package lab

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestLabFireAndForgetAcks runs ack-after-work with plain acks: a job is lost exactly as the model
// says, but an ack still in a killed worker's buffer brings a finished job back, so the real
// duplicates may exceed the model's. LAB_FIRE_AND_FORGET_JOBS sets the jobs (default 400).
func TestLabFireAndForgetAcks(t *testing.T) {
	jobs := int64(400)
	if s := os.Getenv("LAB_FIRE_AND_FORGET_JOBS"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		jobs = n
	}
	var w workers
	cfg := Config{Design: AckAfterWork, Jobs: jobs, Workers: 3, CrashRate: 0.05, Seed: 13,
		FireAndForgetAcks: true, Deadline: 2 * time.Minute, ScratchDir: t.TempDir(), Command: w.command}
	res, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fire-and-forget acks, %d jobs: %d crashed, lost %d (model %d), duplicated %d (model %d): %d extra duplicates, killed %d, %.2f s",
		res.Jobs, res.Crashed, res.Lost, res.ModelLost, res.Duplicated, res.ModelDuplicated,
		res.ExtraDuplicates(), res.WorkersKilled, res.Seconds)
	if !res.FireAndForgetAcks {
		t.Error("the result does not say its acks were fire-and-forget")
	}
	if res.Crashed == 0 {
		t.Fatal("the stream crashed no job: the test proves nothing")
	}
	if res.Lost != res.ModelLost {
		t.Errorf("lost %d, the model says %d", res.Lost, res.ModelLost)
	}
	if res.Duplicated < res.ModelDuplicated {
		t.Errorf("duplicated %d, fewer than the model's %d", res.Duplicated, res.ModelDuplicated)
	}
	if !res.MatchesModel() {
		t.Error("MatchesModel refuses a fire-and-forget run with lost == model and duplicated >= model")
	}
	assertGone(t, w.pids())
}

// TestLabMatchesModelFireAndForget pins the rule: with plain acks a crash design may duplicate
// more than the model, never fewer, and must lose exactly as many.
func TestLabMatchesModelFireAndForget(t *testing.T) {
	r := Result{Design: AckAfterWork, Jobs: 100, ModelDuplicated: 20, Duplicated: 23, ExactlyOnce: 77}
	if r.MatchesModel() {
		t.Error("confirmed acks: 3 extra duplicates match the model")
	}
	r.FireAndForgetAcks = true
	if !r.MatchesModel() || r.ExtraDuplicates() != 3 {
		t.Errorf("fire-and-forget: match %v, extra %d", r.MatchesModel(), r.ExtraDuplicates())
	}
	r.Duplicated, r.ExactlyOnce = 19, 81
	if r.MatchesModel() {
		t.Error("fire-and-forget: fewer duplicates than the model match")
	}
	r.Duplicated, r.ExactlyOnce, r.Lost = 20, 79, 1
	if r.MatchesModel() {
		t.Error("fire-and-forget: a loss the model does not have matches")
	}
}
