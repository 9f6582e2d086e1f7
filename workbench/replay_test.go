package workbench

import (
	"context"
	"testing"

	"effectivelyonce/experiments"
)

// TestCheckReplayPlacesRedeliveries: the window template's crashed jobs, redelivered right after
// their own delivery, find their keys; redelivered after more jobs than the window keeps, they
// are applied again, every one; and an empty replay is the check at the drawn delays.
func TestCheckReplayPlacesRedeliveries(t *testing.T) {
	tp, _ := LookupTemplate("window")
	p := DefaultParams()
	p.Jobs, p.CrashRate, p.KeyWindow, p.CrashPoint = 400, 0.05, 20, 4
	ctx := context.Background()
	crashed, err := experiments.Crashes(ctx, p.Jobs, p.CrashRate, p.Seed)
	if err != nil {
		t.Fatal(err)
	}
	// The jobs near the stream's end are redelivered at once: no gap can push their keys out.
	late := p.Jobs - 30
	place := func(gap int64) []Redelivery {
		var at []Redelivery
		for j, c := range crashed {
			if c {
				after := int64(j) + gap
				if int64(j) >= late {
					after = int64(j)
				}
				at = append(at, Redelivery{Job: int64(j), Attempt: 2, After: after, Order: int64(len(at))})
			}
		}
		return at
	}
	var n int64
	for _, r := range place(0) {
		if r.Job < late {
			n++
		}
	}
	for _, c := range []struct {
		gap  int64
		want int64
	}{{0, 0}, {5, 0}, {25, n}} {
		res, err := CheckReplay(ctx, tp.Source, p, place(c.gap))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Points[0].Duplicated; got != c.want || res.Points[0].Lost != 0 {
			t.Errorf("redelivered %d jobs later: duplicated %d, lost %d; want %d, 0", c.gap, got, res.Points[0].Lost, c.want)
		}
	}
	drawn, err := Check(ctx, tp.Source, p)
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := CheckReplay(ctx, tp.Source, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if drawn.Points[0].Duplicated != replayed.Points[0].Duplicated || drawn.Points[0].Duplicated == 0 {
		t.Errorf("an empty replay duplicated %d; the check at the drawn delays %d", replayed.Points[0].Duplicated, drawn.Points[0].Duplicated)
	}
	if _, err := CheckReplay(ctx, tp.Source, p, []Redelivery{{Job: p.Jobs, Attempt: 2}}); err == nil {
		t.Error("a redelivery of a job past the stream was placed")
	}
	// Through the child process, as the lab replays a reader's handler.
	child, err := testSandbox(t).CheckReplay(ctx, tp.Source, p, place(25))
	if err != nil {
		t.Fatal(err)
	}
	if got := child.Points[0].Duplicated; got != n {
		t.Errorf("through the child: duplicated %d, want %d", got, n)
	}
}
