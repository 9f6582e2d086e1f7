package workbench

import (
	"context"
	"net/url"
	"strconv"

	"effectivelyonce/experiments"
)

// Forgetting is why no handler can survive a check's parameters: the key window forgets some
// keys before the redeliveries that need them arrive.
type Forgetting struct {
	KeyWindow, MaxDelay int64
	// Late counts the redeliveries of this stream that arrive after their key has left the
	// window, when every crash comes right after the handler's commit: block 4's escapes at this
	// window, on the same jobs, crashes and delays.
	Late int64
	// Block4 is block 4's window experiment at these parameters, as a query string (jobs,
	// max_delay, windows, and the stream's draws where they are not block 4's own).
	Block4 string
}

// NoHandlerSurvives reports whether no handler can survive a check at p, and why. Ladder's
// comment has the argument: a handler must write each job's key with its effect, a key found is
// not written again, so each job pushes one older key out of the window, and the table is all a
// redelivery can read. At the crash point right after the commit, the best a handler can do is
// then exactly block 4's window, on the same stream (the property test holds the window template
// to it), so the rule is block 4's count of escapes at this window: none, and the window's own
// handler survives; any, and nothing can.
//
// It answers only where that argument holds as stated: the consumer's world, a bounded window,
// every crash point and every crash the stream draws, no second crash of a redelivery. Elsewhere
// it says nothing (false), which is not a promise that some handler survives.
func NoHandlerSurvives(ctx context.Context, p Params) (Forgetting, bool, error) {
	if p.World != WorldConsumer || p.KeyWindow <= 0 || p.CrashPoint != AllPoints || p.OnlyCrash != NoOnlyCrash || p.CrashAgain ||
		p.CrashRate <= 0 || p.Jobs < 1 || p.MaxDelay < 1 {
		return Forgetting{}, false, nil
	}
	wp := experiments.WindowParams{Jobs: p.Jobs, CrashRate: p.CrashRate, Seed: p.Seed, MaxDelay: p.MaxDelay, DelaySeed: p.DelaySeed,
		Windows: []int64{p.KeyWindow}}
	res, err := experiments.Window(ctx, wp)
	if err != nil {
		return Forgetting{}, false, err
	}
	late := res.Points[0].Escaped
	if late == 0 {
		return Forgetting{}, false, nil
	}
	return Forgetting{KeyWindow: p.KeyWindow, MaxDelay: p.MaxDelay, Late: late, Block4: block4Query(wp)}, true, nil
}

// block4Query is block 4's permalink query for wp: the fields a reader changes there, and the
// stream's draws only where they differ from the document's.
func block4Query(wp experiments.WindowParams) string {
	d := experiments.DefaultWindowParams()
	q, _ := url.ParseQuery(experiments.Block4Query(wp))
	if wp.CrashRate != d.CrashRate {
		q.Set("crash_rate", strconv.FormatFloat(wp.CrashRate, 'g', -1, 64))
	}
	if wp.Seed != d.Seed {
		q.Set("seed", strconv.FormatInt(wp.Seed, 10))
	}
	if wp.DelaySeed != d.DelaySeed {
		q.Set("delay_seed", strconv.FormatInt(wp.DelaySeed, 10))
	}
	return q.Encode()
}
