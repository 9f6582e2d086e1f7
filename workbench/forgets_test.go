package workbench

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestNoHandlerSurvivesIsExact holds the rule a handler round warns with to the checks
// themselves: at the ladder's edge (1,997 keys break, 1,998 survive, against delays of 2,000
// jobs) and at random small streams, the rule says no handler survives exactly when the window
// template, the best a handler can do, breaks; and where it says so, the handlers
// TestNoHandlerSurvivesAShortWindow tries break too.
func TestNoHandlerSurvivesIsExact(t *testing.T) {
	ctx := context.Background()
	window, _ := LookupTemplate("window")
	p := DefaultParams()
	for _, c := range []struct {
		keyWindow int64
		doomed    bool
	}{{1000, true}, {1997, true}, {1998, false}, {5000, false}, {0, false}} {
		q := p
		q.KeyWindow = c.keyWindow
		f, doomed, err := NoHandlerSurvives(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if doomed != c.doomed {
			t.Errorf("key window %d against delays of 2,000: no handler survives is %v, want %v", c.keyWindow, doomed, c.doomed)
		}
		if doomed && (f.Late < 1 || f.KeyWindow != c.keyWindow || f.MaxDelay != 2000 || f.Block4 != "jobs=20000&max_delay=2000&windows="+itoa(c.keyWindow)) {
			t.Errorf("key window %d: %+v", c.keyWindow, f)
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for round := range 12 {
		q := p
		q.Jobs = 500 + rng.Int64N(1500)
		q.CrashRate = 0.01 + rng.Float64()*0.1
		q.Seed, q.DelaySeed = rng.Int64N(1000), rng.Int64N(1000)
		q.MaxDelay = 1 + rng.Int64N(q.Jobs)
		q.KeyWindow = 1 + rng.Int64N(2*q.MaxDelay)
		_, doomed, err := NoHandlerSurvives(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Check(ctx, window.Source, q)
		if err != nil {
			t.Fatal(err)
		}
		if doomed == res.Verdict.Survives {
			t.Errorf("round %d %+v: no handler survives is %v, and the window's handler %s", round, q, doomed, res.Verdict.Text)
		}
	}
	q := p
	for _, other := range []func(*Params){
		func(p *Params) { p.World = WorldProducer },
		func(p *Params) { p.CrashPoint = 0 },
		func(p *Params) { p.CrashAgain = true },
		func(p *Params) { p.OnlyCrash = 5 },
	} {
		r := q
		r.KeyWindow = 1000
		other(&r)
		if _, doomed, _ := NoHandlerSurvives(ctx, r); doomed {
			t.Errorf("the rule speaks where its argument does not hold: %+v", r)
		}
	}
}

func itoa(n int64) string {
	return Params{KeyWindow: n}.Format()["key_window"]
}
