package experiments

import (
	"context"
	"fmt"
	"testing"
)

// TestMechanismsMatchExperiments holds the plain versions in mechanisms.go to the optimised
// experiments the pages run: on small streams, over several seeds and crash rates, each plain
// mechanism must give the same counts as the fast code it stands beside. A page can then show the
// short version and the number from the fast one without the two telling different stories.
func TestMechanismsMatchExperiments(t *testing.T) {
	ctx := context.Background()
	const jobs = 2000
	for _, seed := range []int64{13, 1, 99} {
		for _, rate := range []float64{0, 0.02, 0.3, 1} {
			t.Run(fmt.Sprintf("seed %d, rate %v", seed, rate), func(t *testing.T) {
				sp := StreamParams{Jobs: jobs, CrashRate: rate, Seed: seed}
				s, err := drawStream(ctx, jobs, rate, seed)
				if err != nil {
					t.Fatal(err)
				}
				crashed := s.crashed

				asm, err := Assembly(ctx, sp)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct {
					name   string
					design Design
					plain  func([]bool) (int, int, int)
				}{
					{"AckBeforeWork", DesignAtMostOnce, AckBeforeWork},
					{"AckAfterWork", DesignAtLeastOnce, AckAfterWork},
					{"DedupAtSink", DesignDedupTransactional, DedupAtSink},
				} {
					lost, once, dup := c.plain(crashed)
					for _, row := range asm.Rows {
						if row.Design == c.design && (int64(lost) != row.Lost || int64(once) != row.ExactlyOnce || int64(dup) != row.Duplicated) {
							t.Errorf("%s: %d lost, %d once, %d twice; Assembly's %s row says %d, %d, %d",
								c.name, lost, once, dup, c.design, row.Lost, row.ExactlyOnce, row.Duplicated)
						}
					}
				}

				ord, err := Orderings(ctx, sp)
				if err != nil {
					t.Fatal(err)
				}
				for _, row := range ord.Rows {
					if lost, dup := DualWrite(crashed, row.Order); int64(lost) != row.Lost || int64(dup) != row.Duplicated {
						t.Errorf("DualWrite(%s): %d lost, %d duplicated; Orderings says %d, %d", row.Order, lost, dup, row.Lost, row.Duplicated)
					}
				}

				for _, maxDelay := range []int64{1, 50, 700, 5000} {
					wp := WindowParams{Jobs: jobs, CrashRate: rate, Seed: seed, MaxDelay: maxDelay, DelaySeed: seed + 4,
						Windows: []int64{1, 10, 100, 500, 2000}}
					win, err := Window(ctx, wp)
					if err != nil {
						t.Fatal(err)
					}
					delay := make([]int, jobs) // drawn in job order, one per crash, as Window draws them
					rng := newPyRandom(wp.DelaySeed)
					for j, c := range crashed {
						if c {
							delay[j] = int(rng.randint(1, maxDelay))
						}
					}
					for _, pt := range win.Points {
						if got := WindowedDedup(crashed, delay, int(pt.Window)); int64(got) != pt.Escaped {
							t.Errorf("WindowedDedup, max delay %d, window %d: %d escaped; Window says %d", maxDelay, pt.Window, got, pt.Escaped)
						}
					}
				}
			})
		}
	}
}

// TestLeaseMechanismsMatchLease checks the two plain lease functions against Lease's columns on
// small draws: no renewal, renewal every third of the timeout, and the real queue's renewal every
// two timeouts.
func TestLeaseMechanismsMatchLease(t *testing.T) {
	for _, seed := range []int64{31, 5, 77} {
		for _, slow := range []float64{0.05, 0.5} {
			p := LeaseParams{Jobs: 2000, Seed: seed, SlowFraction: slow, FastMeanS: 2, SlowMeanS: 40,
				Timeouts: []float64{0.5, 5, 15, 60, 300}, LossSeed: 37}
			t.Run(fmt.Sprintf("seed %d, slow %v", seed, slow), func(t *testing.T) {
				res, err := Lease(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				// The exported draw the live lab uses: the counts agreeing with Lease's is what
				// makes them Lease's durations.
				work, err := LeaseDurations(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(work)) != p.Jobs {
					t.Fatalf("%d durations, want %d", len(work), p.Jobs)
				}
				slowest := 0.0
				for _, w := range work {
					slowest = max(slowest, w)
				}
				if slowest != res.SlowestS {
					t.Errorf("slowest duration %v; Lease says %v", slowest, res.SlowestS)
				}
				for _, pt := range res.Points {
					tt := pt.TimeoutS
					for _, c := range []struct {
						name        string
						plain, fast int64
					}{
						{"LeaseWithoutRenewal", int64(LeaseWithoutRenewal(work, tt)), pt.NoRenewal},
						{"LeaseWithRenewal every t/3", int64(LeaseWithRenewal(work, tt, tt/3)), pt.RenewThird},
						{"LeaseWithRenewal every 2t", int64(LeaseWithRenewal(work, tt, 2*tt)), pt.RenewDoubleReal},
					} {
						if c.plain != c.fast {
							t.Errorf("timeout %v, %s: %d doubled; Lease says %d", tt, c.name, c.plain, c.fast)
						}
					}
				}
			})
		}
	}
}
