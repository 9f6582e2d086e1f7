package present

import (
	"fmt"

	"effectivelyonce/experiments"
)

// windowTimeShows presents a dedup window given in time as block 4 counts it: in jobs.
var windowTimeShows = shows[experiments.WindowTimeParams, experiments.WindowTimeResult]{
	tables:  windowTimeTables,
	reading: readWindowTime,
	// The ids the window holds do not depend on the redelivery's delay.
	ask: &asking[experiments.WindowTimeParams, experiments.WindowTimeResult]{says: []string{"throughput", "window_seconds", "delay_seconds"},
		words: func(p experiments.WindowTimeParams, _ experiments.WindowTimeResult, _ experiments.Count) string {
			return fmt.Sprintf("At %s a second, how many ids does a dedup window of %s hold?", pluralGiven(p.Throughput, "message", "messages"), duration(p.WindowSeconds))
		}},
}

func windowTimeTables(p experiments.WindowTimeParams, r experiments.WindowTimeResult) []Table {
	t := newTable("A window in seconds, counted in jobs",
		col{"window holds", "window_ids", true}, col{"second copy arrives after", "delay_jobs", true},
		col{"the key is still there", "safe", false})
	t.add(NumberCell(Plural(r.WindowIDs, "id", "ids"), float64(r.WindowIDs)),
		NumberCell(Plural(r.DelayJobs, "job", "jobs"), float64(r.DelayJobs)), yesNoCell(r.Safe))
	return []Table{t}
}

func readWindowTime(p experiments.WindowTimeParams, r experiments.WindowTimeResult) []string {
	verdict := "safe, because the key is still in the window when the copy comes"
	if !r.Safe {
		verdict = fmt.Sprintf("not safe, because the key was evicted %s before the copy came, and the job runs again", Plural(r.DelayJobs-r.WindowIDs, "job", "jobs"))
	}
	out := []string{fmt.Sprintf("At %s a second, a %s window holds about %s; a second copy %s after the first arrives about %s later: %s.",
		pluralGiven(p.Throughput, "message", "messages"), duration(p.WindowSeconds), Plural(r.WindowIDs, "id", "ids"),
		duration(p.DelaySeconds), Plural(r.DelayJobs, "job", "jobs"), verdict)}
	if r.Block4 != nil {
		out = append(out, fmt.Sprintf("Block 4 runs this case as a window of %s with redeliveries up to %s late, on a stream of %s: /blocks/4?%s",
			Plural(r.WindowIDs, "id", "ids"), Plural(r.Block4.MaxDelay, "job", "jobs"), Plural(r.Block4.Jobs, "job", "jobs"), r.Block4Query))
	} else {
		out = append(out, "Block 4's experiment cannot take a window or a delay this large, so the comparison above is the whole answer.")
	}
	return out
}
