package lab

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"effectivelyonce/experiments"
)

// TestPublishRetryMatchesTheModel runs the publish-retry design on the real broker with a 1 s
// window: the stream's marked jobs have retry delays on both sides of it, and the broker must
// store twice exactly the ones the window model says, retry for retry, away from the edge.
func TestPublishRetryMatchesTheModel(t *testing.T) {
	cfg := Config{Design: PublishRetry, Jobs: 300, Workers: 1, CrashRate: 0.05, Seed: 13, DupWindow: 1,
		Deadline: time.Minute, ScratchDir: t.TempDir(), Command: func(context.Context) *exec.Cmd { return nil }}
	var last Progress
	res, err := Run(context.Background(), cfg, func(p Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	pr := res.PublishRetry
	if pr == nil {
		t.Fatal("no publish-retry part in the result")
	}
	t.Logf("%d jobs, %d retried, stored twice %d (model %d), %d acked as duplicates, %d near the edge, %d messages, %.2f s",
		res.Jobs, pr.Retried, pr.StoredTwice, pr.ModelStoredTwice, pr.AckDuplicates, pr.NearEdge, pr.StreamMessages, res.Seconds)
	inside, after := 0, 0
	for _, r := range pr.Retries {
		t.Logf("job %d: delay %d ms (waited %.1f ms), model absorbed %v, stored once %v, ack duplicate %v, near edge %v",
			r.Job, r.DelayMs, r.WaitedMs, r.ModelAbsorbed, r.StoredOnce, r.AckDuplicate, r.NearEdge)
		if r.ModelAbsorbed {
			inside++
		} else {
			after++
		}
		if !r.NearEdge && r.StoredOnce != r.ModelAbsorbed {
			t.Errorf("job %d, retried %d ms later: stored once %v, the model says absorbed %v", r.Job, r.DelayMs, r.StoredOnce, r.ModelAbsorbed)
		}
		if r.StoredOnce != r.AckDuplicate {
			t.Errorf("job %d: the stream holds it once %v, the retry's ack said duplicate %v", r.Job, r.StoredOnce, r.AckDuplicate)
		}
		if r.WaitedMs < float64(r.DelayMs) {
			t.Errorf("job %d: retried after %.1f ms, before its %d ms delay", r.Job, r.WaitedMs, r.DelayMs)
		}
	}
	if inside == 0 || after == 0 {
		t.Fatalf("%d retries inside the window, %d after: the test proves nothing", inside, after)
	}
	if !res.MatchesModel() || pr.Differs != 0 {
		t.Errorf("stored twice %d, the model %d (%d near the edge, %d differ)", pr.StoredTwice, pr.ModelStoredTwice, pr.NearEdge, pr.Differs)
	}
	if pr.StreamMessages != res.Jobs+pr.StoredTwice || res.Lost != 0 || res.Duplicated != pr.StoredTwice || res.ExactlyOnce != res.Jobs-pr.StoredTwice {
		t.Errorf("stream holds %d messages for %d jobs, %d stored twice; lost %d, duplicated %d, once %d",
			pr.StreamMessages, res.Jobs, pr.StoredTwice, res.Lost, res.Duplicated, res.ExactlyOnce)
	}
	if last.Done != res.Jobs {
		t.Errorf("last progress %+v does not close the run", last)
	}
}

// TestPublishRetryModel checks the window model on its own: the marks are the crash designs'
// stream, the delays block 4's (in ms), a retry at most the window later is absorbed, and the
// edge band covers the broker's purge timer.
func TestPublishRetryModel(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Jobs: 300, CrashRate: 0.05, Seed: 13}
	delays, err := retryDelays(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	crashed, _ := experiments.Crashes(ctx, 300, 0.05, 13)
	block4, _ := experiments.RedeliveryDelays(ctx, crashed, 2000, 17)
	for j := range delays {
		if delays[j] != block4[j] || (delays[j] > 0) != crashed[j] {
			t.Fatalf("job %d: delay %d, block 4's %d, marked %v", j, delays[j], block4[j], crashed[j])
		}
	}
	retries, twice, err := PublishRetryModel(ctx, []int64{0, 995, 1000, 1001, 1040, 1061, 2000}, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		absorbed, edge bool
	}{{true, true}, {true, true}, {false, true}, {false, true}, {false, false}, {false, false}}
	if len(retries) != len(want) || twice != 4 {
		t.Fatalf("%d retries, %d stored twice: %+v", len(retries), twice, retries)
	}
	for i, r := range retries {
		if r.Job != int64(i+1) || r.ModelAbsorbed != want[i].absorbed || r.NearEdge != want[i].edge {
			t.Errorf("delay %d ms: %+v, want absorbed %v, near edge %v", r.DelayMs, r, want[i].absorbed, want[i].edge)
		}
	}
}

// TestPublishRetryRefusesItsWindow: dup_window is named when it is out of range, or set on a
// design that keeps the broker's default.
func TestPublishRetryRefusesItsWindow(t *testing.T) {
	cmd := func(context.Context) *exec.Cmd { return nil }
	for _, c := range []Config{
		{Design: PublishRetry, Jobs: 10, Workers: 1, DupWindow: 0.05, Command: cmd},
		{Design: PublishRetry, Jobs: 10, Workers: 1, DupWindow: 11, Command: cmd},
		{Design: AckAfterWork, Jobs: 10, Workers: 1, DupWindow: 1, Command: cmd},
	} {
		var fe *FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Field != FieldDupWindow {
			t.Errorf("%s at %v: %v, want a FieldError naming dup_window", c.Design, c.DupWindow, err)
		}
	}
	var fe *FieldError
	c := Config{Design: PublishRetry, Jobs: 10, Workers: 1, DupWindow: 0.05, Command: cmd}
	if err := c.Validate(); !errors.As(err, &fe) || fe.Msg != "0.05 is out of range; it must be a number from 0.1 to 10" {
		t.Errorf("%v", err)
	}
	_, errs := ParseParams(map[string][]string{"design": {"publish-retry"}, "dup_window": {"0"}}, MaxJobs)
	if errs.For(FieldDupWindow) != "0 is out of range; it must be a number from 0.1 to 10" {
		t.Errorf("ParseParams: %v", errs)
	}
	p, errs := ParseParams(map[string][]string{"design": {"publish-retry"}, "dup_window": {"1.5"}}, MaxJobs)
	if len(errs) > 0 || p.Config(PublishRetry).DupWindow != 1.5 || p.Config(AckAfterWork).DupWindow != 0 {
		t.Errorf("%+v %v", p, errs)
	}
}
