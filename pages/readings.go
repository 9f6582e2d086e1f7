package pages

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
)

// Reading writes the "what the numbers say" paragraphs for one run of the named experiment. It is
// generated from the result actually computed, never from the document's published numbers, so that
// the prose under a chart stays true when the reader changes the parameters. params and result are
// the experiment's Params and Result value types; an unknown name or a mismatched type gives nil.
func Reading(experiment string, params, result any) []string {
	switch experiment {
	case "assembly":
		if p, r, ok := readingPair[experiments.StreamParams, experiments.AssemblyResult](params, result); ok {
			return readAssembly(p, r)
		}
	case "crash-sweep":
		if p, r, ok := readingPair[experiments.CrashSweepParams, experiments.CrashSweepResult](params, result); ok {
			return readCrashSweep(p, r)
		}
	case "keys":
		if p, r, ok := readingPair[experiments.StreamParams, experiments.KeysResult](params, result); ok {
			return readKeys(p, r)
		}
	case "window":
		if p, r, ok := readingPair[experiments.WindowParams, experiments.WindowResult](params, result); ok {
			return readWindow(p, r)
		}
	case "window-grid":
		if p, r, ok := readingPair[experiments.WindowGridParams, experiments.WindowGridResult](params, result); ok {
			return readWindowGrid(p, r)
		}
	case "orderings":
		if p, r, ok := readingPair[experiments.StreamParams, experiments.OrderingsResult](params, result); ok {
			return readOrderings(p, r)
		}
	case "lease":
		if p, r, ok := readingPair[experiments.LeaseParams, experiments.LeaseResult](params, result); ok {
			return readLease(p, r)
		}
	case "claims":
		if p, r, ok := readingPair[experiments.ClaimsParams, experiments.ClaimsResult](params, result); ok {
			return readClaims(p, r)
		}
	case "scale":
		if p, r, ok := readingPair[experiments.ScaleParams, experiments.ScaleResult](params, result); ok {
			return readScale(p, r)
		}
	case "outbox":
		if p, r, ok := readingPair[experiments.OutboxParams, experiments.OutboxResult](params, result); ok {
			return readOutbox(p, r)
		}
	}
	return nil
}

// readingPair asserts both halves of a run at once, so a params/result mix-up reads as "no reading".
func readingPair[P, R any](params, result any) (P, R, bool) {
	p, okP := params.(P)
	r, okR := result.(R)
	return p, r, okP && okR
}

func readAssembly(p experiments.StreamParams, r experiments.AssemblyResult) []string {
	if r.Jobs == 0 || len(r.Rows) == 0 {
		return []string{"This run has no jobs, so there is nothing to compare."}
	}
	if r.Crashed == 0 {
		return []string{fmt.Sprintf("%s, at a crash rate of %s.", sayNoneCrashed(r.Jobs), percent(p.CrashRate)), "With no crash there is no crash window, so all four designs come out correct and this run " +
			"cannot tell them apart. That is also why a test suite that never kills a worker passes a broken " +
			"dedup. " + noCrashAdvice(p.CrashRate, r.Jobs, "see the rows separate")}
	}
	out := []string{fmt.Sprintf("%s mid-job, drawn at a crash rate of %s: %s of the stream.",
		sayCrashed(r.Crashed, r.Jobs, "had its worker die", "had their worker die"), percent(p.CrashRate), sayShare(r.Crashed, r.Jobs))}
	var amo, alo, loose, tx *experiments.AssemblyRow
	var other []experiments.AssemblyRow
	for i := range r.Rows {
		row := &r.Rows[i]
		d := strings.ToLower(string(row.Design))
		switch {
		case strings.Contains(d, "most"):
			amo = row
		case strings.Contains(d, "least"):
			alo = row
		case strings.Contains(d, "non"):
			loose = row
		case strings.Contains(d, "transaction"):
			tx = row
		default:
			other = append(other, *row)
		}
	}
	if amo != nil {
		s := fmt.Sprintf("Acknowledging before the work ran %s exactly once, lost %s (%s) and duplicated %s.",
			plural(amo.ExactlyOnce, "job", "jobs"), count(amo.Lost), sayShare(amo.Lost, r.Jobs), count(amo.Duplicated))
		if amo.Lost == r.Crashed && amo.Lost > 0 {
			s += " That is one lost job per crash, and the design has nowhere to report any of them: the queue forgot each job the moment it was acknowledged."
		}
		out = append(out, s)
	}
	if alo != nil {
		s := fmt.Sprintf("Acknowledging after the work lost %s and ran %s twice (%s).",
			count(alo.Lost), plural(alo.Duplicated, "job", "jobs"), sayShare(alo.Duplicated, r.Jobs))
		if amo != nil && amo.Lost > 0 && alo.Duplicated > 0 {
			if r.SameSet {
				s += " The doubled job ids are exactly the ones the first design lost: one crash window, paid for on the other side."
			} else {
				s += " The doubled job ids are not the same set the first design lost, which would mean the two designs saw different crashes; the stream deserves a look."
			}
		}
		out = append(out, s)
	}
	if loose != nil {
		caught := max(r.Crashed-loose.Duplicated, 0)
		s := fmt.Sprintf("A dedup key written in its own statement, apart from the effect, still let %s through (%s). It caught %s of %s",
			plural(loose.Duplicated, "duplicate", "duplicates"), sayShare(loose.Duplicated, r.Jobs), count(caught), sayThe(r.Crashed, "redelivery", "redeliveries"))
		if caught == 0 {
			s += ": none, because the crash that skips the key write is the same crash that causes the redelivery."
		} else {
			s += "."
		}
		out = append(out, s)
	}
	if tx != nil {
		out = append(out, fmt.Sprintf("With the key and the effect committed together in one transaction: %s lost, %s duplicated, %s applied exactly once.",
			count(tx.Lost), count(tx.Duplicated), count(tx.ExactlyOnce)))
	}
	for _, row := range other {
		out = append(out, fmt.Sprintf("%s: %s lost, %s exactly once, %s duplicated.",
			sayCap(string(row.Design)), count(row.Lost), count(row.ExactlyOnce), count(row.Duplicated)))
	}
	var correct []string
	for _, row := range r.Rows {
		if row.Correct {
			correct = append(correct, string(row.Design))
		}
	}
	switch len(correct) {
	case 0:
		out = append(out, "No design was correct on this run: every row lost or doubled something.")
	case 1:
		out = append(out, fmt.Sprintf("Only one row is correct, losing nothing and doubling nothing: %s.", correct[0]))
	default:
		out = append(out, fmt.Sprintf("Correct on this run, losing nothing and doubling nothing: %s.", sayList(correct)))
	}
	return out
}

// noCrashAdvice says how to get a crash into a run that had none: a rate of zero cannot crash
// anything, and a positive rate on a short stream may simply expect less than one crash.
func noCrashAdvice(rate float64, jobs int64, goal string) string {
	if rate <= 0 {
		return "Set crash_rate above zero to " + goal + "."
	}
	expect := rate * float64(jobs)
	if expect < 3 {
		return fmt.Sprintf("The crash rate is above zero, but %s too few: at %s the stream expects only %s. Raise jobs or crash_rate to %s.",
			plural(jobs, "job is", "jobs are"), percent(rate), pluralF(expect, "crash", "crashes"), goal)
	}
	return fmt.Sprintf("This stream expected about %s and drew none; try another seed to %s.", pluralF(expect, "crash", "crashes"), goal)
}

func readCrashSweep(p experiments.CrashSweepParams, r experiments.CrashSweepResult) []string {
	if len(r.Points) == 0 {
		return []string{"No crash rates were given, so there is nothing to read."}
	}
	pts := slices.Clone(r.Points)
	slices.SortStableFunc(pts, func(a, b experiments.CrashSweepPoint) int { return cmp.Compare(a.CrashRate, b.CrashRate) })
	var parts []string
	var lost, dup, errs int64
	anyRate := false
	for _, pt := range pts {
		parts = append(parts, fmt.Sprintf("at %s crashes, %s lost (%s)", percent(pt.CrashRate), count(pt.Lost), sayShare(pt.Lost, r.Jobs)))
		lost += pt.Lost
		dup += pt.Duplicated
		errs += pt.Errors
		if pt.CrashRate > 0 {
			anyRate = true
		}
	}
	out := []string{fmt.Sprintf("Acknowledging before the work, on %s: %s.", plural(r.Jobs, "job", "jobs"), strings.Join(parts, "; "))}
	runs := plural(int64(len(pts)), "run", "runs")
	switch {
	case lost == 0 && !anyRate:
		out = append(out, "Every rate tried was zero, so nothing crashed and nothing could be lost. Add a rate such as 0.05 to see the loss.")
	case lost == 0:
		out = append(out, fmt.Sprintf("No rate tried crashed any of these %s, so nothing was lost. Add jobs or a higher rate to see the loss.", plural(r.Jobs, "job", "jobs")))
	case len(pts) == 1 && errs == 0:
		out = append(out, fmt.Sprintf("It raised %s and duplicated %s. The loss is silent: no exception, no dead letter, no metric that moves.",
			plural(errs, "error", "errors"), count(dup)))
	case errs == 0:
		out = append(out, fmt.Sprintf("Summed over the %s, %s, %s and %s. Every run replays the same jobs, so a job lost at several rates is counted once per run. The loss is silent at every point: no exception, no dead letter, no metric that moves.",
			runs, plural(lost, "loss", "losses"), plural(dup, "duplicate", "duplicates"), plural(errs, "error", "errors")))
	default:
		out = append(out, fmt.Sprintf("The %s raised %s between them. Ack-before-work normally has no one left to raise anything, so errors here point at the simulation, not the design.",
			runs, plural(errs, "error", "errors")))
	}
	// Does the loss follow the rate? Only where the rate predicts enough lost jobs for the count to
	// show it: a job is lost whole, so 1% of 10 jobs cannot come out as 0.1.
	const enough = 20
	var fine []experiments.CrashSweepPoint
	var coarseRates, coarseExpect []string
	follows := true
	for _, pt := range pts {
		if pt.CrashRate <= 0 {
			continue
		}
		expect := pt.CrashRate * float64(r.Jobs)
		if expect < enough {
			coarseRates = append(coarseRates, percent(pt.CrashRate))
			coarseExpect = append(coarseExpect, approx(expect))
			continue
		}
		fine = append(fine, pt)
		if math.Abs(float64(pt.Lost)-expect) > 0.2*expect {
			follows = false
		}
	}
	if len(fine) >= 2 {
		lo, hi := fine[0], fine[len(fine)-1]
		if hi.CrashRate > lo.CrashRate && lo.Lost > 0 {
			s := fmt.Sprintf("From %s to %s crashes the rate grows %sx and the loss grows %sx (%s to %s).",
				percent(lo.CrashRate), percent(hi.CrashRate), sayRatio(hi.CrashRate/lo.CrashRate), sayRatio(float64(hi.Lost)/float64(lo.Lost)),
				count(lo.Lost), plural(hi.Lost, "job", "jobs"))
			if follows {
				s += " At each of these rates the loss is within a fifth of the rate times the stream: it follows the crash rate."
			} else {
				s += " At some of these rates the loss is more than a fifth away from the rate times the stream, so on this stream it does not follow the rate closely."
			}
			out = append(out, s)
		}
	}
	if len(coarseRates) > 0 && lost > 0 {
		out = append(out, fmt.Sprintf("On %s, %s %s only %s lost, and a job is lost whole, so at %s the count is too coarse to follow the rate.",
			plural(r.Jobs, "job", "jobs"), pickNoun(coarseRates, "a rate of", "rates of")+" "+sayList(coarseRates), pickNoun(coarseRates, "predicts", "predict"), sayList(coarseExpect)+" "+pickNoun(coarseExpect, "job", "jobs"), pickNoun(coarseRates, "that rate", "those rates")))
	}
	same := true
	for _, pt := range pts {
		if pt.AckAfterDuplicated != pt.Lost {
			same = false
		}
	}
	if lost > 0 {
		if same {
			out = append(out, "Moving the ack after the work would lose none of these and duplicate exactly as many at each rate: the same jobs, billed to the other side of the window.")
		} else {
			var d []string
			for _, pt := range pts {
				d = append(d, fmt.Sprintf("%s at %s", count(pt.AckAfterDuplicated), percent(pt.CrashRate)))
			}
			out = append(out, fmt.Sprintf("Moving the ack after the work would duplicate %s instead.", sayList(d)))
		}
	}
	return out
}

// pickNoun chooses the singular when a list has one item.
func pickNoun(items []string, one, many string) string {
	if len(items) == 1 {
		return one
	}
	return many
}

func readKeys(p experiments.StreamParams, r experiments.KeysResult) []string {
	if len(r.Rows) == 0 {
		return []string{"No dedup keys were compared in this run."}
	}
	if r.Crashed == 0 {
		return []string{fmt.Sprintf("%s, so nothing was redelivered and every key reports 0 duplicates. They look identical, which is the trap: a test that never redelivers cannot tell a working key from a useless one. %s",
			sayNoneCrashed(r.Jobs), noCrashAdvice(p.CrashRate, r.Jobs, "tell the keys apart"))}
	}
	out := []string{fmt.Sprintf("%s after the effect and %s delivered a second time.",
		sayCrashed(r.Crashed, r.Jobs, "crashed", "crashed"), verb(r.Crashed, "was", "were"))}
	var parts, good, bad []string
	for _, row := range r.Rows {
		parts = append(parts, fmt.Sprintf("keyed on %s, %s got through (%s of the redeliveries)",
			row.Key, plural(row.Duplicated, "duplicate", "duplicates"), sayShare(row.Duplicated, r.Crashed)))
		if row.Duplicated == 0 {
			good = append(good, string(row.Key))
		}
		if row.Duplicated >= r.Crashed {
			bad = append(bad, string(row.Key))
		}
	}
	out = append(out, sayCap(strings.Join(parts, "; "))+".")
	if len(good) > 0 && len(bad) > 0 {
		out = append(out, fmt.Sprintf("Only %s stopped every redelivery. %s stopped none: a key that changes between attempts never matches the first attempt, so it is dedup in name only.",
			sayList(good), sayCap(sayList(bad))))
	} else if len(good) == 0 {
		out = append(out, "No key stopped every redelivery on this run.")
	}
	return out
}

// windowBound is the window that is sure to let nothing through: a redelivery is due at most
// max_delay jobs after its original, and one still pending when the stream ends is applied then, so
// its key has seen at most as many newer ids as the stream has jobs. A window of min(max_delay, jobs)
// therefore still holds every key when its duplicate arrives.
func windowBound(maxDelay, jobs int64) int64 { return min(maxDelay, jobs) }

// sayBound names the bound and what it is.
func sayBound(maxDelay, jobs int64) string {
	if jobs < maxDelay {
		return count(jobs) + ", the length of the stream"
	}
	return count(maxDelay) + ", the maximum redelivery delay"
}

func readWindow(p experiments.WindowParams, r experiments.WindowResult) []string {
	if len(r.Points) == 0 {
		return []string{"No window sizes were given, so there is nothing to read."}
	}
	pts := slices.Clone(r.Points)
	slices.SortStableFunc(pts, func(a, b experiments.WindowPoint) int { return cmp.Compare(a.Window, b.Window) })
	if r.Crashed == 0 {
		return []string{fmt.Sprintf("%s, so nothing was redelivered and every window shows 0 escapes. This run says nothing about sizing the window. %s",
			sayNoneCrashed(r.Jobs), noCrashAdvice(p.CrashRate, r.Jobs, "give it duplicates to catch"))}
	}
	bound := windowBound(r.MaxDelay, r.Jobs)
	intro := fmt.Sprintf("%s. %s due up to %s later, or at the end of the stream if that came sooner.",
		sayCrashed(r.Crashed, r.Jobs, "crashed", "crashed"), verb(r.Crashed, "Its redelivery was", "Each redelivery was"), plural(r.MaxDelay, "job", "jobs"))
	if r.Jobs < r.MaxDelay {
		intro += fmt.Sprintf(" The stream is shorter than that delay, so a window of %s, which holds every id, already catches every redelivery.", plural(r.Jobs, "id", "ids"))
	}
	out := []string{intro}
	first := pts[0]
	out = append(out, fmt.Sprintf("The smallest window tried, %s, let %s escape: %s of all jobs, or %s of the redeliveries.",
		plural(first.Window, "id", "ids"), plural(first.Escaped, "duplicate", "duplicates"), percent(first.EscapeRate), sayShare(first.Escaped, r.Crashed)))
	zero := -1
	for i, pt := range pts {
		if pt.Escaped == 0 {
			zero = i
			break
		}
	}
	if zero < 0 {
		last := pts[len(pts)-1]
		s := fmt.Sprintf("No window tried reaches zero. The largest, %s, still let %s escape (%s of all jobs).",
			plural(last.Window, "id", "ids"), count(last.Escaped), percent(last.EscapeRate))
		if last.Window < bound {
			s += fmt.Sprintf(" A window is only sure to stop the leak at %s.", sayBound(r.MaxDelay, r.Jobs))
		} else {
			s += fmt.Sprintf(" That should not happen: a window of %s or more holds every key until its duplicate arrives.", count(bound))
		}
		out = append(out, s)
	} else {
		w := pts[zero]
		size := "about " + count(w.StateKB) + " KB"
		if w.StateKB == 0 {
			size = "under 1 KB"
		}
		s := fmt.Sprintf("The smallest window tried with zero escapes is %s (%s of ids). ", plural(w.Window, "id", "ids"), size)
		switch {
		case w.Window >= bound && bound <= 1:
			s += "On a stream of one job any window holds every id, so no window can leak here."
		case w.Window >= bound && zero == 0:
			s += fmt.Sprintf("Every window tried is at least %s, where zero is guaranteed, so this run does not locate the threshold. Add windows below %s to see where the leak stops.",
				sayBound(r.MaxDelay, r.Jobs), count(bound))
		case w.Window == bound:
			s += fmt.Sprintf("That is exactly %s. From there on zero is guaranteed.", sayBound(r.MaxDelay, r.Jobs))
		case w.Window > bound:
			s += fmt.Sprintf("Zero is guaranteed from %s. The next smaller window tried, %s, still leaked %s, so the threshold lies above %s and at most %s; the windows tried do not pin it down.",
				sayBound(r.MaxDelay, r.Jobs), count(pts[zero-1].Window), count(pts[zero-1].Escaped), count(pts[zero-1].Window), count(bound))
		default:
			s += fmt.Sprintf("That is below %s. None of the %s happened to come back late enough to find its key gone; that is luck, not a guarantee. Only a window of %s is safe for every possible delay.",
				sayBound(r.MaxDelay, r.Jobs), plural(r.Crashed, "redelivery", "redeliveries"), count(bound))
			if zero > 0 {
				s += fmt.Sprintf(" The next smaller window tried, %s, leaked %s.", count(pts[zero-1].Window), count(pts[zero-1].Escaped))
			}
		}
		out = append(out, s)
	}
	for _, pt := range pts {
		if pt.Window*2 == r.MaxDelay && pt.Window < bound {
			if pt.Escaped > 0 {
				out = append(out, fmt.Sprintf("At half the maximum delay (%s) the window still leaked %s, an escape rate of %s of all jobs. Sizing to the average delay instead of the worst one ships this leak.",
					plural(pt.Window, "id", "ids"), plural(pt.Escaped, "duplicate", "duplicates"), percent(pt.EscapeRate)))
			} else {
				out = append(out, fmt.Sprintf("At half the maximum delay (%s) nothing escaped on this run, but any redelivery delayed by more than %s would have.",
					plural(pt.Window, "id", "ids"), plural(pt.Window, "job", "jobs")))
			}
			break
		}
	}
	return out
}

func readWindowGrid(p experiments.WindowGridParams, r experiments.WindowGridResult) []string {
	if len(r.Cells) == 0 || len(r.Windows) == 0 || len(r.MaxDelays) == 0 {
		return []string{"The grid is empty, so there is nothing to read."}
	}
	windows := slices.Clone(r.Windows)
	slices.Sort(windows)
	cell := func(d, w int64) (int64, bool) {
		for _, c := range r.Cells {
			if c.MaxDelay == d && c.Window == w {
				return c.Escaped, true
			}
		}
		return 0, false
	}
	var rows []string
	var above, leaked, lucky int
	var oddCells []string
	allZero := true
	capped := false
	for _, d := range r.MaxDelays {
		bound := windowBound(d, r.Jobs)
		first := int64(-1)
		var lastLeak int64
		for _, w := range windows {
			e, ok := cell(d, w)
			if !ok {
				continue
			}
			if e > 0 {
				allZero = false
				lastLeak = e
			}
			switch {
			case w >= bound && e == 0:
				above++
			case w < bound && e > 0:
				leaked++
			case w < bound:
				lucky++
			default:
				oddCells = append(oddCells, fmt.Sprintf("window %s at delay %s (%s escaped)", count(w), count(d), count(e)))
			}
			if e == 0 && first < 0 {
				first = w
			}
		}
		name := fmt.Sprintf("delays up to %s", count(d))
		if d > r.Jobs {
			name += fmt.Sprintf(" (capped by the stream's %s)", plural(r.Jobs, "job", "jobs"))
			capped = true
		}
		if first >= 0 {
			rows = append(rows, fmt.Sprintf("%s reach zero at window %s", name, count(first)))
		} else {
			rows = append(rows, fmt.Sprintf("%s never reach zero (the largest window, %s, still leaks %s)", name, count(windows[len(windows)-1]), count(lastLeak)))
		}
	}
	if allZero {
		if lucky == 0 {
			return []string{fmt.Sprintf("Every cell of the grid is zero, as it must be: every window tried is at least its row's maximum delay or the stream's %s, and such a window holds every key until its duplicate arrives. To see a leak, try a window smaller than both.",
				plural(r.Jobs, "job", "jobs"))}
		}
		return []string{fmt.Sprintf("Every cell of the grid is zero, including %s below its row's bound. Either nothing crashed on %s, or the few redeliveries all came back soon enough; that is luck, not a guarantee.",
			plural(int64(lucky), "cell", "cells"), plural(r.Jobs, "job", "jobs"))}
	}
	out := []string{fmt.Sprintf("Row by row, on %s: %s.", plural(r.Jobs, "job", "jobs"), strings.Join(rows, "; "))}
	s := "A window is sure to catch everything once it reaches its row's maximum delay"
	if capped {
		s += ", or the stream's length when that is shorter, since redeliveries still pending at the end are applied then and a window that long holds every id"
	}
	s += "."
	switch atOrAbove := int64(above + len(oddCells)); {
	case atOrAbove == 0:
		s += " No window tried reaches its row's bound."
	case len(oddCells) > 0:
		s += fmt.Sprintf(" %s at or above that bound, yet %s leaked (%s), which the mechanism says cannot happen.",
			plural(atOrAbove, "cell is", "cells are"), count(int64(len(oddCells))), sayList(oddCells))
	case atOrAbove == 1:
		s += " 1 cell is at or above that bound, and it is zero, as it must be."
	default:
		s += fmt.Sprintf(" %s at or above that bound, and all of them are zero, as they must be.", plural(atOrAbove, "cell is", "cells are"))
	}
	if leaked > 0 {
		s += fmt.Sprintf(" %s below the bound leaked.", plural(int64(leaked), "cell", "cells"))
	}
	if lucky > 0 {
		s += fmt.Sprintf(" In %s below the bound, the window happened to catch everything: no redelivery came back late enough to outrun it, which is luck rather than a guarantee.",
			plural(int64(lucky), "cell", "cells"))
	}
	return append(out, s)
}

func readOrderings(p experiments.StreamParams, r experiments.OrderingsResult) []string {
	if len(r.Rows) == 0 {
		return []string{"No orderings were compared in this run."}
	}
	if r.Crashed == 0 {
		return []string{fmt.Sprintf("%s, so every ordering shows 0 lost and 0 duplicated. The orderings only differ inside the crash window, which this run never opened. %s",
			sayNoneCrashed(r.Jobs), noCrashAdvice(p.CrashRate, r.Jobs, "open it"))}
	}
	out := []string{fmt.Sprintf("%s between the two writes.", sayCrashed(r.Crashed, r.Jobs, "crashed", "crashed"))}
	for _, row := range r.Rows {
		o := strings.ToLower(string(row.Order))
		switch {
		case strings.HasPrefix(o, "key"):
			out = append(out, fmt.Sprintf("Writing the key first lost %s and duplicated %s: the crash marks the job as done before it ran, so the redelivery is skipped and the work never happens.",
				plural(row.Lost, "job", "jobs"), count(row.Duplicated)))
		case strings.HasPrefix(o, "effect"):
			out = append(out, fmt.Sprintf("Writing the effect first lost %s and duplicated %s: the crash leaves the effect in place with no key beside it, so the redelivery does it again.",
				count(row.Lost), count(row.Duplicated)))
		case strings.Contains(o, "transaction"):
			out = append(out, fmt.Sprintf("In one transaction: %s lost, %s duplicated. There is no moment at which one write exists without the other.",
				count(row.Lost), count(row.Duplicated)))
		default:
			out = append(out, fmt.Sprintf("%s: %s lost, %s duplicated.", sayCap(string(row.Order)), count(row.Lost), count(row.Duplicated)))
		}
	}
	return out
}

func readLease(p experiments.LeaseParams, r experiments.LeaseResult) []string {
	if len(r.Points) == 0 || r.Jobs == 0 {
		return []string{"No timeouts or no jobs were given, so there is nothing to read."}
	}
	pts := slices.Clone(r.Points)
	slices.SortStableFunc(pts, func(a, b experiments.LeasePoint) int { return cmp.Compare(a.TimeoutS, b.TimeoutS) })
	first, last := pts[0], pts[len(pts)-1]
	one := len(pts) == 1
	// atTimeouts names the timeouts a whole column was measured at.
	atTimeouts := fmt.Sprintf("at every timeout from %s to %s", saySecs(first.TimeoutS), saySecs(last.TimeoutS))
	if one {
		atTimeouts = "at the only timeout tried, " + saySecs(first.TimeoutS)
	}
	var out []string
	if r.Jobs == 1 {
		out = append(out, fmt.Sprintf("The one job took %s.", saySecs(r.SlowestS)))
	} else {
		out = append(out, fmt.Sprintf("Of %s, the slowest took %s.", plural(r.Jobs, "job", "jobs"), saySecs(r.SlowestS)))
	}

	zero := -1
	for i, pt := range pts {
		if pt.NoRenewal == 0 {
			zero = i
			break
		}
	}
	switch {
	case zero == 0 && one:
		out = append(out, fmt.Sprintf("Without renewal, the only timeout tried, %s, ran no job twice: no job outlived it.", saySecs(first.TimeoutS)))
	case zero == 0:
		out = append(out, fmt.Sprintf("Without renewal, even the shortest timeout tried, %s, ran no job twice: no job outlived it.", saySecs(first.TimeoutS)))
	case zero > 0:
		out = append(out, fmt.Sprintf("Without renewal, a %s visibility timeout ran %s twice (%s). The count first reaches zero at %s, the first timeout tried that outlasts every job; but with that timeout a worker that really has died keeps its job hidden for %s before anyone retries it.",
			saySecs(first.TimeoutS), plural(first.NoRenewal, "job", "jobs"), sayShare(first.NoRenewal, r.Jobs), saySecs(pts[zero].TimeoutS), saySecs(pts[zero].TimeoutS)))
	default:
		s := fmt.Sprintf("Without renewal, a %s visibility timeout ran %s twice (%s)", saySecs(first.TimeoutS), plural(first.NoRenewal, "job", "jobs"), sayShare(first.NoRenewal, r.Jobs))
		if !one {
			s += fmt.Sprintf(", and no timeout tried reaches zero: at %s, %s still ran twice", saySecs(last.TimeoutS), count(last.NoRenewal))
		}
		s += fmt.Sprintf(". Without a heartbeat the timeout has to outlast the slowest job, %s here.", saySecs(r.SlowestS))
		out = append(out, s)
	}

	// The model's rule, which both renewal columns follow from (see experiments/lease.go).
	rule := "In this model a worker reports completion on a heartbeat tick, so every job holds its lease for at least one renewal interval, however short the job."
	ruleSaid := false
	allThirdZero := true
	thirdNotWorse := true
	for _, pt := range pts {
		if pt.RenewThird != 0 {
			allThirdZero = false
		}
		if pt.RenewThird > pt.NoRenewal {
			thirdNotWorse = false
		}
	}
	if p.HeartbeatLoss == 0 {
		if allThirdZero {
			out = append(out, fmt.Sprintf("%s Renewing every third of the timeout, each heartbeat arrives while the lease still runs, so no lease lapses: 0 jobs ran twice %s. With a heartbeat, the timeout only has to outlast the gap between renewals, not the job.",
				rule, atTimeouts))
			ruleSaid = true
		} else {
			s := fmt.Sprintf("Renewing every third of the timeout ran %s twice at %s", plural(first.RenewThird, "job", "jobs"), saySecs(first.TimeoutS))
			if !one {
				s += fmt.Sprintf(" and %s at %s", count(last.RenewThird), saySecs(last.TimeoutS))
			}
			out = append(out, s+", although no heartbeat was lost.")
		}
	} else {
		s := fmt.Sprintf("With %s of heartbeats lost, renewing every third of the timeout ran %s twice at %s", percent(p.HeartbeatLoss), plural(first.RenewThird, "job", "jobs"), saySecs(first.TimeoutS))
		if !one {
			s += fmt.Sprintf(" and %s at %s", count(last.RenewThird), saySecs(last.TimeoutS))
		}
		s += fmt.Sprintf(", against %s", count(first.NoRenewal))
		if !one {
			s += fmt.Sprintf(" and %s", count(last.NoRenewal))
		}
		s += " with no renewal."
		if allThirdZero {
			s += " No lease lapsed: a lapse needs three heartbeats in a row to go missing, spanning the whole timeout, and no job drew such a run."
		} else {
			s += " One or two lost heartbeats in a row are survivable; three, spanning the whole timeout, are not, and a long job sends more heartbeats, so it has more chances to meet such a run. That is why a worker whose renewal fails should stop, and why the dedup key is still needed."
		}
		if !thirdNotWorse {
			s += " At some timeouts renewal did worse than no renewal at all."
		}
		out = append(out, s)
	}

	allDouble := true
	for _, pt := range pts {
		if pt.RenewDouble != r.Jobs {
			allDouble = false
		}
	}
	if allDouble {
		s := fmt.Sprintf("Renewing only once every two timeouts is worse than not renewing: %s ran twice %s. The lease ends at the timeout, the first heartbeat is due only at twice that, and by the rule above every job holds its lease until at least that first tick, so every lease lapses, whatever the job's length.",
			sayAllJobs(r.Jobs), atTimeouts)
		if !ruleSaid {
			s = rule + " " + s
		}
		out = append(out, s)
	} else {
		s := fmt.Sprintf("Renewing only once every two timeouts ran %s twice at %s", plural(first.RenewDouble, "job", "jobs"), saySecs(first.TimeoutS))
		if !one {
			s += fmt.Sprintf(" and %s at %s", count(last.RenewDouble), saySecs(last.TimeoutS))
		}
		out = append(out, s+": a heartbeat slower than the lease cannot keep it alive.")
	}
	return out
}

// sayAllJobs is "the one job", "both jobs" or "all 20,000 jobs".
func sayAllJobs(n int64) string {
	switch n {
	case 1:
		return "the one job"
	case 2:
		return "both jobs"
	}
	return "all " + count(n) + " jobs"
}

// claimReach says which of the verifier's claims read each of its parameters: the stream feeds
// B1 to B5, the delays only B4, the duration seed only B6, and the job count all of them.
var claimReach = []struct {
	name   string
	differ func(a, b experiments.ClaimsParams) bool
	claims []string
}{
	{"the job count", func(a, b experiments.ClaimsParams) bool { return a.Jobs != b.Jobs }, []string{"B1", "B2", "B3", "B4", "B5", "B6"}},
	{"the crash rate", func(a, b experiments.ClaimsParams) bool { return a.CrashRate != b.CrashRate }, []string{"B1", "B2", "B3", "B4", "B5"}},
	{"the stream seed", func(a, b experiments.ClaimsParams) bool { return a.Seed != b.Seed }, []string{"B1", "B2", "B3", "B4", "B5"}},
	{"the maximum delay", func(a, b experiments.ClaimsParams) bool { return a.MaxDelay != b.MaxDelay }, []string{"B4"}},
	{"the delay seed", func(a, b experiments.ClaimsParams) bool { return a.DelaySeed != b.DelaySeed }, []string{"B4"}},
	{"the duration seed", func(a, b experiments.ClaimsParams) bool { return a.LeaseSeed != b.LeaseSeed }, []string{"B6"}},
}

// claimCrashes recovers the run's crash count from a claim that pins it: B1 holds only when the
// lost count equals the crashes, B2 only when the duplicate count does.
func claimCrashes(p experiments.ClaimsParams, r experiments.ClaimsResult) (int64, bool) {
	if p.CrashRate == 0 {
		return 0, true
	}
	for _, c := range r.Claims {
		if !c.Holds {
			continue
		}
		var lost, dup int64
		switch c.ID {
		case "B1":
			if n, _ := fmt.Sscanf(c.Detail, "%d lost", &lost); n == 1 {
				return lost, true
			}
		case "B2":
			if n, _ := fmt.Sscanf(c.Detail, "%d lost, %d duplicated", &lost, &dup); n == 2 {
				return dup, true
			}
		}
	}
	return 0, false
}

// whyFailed explains one failed claim: either why it does not carry over to these parameters, or
// that it is a law of the mechanism and its failure points at the code.
func whyFailed(p experiments.ClaimsParams, c experiments.Claim, crashes int64, crashesKnown bool) string {
	law := "This one holds for any parameters, so its failure points at the code, not the inputs."
	t := strings.ToLower(c.Text)
	switch {
	case c.ID == "B4" && strings.Contains(t, "below"):
		half := p.MaxDelay / 2
		switch {
		case crashesKnown && crashes == 0:
			return "Nothing crashed on this run, so nothing was redelivered and no window could leak."
		case half >= p.Jobs:
			return fmt.Sprintf("Its window of half the maximum delay, %s, is as long as the stream of %s, so it holds every id and cannot leak.",
				plural(half, "id", "ids"), plural(p.Jobs, "job", "jobs"))
		}
		return fmt.Sprintf("No redelivery came back more than %s after its original, so a window of %s caught them all. The claim needs enough redeliveries for one to draw a long delay, which few crashes may not.",
			plural(half, "job", "jobs"), plural(half, "id", "ids"))
	case c.ID == "B6" && strings.Contains(t, "short"):
		return "It asks that more than one job in twenty outlast a 5 s timeout. The document's mix of durations gives that over many jobs; this draw did not."
	case c.ID == "B6" && strings.Contains(t, "beyond"):
		var at60, at300 int64
		if n, _ := fmt.Sscanf(c.Detail, "%d at 60 s, %d at 300 s", &at60, &at300); n == 2 {
			if at60 == 0 {
				return "No job on this draw ran longer than 60 s, so even that timeout reached zero and the run cannot show that zero needs a timeout far past the usual job. A short stream rarely draws the slow tail."
			}
			if at300 > 0 {
				return "At least one job on this draw outlasted even 300 s, so the longest timeout checked was not beyond the slowest job."
			}
		}
		return "It needs some jobs to outlast 60 s and none to outlast 300 s, and this draw of durations did not give both."
	case c.ID == "B4" && strings.Contains(t, "max delay"),
		c.ID == "B1", c.ID == "B2", c.ID == "B3", c.ID == "B5",
		c.ID == "B6" && strings.Contains(t, "heartbeat"):
		return law
	}
	return "After a change of parameters, a failure can mean the claim does not carry over to them rather than that the code is wrong."
}

func readClaims(p experiments.ClaimsParams, r experiments.ClaimsResult) []string {
	if r.Total == 0 {
		return []string{"The verifier checked nothing on this run."}
	}
	def := experiments.DefaultClaimsParams()
	defaults := p == def
	crashes, crashesKnown := claimCrashes(p, r)

	var out []string
	if r.Passed == r.Total {
		out = append(out, fmt.Sprintf("All %d claims hold on these parameters.", r.Total))
	} else {
		failed := "1 does not"
		if r.Total-r.Passed != 1 {
			failed = fmt.Sprintf("%d do not", r.Total-r.Passed)
		}
		out = append(out, fmt.Sprintf("%d of %d claims hold; %s.", r.Passed, r.Total, failed))
		for _, c := range r.Claims {
			if !c.Holds {
				out = append(out, fmt.Sprintf("%s failed (%s): %s. %s", c.ID, c.Text, strings.TrimSuffix(c.Detail, "."), whyFailed(p, c, crashes, crashesKnown)))
			}
		}
	}

	if defaults {
		if r.Passed == r.Total {
			out = append(out, "These are the document's own inputs, so this is its result derived again by separate code, not copied.")
		} else {
			out = append(out, "At the document's inputs every claim should hold, so a failure here means the code changed, not the world.")
		}
		return out
	}

	// Which claims did the change reach?
	var changed []string
	reached := map[string]bool{}
	for _, f := range claimReach {
		if f.differ(p, def) {
			changed = append(changed, f.name)
			for _, id := range f.claims {
				reached[id] = true
			}
		}
	}
	var ids, untouched []string
	for _, c := range r.Claims {
		if slices.Contains(ids, c.ID) || slices.Contains(untouched, c.ID) {
			continue
		}
		if reached[c.ID] {
			ids = append(ids, c.ID)
		} else {
			untouched = append(untouched, c.ID)
		}
	}
	slices.Sort(ids)
	slices.Sort(untouched)
	s := fmt.Sprintf("These inputs differ from the document's in %s", sayList(changed))
	if len(untouched) == 0 {
		s += ", which every claim reads."
	} else {
		s += fmt.Sprintf(". That reaches %s; %s %s none of it, so %s the document's own result again.",
			sayList(ids), sayList(untouched), pickNoun(untouched, "reads", "read"), pickNoun(untouched, "it is", "they are"))
	}
	out = append(out, s)

	// Passes that say nothing: a claim about crashes on a run without any, and a "small" window of 0.
	var trivial []string
	if crashesKnown && crashes == 0 {
		var which []string
		for _, c := range r.Claims {
			t := strings.ToLower(c.Text)
			switch {
			case !c.Holds:
			case c.ID == "B1" || c.ID == "B2" || c.ID == "B3" || c.ID == "B5":
				which = append(which, c.ID)
			case c.ID == "B4" && strings.Contains(t, "max delay") && !strings.Contains(t, "below"):
				which = append(which, "the second B4 claim")
			}
		}
		if len(which) > 0 {
			trivial = append(trivial, fmt.Sprintf("Nothing crashed on this run, so the passes of %s are empty: there was nothing to lose, repeat or catch.", sayList(which)))
		}
	}
	for _, c := range r.Claims {
		if c.ID == "B4" && c.Holds && strings.Contains(strings.ToLower(c.Text), "below") && p.MaxDelay/2 == 0 {
			trivial = append(trivial, "The first B4 claim checked a window of 0 ids, which is no dedup at all, so its leak says nothing about sizing a window. With a maximum delay of 1 every redelivery also comes straight back, and any window of one id or more catches it, so the second B4 claim is trivial too.")
		}
	}
	out = append(out, trivial...)
	return out
}

func readScale(p experiments.ScaleParams, r experiments.ScaleResult) []string {
	s := fmt.Sprintf("At %s a day, with a %s chance per message that the consumer dies inside the crash window, expect about %s a day",
		pluralF(p.MessagesPerDay, "message", "messages"), sayProb(p.CrashWindowP), pluralF(r.DuplicatesPerDay, "duplicate", "duplicates"))
	switch {
	case r.DuplicatesPerDay <= 0:
		s += ": none, because the chance is zero. No real consumer gets there; deploys, OOM kills and rebalances all land in the window sooner or later."
	case r.DuplicatesPerDay < 1:
		s += fmt.Sprintf(", which is one every %s.", saySpan(r.SecondsBetweenDuplicates))
	default:
		s += fmt.Sprintf(", or one every %s.", saySpan(r.SecondsBetweenDuplicates))
	}
	out := []string{s}
	if r.DuplicatesPerDay > 0 {
		out = append(out, "Without an idempotent consumer each of those is a corrupted effect, such as a second charge; with one, each is a skipped no-op. The delivery layer is identical in both cases.")
	}
	if p.ReplayDays <= 0 {
		out = append(out, "A replay window of 0 days keeps no dedup keys at all. That is no dedup: every redelivery would find nothing to match and be applied again.")
	} else {
		out = append(out, fmt.Sprintf("Keeping dedup keys for %s means holding about %s; at %s a key that is about %s.",
			pluralF(p.ReplayDays, "day", "days"), pluralF(r.DedupKeys, "key", "keys"), pluralF(p.BytesPerKey, "byte", "bytes"), bytesSI(r.DedupStoreBytes)))
	}
	if r.RetryPeakMultiplier > 1 {
		out = append(out, fmt.Sprintf("A naive retry policy of %sx puts %sx the normal load on a downstream at the moment it is already failing; backoff, a retry budget and a dead-letter queue are part of correctness, not polish.",
			approx(p.RetryMultiplier), approx(r.RetryPeakMultiplier)))
	}
	return out
}

// outboxDesign names a producer design of the outbox experiment for prose.
func outboxDesign(name string) string {
	switch name {
	case "dual-write-db-first":
		return "the dual write that commits first"
	case "dual-write-publish-first":
		return "the dual write that publishes first"
	case "outbox":
		return "the outbox"
	}
	return name
}

func readOutbox(p experiments.OutboxParams, r experiments.OutboxResult) []string {
	if r.Events == 0 || len(r.Rows) == 0 {
		return []string{"No events were produced in this run, so there is nothing to read."}
	}
	out := []string{fmt.Sprintf("The producer made %s, and each step crashed with a chance of %s.", plural(r.Events, "business change", "business changes"), percent(p.CrashRate))}
	// Group the rows by producer design: lost and phantom events are the producer's doing and the
	// same for either consumer, duplicate applications are the consumer's.
	type pair struct{ no, yes *experiments.OutboxRow }
	var order []string
	designs := map[string]*pair{}
	for i := range r.Rows {
		row := &r.Rows[i]
		d := designs[string(row.Design)]
		if d == nil {
			d = &pair{}
			designs[string(row.Design)] = d
			order = append(order, string(row.Design))
		}
		if row.ConsumerDedup {
			d.yes = row
		} else {
			d.no = row
		}
	}
	clean := func(row *experiments.OutboxRow) bool {
		return row != nil && row.Lost == 0 && row.Phantom == 0 && row.DuplicateApplications == 0
	}
	var cleanNames []string
	cleanCount := 0
	allClean := true
	for _, name := range order {
		d := designs[name]
		pr := d.no
		if pr == nil {
			pr = d.yes
		}
		lost := "no event lost"
		if pr.Lost > 0 {
			lost = plural(pr.Lost, "event lost", "events lost")
		}
		phantom := "no phantom event"
		if pr.Phantom > 0 {
			phantom = plural(pr.Phantom, "phantom event", "phantom events")
		}
		var dups string
		switch {
		case (d.no == nil || d.no.DuplicateApplications == 0) && (d.yes == nil || d.yes.DuplicateApplications == 0):
			dups = "no event applied twice"
		case d.no != nil && d.yes != nil:
			dups = fmt.Sprintf("%s at a consumer without a dedup key and %s at one with a key",
				plural(d.no.DuplicateApplications, "duplicate application", "duplicate applications"), count(d.yes.DuplicateApplications))
		case d.no != nil:
			dups = plural(d.no.DuplicateApplications, "duplicate application", "duplicate applications") + " at a consumer without a dedup key"
		default:
			dups = plural(d.yes.DuplicateApplications, "duplicate application", "duplicate applications") + " at a consumer with a dedup key"
		}
		out = append(out, fmt.Sprintf("%s: %s, %s, %s.", sayCap(outboxDesign(name)), lost, phantom, dups))
		switch {
		case clean(d.no) && clean(d.yes):
			cleanNames = append(cleanNames, outboxDesign(name)+" with either consumer")
			cleanCount += 2
		case clean(d.yes):
			cleanNames = append(cleanNames, outboxDesign(name)+" with a consumer that dedups")
			cleanCount++
			allClean = false
		case clean(d.no):
			cleanNames = append(cleanNames, outboxDesign(name)+" with a consumer that does not dedup")
			cleanCount++
			allClean = false
		default:
			allClean = false
		}
	}
	if p.CrashRate == 0 {
		return append(out, "With no crashes every design looks perfect; they differ only inside the crash window.")
	}
	switch {
	case allClean:
		out = append(out, "Every combination came through clean: no crash on this run fell between two steps that had to agree. More events or a higher crash rate will separate them.")
	case len(cleanNames) == 0:
		out = append(out, "No combination came through clean on every count.")
	case cleanCount == 1:
		out = append(out, fmt.Sprintf("Only one combination lost nothing, invented nothing and applied nothing twice: %s.", cleanNames[0]))
	default:
		out = append(out, fmt.Sprintf("Clean on every count: %s.", sayList(cleanNames)))
	}
	if ob := designs["outbox"]; ob != nil && ob.no != nil && !allClean {
		switch {
		case ob.no.DuplicateApplications == 0:
			out = append(out, "The outbox's relay never had to publish a row twice on this run, so the consumer's key had nothing to catch there.")
		case ob.yes != nil:
			applied := "none of them"
			if n := ob.yes.DuplicateApplications; n > 0 {
				applied = count(n) + " of them"
			}
			out = append(out, fmt.Sprintf("Each of the outbox's %s is its relay publishing a row again after a crash between publishing and marking the row sent; a consumer with a dedup key applied %s. The outbox makes sure the event exists; the key makes sure it lands once.",
				plural(ob.no.DuplicateApplications, "duplicate", "duplicates"), applied))
		}
	}
	return out
}

// sayShare writes n as a percentage of of, two decimals; nothing of nothing is 0.00%.
func sayShare(n, of int64) string {
	if of == 0 {
		return "0.00%"
	}
	return percent(float64(n) / float64(of))
}

// saySecs writes a duration in seconds as given, or to one decimal when it was measured, with
// thousands separators (1,000 s).
func saySecs(s float64) string {
	digits := 1
	if s == math.Trunc(s) {
		digits = 0
	}
	f := strconv.FormatFloat(math.Abs(s), 'f', digits, 64)
	whole, frac, _ := strings.Cut(f, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return strconv.FormatFloat(s, 'g', 3, 64) + " s"
	}
	out := count(n)
	if frac != "" {
		out += "." + frac
	}
	if s < 0 {
		out = "-" + out
	}
	return out + " s"
}

// sayRatio writes a growth factor to at most one decimal.
func sayRatio(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}

// sayProb writes a small probability as "1 in N" and a larger one as a percentage.
func sayProb(f float64) string {
	if f > 0 && f < 0.001 {
		return "1 in " + approx(1/f)
	}
	return percent(f)
}

// saySpan writes seconds in the table's unit: the short unit below two minutes, words above.
func saySpan(s float64) string {
	if math.IsInf(s, 0) || math.IsNaN(s) || s <= 0 {
		return "never"
	}
	v, u := spanIn(s)
	if u.seconds < 60 {
		return sig3(v) + " " + u.short
	}
	return pluralF(roundSig3(v), u.one, u.many)
}

// plural writes a count with its noun in the right number: "1 job", "0 jobs", "1,000 jobs". The
// nouns may carry a verb ("job is", "jobs are").
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// pluralF is plural for an estimate, written as approx writes it.
func pluralF(f float64, one, many string) string {
	if f == 1 {
		return "1 " + one
	}
	return approx(f) + " " + many
}

// verb picks a verb's number for a count.
func verb(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sayThe is "the 398 redeliveries", or "the single redelivery".
func sayThe(n int64, one, many string) string {
	if n == 1 {
		return "the single " + one
	}
	return "the " + count(n) + " " + many
}

// sayCrashed opens a sentence on how many of the jobs crashed, with the verb in the right number:
// "398 of 20,000 jobs crashed", "All 5 jobs crashed", "The one job crashed".
func sayCrashed(crashed, jobs int64, one, many string) string {
	switch {
	case crashed == jobs && jobs == 1:
		return "The one job " + one
	case crashed == jobs && jobs == 2:
		return "Both jobs " + many
	case crashed == jobs:
		return "All " + count(jobs) + " jobs " + many
	}
	return count(crashed) + " of " + count(jobs) + " jobs " + verb(crashed, one, many)
}

// sayNoneCrashed opens a sentence on a run in which no job crashed.
func sayNoneCrashed(jobs int64) string {
	switch jobs {
	case 1:
		return "The one job did not crash"
	case 2:
		return "Neither job crashed"
	}
	return "None of the " + count(jobs) + " jobs crashed"
}

// sayList joins items as prose: "a", "a and b", "a, b and c".
func sayList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// sayCap starts a sentence with a capital, for names that begin one.
func sayCap(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
