package workbench

import (
	"context"
	"math/rand/v2"
	"testing"

	"effectivelyonce/experiments"
)

// TestPropertyTemplatesAgreeWithExperiments holds the workbench's model world (a Starlark
// handler, replayed crash point by crash point) and the experiments' fast engines (closed forms,
// bitmaps and counting sorts), written apart, to the same counts at random parameters.
func TestPropertyTemplatesAgreeWithExperiments(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 1))
	rounds := 12
	if testing.Short() {
		rounds = 3
	}
	ctx := context.Background()
	for round := range rounds {
		jobs := 200 + rng.Int64N(3000)
		rate := rng.Float64() * 0.3
		seed := rng.Int64N(1 << 40)
		sp := experiments.StreamParams{Jobs: jobs, CrashRate: rate, Seed: seed}
		p := DefaultParams()
		p.Jobs, p.CrashRate, p.Seed = jobs, rate, seed
		at := func(name string, p Params, point int) Point {
			t.Helper()
			tp, _ := LookupTemplate(name)
			p.CrashPoint = int64(point)
			res, err := Check(ctx, tp.Source, p)
			if err != nil {
				t.Fatalf("round %d, %s: %v", round, name, err)
			}
			return res.Points[0]
		}

		asm := experiment(t, experiments.Assembly, sp)
		for i, name := range []string{"ack-before-work", "ack-after-work", "dedup-outside-tx", "dedup-in-tx"} {
			tp, _ := LookupTemplate(name)
			pt, row := at(name, p, tp.Point), asm.Rows[i]
			if pt.Lost != row.Lost || pt.Duplicated != row.Duplicated || pt.Deliveries != row.Deliveries {
				t.Errorf("round %d (%+v) %s: %d lost %d dup %d deliveries; assembly %+v", round, sp, name, pt.Lost, pt.Duplicated, pt.Deliveries, row)
			}
		}
		ord := experiment(t, experiments.Orderings, sp)
		if pt := at("key-then-effect", p, 1); pt.Lost != ord.Rows[0].Lost || pt.Duplicated != ord.Rows[0].Duplicated {
			t.Errorf("round %d key-then-effect: %d/%d; orderings %+v", round, pt.Lost, pt.Duplicated, ord.Rows[0])
		}
		keys := experiment(t, experiments.Keys, sp)
		for i, name := range []string{"key-job-id", "key-job-attempt", "key-uuid"} {
			if pt := at(name, p, 4); pt.Duplicated != keys.Rows[i].Duplicated {
				t.Errorf("round %d %s: %d duplicated; keys %+v", round, name, pt.Duplicated, keys.Rows[i])
			}
		}

		wp := experiments.DefaultWindowParams()
		wp.Jobs, wp.CrashRate, wp.Seed = jobs, rate, seed
		wp.MaxDelay, wp.DelaySeed = 1+rng.Int64N(2*jobs), rng.Int64N(1000)
		wp.Windows = []int64{1 + rng.Int64N(2*jobs)}
		win := experiment(t, experiments.Window, wp)
		q := p
		q.MaxDelay, q.DelaySeed, q.KeyWindow = wp.MaxDelay, wp.DelaySeed, wp.Windows[0]
		if pt := at("window", q, 4); pt.Duplicated != win.Points[0].Escaped {
			t.Errorf("round %d window %d, max delay %d: %d duplicated; the window experiment %d", round, q.KeyWindow, q.MaxDelay, pt.Duplicated, win.Points[0].Escaped)
		}

		lp := experiments.DefaultLeaseParams()
		lp.Jobs, lp.Seed = jobs, rng.Int64N(1000)
		lp.SlowFraction, lp.FastMeanS, lp.SlowMeanS = rng.Float64()*0.3, 0.5+rng.Float64()*5, 10+rng.Float64()*60
		lp.Timeouts = []float64{1 + rng.Float64()*100}
		lease := experiment(t, experiments.Lease, lp)
		l := p
		l.CrashRate, l.DurationSeed, l.SlowFraction, l.FastMeanS, l.SlowMeanS, l.LeaseTimeout = 0, lp.Seed, lp.SlowFraction, lp.FastMeanS, lp.SlowMeanS, lp.Timeouts[0]
		if pt := at("lease-no-renewal", l, 0); pt.Duplicated != lease.Points[0].NoRenewal {
			t.Errorf("round %d lease %v: %d duplicated; the lease experiment %d", round, l.LeaseTimeout, pt.Duplicated, lease.Points[0].NoRenewal)
		}
		if pt := at("lease-heartbeat", l, 0); pt.Duplicated != lease.Points[0].RenewThird {
			t.Errorf("round %d heartbeat %v: %d duplicated; the lease experiment %d", round, l.LeaseTimeout, pt.Duplicated, lease.Points[0].RenewThird)
		}

		op := experiments.OutboxParams{Events: jobs, CrashRate: rate, Seed: seed}
		ob := experiment(t, experiments.Outbox, op)
		pr := p
		pr.World = WorldProducer
		for _, row := range ob.Rows {
			if row.ConsumerDedup {
				continue
			}
			name := map[experiments.OutboxDesign]string{experiments.DualWriteDBFirst: "dual-write-db-first",
				experiments.DualWritePublishFirst: "dual-write-publish-first", experiments.TransactionalOutbox: "outbox"}[row.Design]
			pt := at(name, pr, AllPoints)
			if *pt.EventsLost != row.Lost || *pt.EventsPhantom != row.Phantom || *pt.ExtraEvents != row.DuplicateApplications {
				t.Errorf("round %d %s: lost %d phantom %d extra %d; outbox %+v", round, name, *pt.EventsLost, *pt.EventsPhantom, *pt.ExtraEvents, row)
			}
		}
	}
}
