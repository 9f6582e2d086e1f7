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
	out := []string{fmt.Sprintf("Of %s jobs, %s had their worker die mid-job: %s of the stream, drawn at a crash rate of %s.",
		count(r.Jobs), count(r.Crashed), sayShare(r.Crashed, r.Jobs), percent(p.CrashRate))}
	if r.Crashed == 0 {
		return append(out, "With no crash there is no crash window, so all four designs come out correct and this run "+
			"cannot tell them apart. That is also why a test suite that never kills a worker passes a broken "+
			"dedup. Set crash_rate above zero to see the rows separate.")
	}
	var amo, alo, loose, tx *experiments.AssemblyRow
	var other []experiments.AssemblyRow
	for i := range r.Rows {
		row := &r.Rows[i]
		d := strings.ToLower(row.Design)
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
		s := fmt.Sprintf("Acknowledging before the work ran %s jobs exactly once, lost %s (%s) and duplicated %s.",
			count(amo.ExactlyOnce), count(amo.Lost), sayShare(amo.Lost, r.Jobs), count(amo.Duplicated))
		if amo.Lost == r.Crashed && amo.Lost > 0 {
			s += " That is one lost job per crash, and the design has nowhere to report any of them: the queue forgot each job the moment it was acknowledged."
		}
		out = append(out, s)
	}
	if alo != nil {
		s := fmt.Sprintf("Acknowledging after the work lost %s and ran %s jobs twice (%s).",
			count(alo.Lost), count(alo.Duplicated), sayShare(alo.Duplicated, r.Jobs))
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
		caught := r.Crashed - loose.Duplicated
		if caught < 0 {
			caught = 0
		}
		s := fmt.Sprintf("A dedup key written in its own statement, apart from the effect, still let %s duplicates through (%s). It caught %s of the %s redeliveries",
			count(loose.Duplicated), sayShare(loose.Duplicated, r.Jobs), count(caught), count(r.Crashed))
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
			sayCap(row.Design), count(row.Lost), count(row.ExactlyOnce), count(row.Duplicated)))
	}
	var correct []string
	for _, row := range r.Rows {
		if row.Correct {
			correct = append(correct, row.Design)
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

func readCrashSweep(p experiments.CrashSweepParams, r experiments.CrashSweepResult) []string {
	if len(r.Points) == 0 {
		return []string{"No crash rates were given, so there is nothing to read."}
	}
	pts := slices.Clone(r.Points)
	slices.SortStableFunc(pts, func(a, b experiments.CrashSweepPoint) int { return cmp.Compare(a.CrashRate, b.CrashRate) })
	var parts []string
	var lost, dup, errs int64
	for _, pt := range pts {
		parts = append(parts, fmt.Sprintf("at %s crashes, %s lost (%s)", percent(pt.CrashRate), count(pt.Lost), sayShare(pt.Lost, r.Jobs)))
		lost += pt.Lost
		dup += pt.Duplicated
		errs += pt.Errors
	}
	out := []string{fmt.Sprintf("Acknowledging before the work, on %s jobs: %s.", count(r.Jobs), strings.Join(parts, "; "))}
	switch {
	case lost == 0:
		out = append(out, "Nothing was lost at any rate tried, because no rate above zero produced a crash. Add a rate such as 0.05 to see the loss.")
	case errs == 0:
		out = append(out, fmt.Sprintf("Across every rate, %s jobs vanished, %s were duplicated and %s errors were raised. The loss is silent at every point: no exception, no dead letter, no metric that moves.",
			count(lost), count(dup), count(errs)))
	default:
		out = append(out, fmt.Sprintf("Across every rate, %s jobs vanished and %s errors were raised. Ack-before-work normally has no one left to raise anything, so errors here point at the simulation, not the design.",
			count(lost), count(errs)))
	}
	// Linearity: compare the lowest and highest rates that lost anything.
	var lo, hi *experiments.CrashSweepPoint
	for i := range pts {
		if pts[i].CrashRate > 0 && pts[i].Lost > 0 {
			if lo == nil {
				lo = &pts[i]
			}
			hi = &pts[i]
		}
	}
	if lo != nil && hi != nil && hi.CrashRate > lo.CrashRate {
		out = append(out, fmt.Sprintf("From %s to %s crashes the rate grows %sx and the loss grows %sx (%s to %s jobs): the loss simply tracks the crash rate.",
			percent(lo.CrashRate), percent(hi.CrashRate), sayRatio(hi.CrashRate/lo.CrashRate), sayRatio(float64(hi.Lost)/float64(lo.Lost)), count(lo.Lost), count(hi.Lost)))
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

func readKeys(p experiments.StreamParams, r experiments.KeysResult) []string {
	if len(r.Rows) == 0 {
		return []string{"No dedup keys were compared in this run."}
	}
	if r.Crashed == 0 {
		return []string{fmt.Sprintf("None of the %s jobs crashed, so nothing was redelivered and every key reports 0 duplicates. They look identical, which is the trap: a test that never redelivers cannot tell a working key from a useless one.", count(r.Jobs))}
	}
	out := []string{fmt.Sprintf("%s of %s jobs crashed after the effect and were delivered a second time.", count(r.Crashed), count(r.Jobs))}
	var parts, good, bad []string
	for _, row := range r.Rows {
		parts = append(parts, fmt.Sprintf("keyed on %s, %s duplicates got through (%s of the redeliveries)",
			row.Key, count(row.Duplicated), sayShare(row.Duplicated, r.Crashed)))
		if row.Duplicated == 0 {
			good = append(good, row.Key)
		}
		if row.Duplicated >= r.Crashed {
			bad = append(bad, row.Key)
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

func readWindow(p experiments.WindowParams, r experiments.WindowResult) []string {
	if len(r.Points) == 0 {
		return []string{"No window sizes were given, so there is nothing to read."}
	}
	pts := slices.Clone(r.Points)
	slices.SortStableFunc(pts, func(a, b experiments.WindowPoint) int { return cmp.Compare(a.Window, b.Window) })
	if r.Crashed == 0 {
		return []string{fmt.Sprintf("None of the %s jobs crashed, so nothing was redelivered and every window shows 0 escapes. This run says nothing about sizing the window; raise crash_rate to give it duplicates to catch.", count(r.Jobs))}
	}
	out := []string{fmt.Sprintf("%s of %s jobs crashed, and each came back between 1 and %s jobs after the original.",
		count(r.Crashed), count(r.Jobs), count(r.MaxDelay))}
	first := pts[0]
	out = append(out, fmt.Sprintf("The smallest window tried, %s ids, let %s duplicates escape: %s of all jobs, or %s of the redeliveries.",
		count(first.Window), count(first.Escaped), percent(first.EscapeRate), sayShare(first.Escaped, r.Crashed)))
	zero := -1
	for i, pt := range pts {
		if pt.Escaped == 0 {
			zero = i
			break
		}
	}
	if zero < 0 {
		last := pts[len(pts)-1]
		out = append(out, fmt.Sprintf("No window tried reaches zero. The largest, %s ids, still let %s escape (%s of all jobs). Redeliveries here can arrive %s jobs late, so the window has to reach %s before the leak stops.",
			count(last.Window), count(last.Escaped), percent(last.EscapeRate), count(r.MaxDelay), count(r.MaxDelay)))
	} else {
		w := pts[zero]
		size := "about " + count(w.StateKB) + " KB"
		if w.StateKB == 0 {
			size = "under 1 KB"
		}
		s := fmt.Sprintf("The smallest window with zero escapes is %s ids (%s of ids), ", count(w.Window), size)
		switch {
		case w.Window == r.MaxDelay:
			s += fmt.Sprintf("exactly the maximum redelivery delay of %s jobs.", count(r.MaxDelay))
		case w.Window > r.MaxDelay:
			s += fmt.Sprintf("above the maximum redelivery delay of %s jobs.", count(r.MaxDelay))
			if zero > 0 {
				s += fmt.Sprintf(" The next smaller window tried, %s, still leaked %s, so the threshold lies between them.", count(pts[zero-1].Window), count(pts[zero-1].Escaped))
			}
		default:
			s += fmt.Sprintf("below the maximum redelivery delay of %s jobs. With %s redeliveries, none happened to arrive late enough to find its key gone; that is luck, not a guarantee. Only a window of %s is safe for every possible delay.",
				count(r.MaxDelay), count(r.Crashed), count(r.MaxDelay))
		}
		out = append(out, s)
	}
	for _, pt := range pts {
		if pt.Window*2 == r.MaxDelay {
			if pt.Escaped > 0 {
				out = append(out, fmt.Sprintf("At half the maximum delay (%s ids) the window still leaked %s duplicates, an escape rate of %s of all jobs. Sizing to the average delay instead of the worst one ships this leak.",
					count(pt.Window), count(pt.Escaped), percent(pt.EscapeRate)))
			} else {
				out = append(out, fmt.Sprintf("At half the maximum delay (%s ids) nothing escaped on this run, but a redelivery later than %s jobs would.", count(pt.Window), count(pt.Window)))
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
	var total, held, lucky, odd int
	var oddCells []string
	allZero := true
	for _, d := range r.MaxDelays {
		first := int64(-1)
		var lastLeak int64
		for _, w := range windows {
			e, ok := cell(d, w)
			if !ok {
				continue
			}
			total++
			if e > 0 {
				allZero = false
				lastLeak = e
			}
			switch {
			case w >= d && e == 0, w < d && e > 0:
				held++
			case w < d && e == 0:
				lucky++
			default:
				odd++
				oddCells = append(oddCells, fmt.Sprintf("window %s at delay %s (%s escaped)", count(w), count(d), count(e)))
			}
			if e == 0 && first < 0 {
				first = w
			}
		}
		if first >= 0 {
			rows = append(rows, fmt.Sprintf("delays up to %s reach zero at window %s", count(d), count(first)))
		} else {
			rows = append(rows, fmt.Sprintf("delays up to %s never reach zero (the largest window, %s, still leaks %s)", count(d), count(windows[len(windows)-1]), count(lastLeak)))
		}
	}
	if allZero {
		return []string{fmt.Sprintf("Every cell of the grid is zero. Either nothing crashed on %s jobs, or every window tried already covers every delay tried; make a delay larger than the largest window to see a leak.", count(r.Jobs))}
	}
	out := []string{fmt.Sprintf("Row by row, on %s jobs: %s.", count(r.Jobs), strings.Join(rows, "; "))}
	s := fmt.Sprintf("The rule that a window leaks until it reaches the row's maximum delay, and never after, holds in %d of %d cells.", held, total)
	if lucky > 0 {
		s += fmt.Sprintf(" In %d more, a window below the delay happened to catch everything: few enough redeliveries arrived late enough to outrun it, which is luck rather than a bound.", lucky)
	}
	if odd > 0 {
		s += fmt.Sprintf(" In %d, a window at or above the delay still leaked (%s), which the mechanism says should not happen.", odd, sayList(oddCells))
	}
	return append(out, s)
}

func readOrderings(p experiments.StreamParams, r experiments.OrderingsResult) []string {
	if len(r.Rows) == 0 {
		return []string{"No orderings were compared in this run."}
	}
	if r.Crashed == 0 {
		return []string{fmt.Sprintf("None of the %s jobs crashed, so every ordering shows 0 lost and 0 duplicated. The orderings only differ inside the crash window, which this run never opened.", count(r.Jobs))}
	}
	out := []string{fmt.Sprintf("%s of %s jobs crashed between the two writes.", count(r.Crashed), count(r.Jobs))}
	for _, row := range r.Rows {
		o := strings.ToLower(row.Order)
		switch {
		case strings.HasPrefix(o, "key"):
			out = append(out, fmt.Sprintf("Writing the key first lost %s jobs and duplicated %s: the crash marks the job as done before it ran, so the redelivery is skipped and the work never happens.",
				count(row.Lost), count(row.Duplicated)))
		case strings.HasPrefix(o, "effect"):
			out = append(out, fmt.Sprintf("Writing the effect first lost %s and duplicated %s: the crash leaves the effect in place with no key beside it, so the redelivery does it again.",
				count(row.Lost), count(row.Duplicated)))
		case strings.Contains(o, "transaction"):
			out = append(out, fmt.Sprintf("In one transaction: %s lost, %s duplicated. There is no moment at which one write exists without the other.",
				count(row.Lost), count(row.Duplicated)))
		default:
			out = append(out, fmt.Sprintf("%s: %s lost, %s duplicated.", sayCap(row.Order), count(row.Lost), count(row.Duplicated)))
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
	out := []string{fmt.Sprintf("Of %s jobs, the slowest took %s.", count(r.Jobs), saySecs(r.SlowestS))}

	zero := -1
	for i, pt := range pts {
		if pt.NoRenewal == 0 {
			zero = i
			break
		}
	}
	switch {
	case zero == 0:
		out = append(out, fmt.Sprintf("Without renewal, even the shortest timeout tried, %s, ran no job twice: no job outlived it.", saySecs(first.TimeoutS)))
	case zero > 0:
		out = append(out, fmt.Sprintf("Without renewal, a %s visibility timeout ran %s jobs twice (%s). The count first reaches zero at %s, the first timeout tried that outlasts every job; but with that timeout a worker that really has died keeps its job hidden for %s before anyone retries it.",
			saySecs(first.TimeoutS), count(first.NoRenewal), sayShare(first.NoRenewal, r.Jobs), saySecs(pts[zero].TimeoutS), saySecs(pts[zero].TimeoutS)))
	default:
		s := fmt.Sprintf("Without renewal, a %s visibility timeout ran %s jobs twice (%s)", saySecs(first.TimeoutS), count(first.NoRenewal), sayShare(first.NoRenewal, r.Jobs))
		if len(pts) > 1 {
			s += fmt.Sprintf(", and no timeout tried reaches zero: at %s, %s still ran twice", saySecs(last.TimeoutS), count(last.NoRenewal))
		}
		s += fmt.Sprintf(". Without a heartbeat the timeout has to outlast the slowest job, %s here.", saySecs(r.SlowestS))
		out = append(out, s)
	}

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
			out = append(out, fmt.Sprintf("Renewing every third of the timeout ran 0 jobs twice at every timeout from %s to %s. With a heartbeat, the timeout only has to outlast the gap between renewals, not the job.",
				saySecs(first.TimeoutS), saySecs(last.TimeoutS)))
		} else {
			out = append(out, fmt.Sprintf("Renewing every third of the timeout ran %s jobs twice at %s and %s at %s.",
				count(first.RenewThird), saySecs(first.TimeoutS), count(last.RenewThird), saySecs(last.TimeoutS)))
		}
	} else {
		s := fmt.Sprintf("With %s of heartbeats lost, renewing every third of the timeout ran %s jobs twice at %s", percent(p.HeartbeatLoss), count(first.RenewThird), saySecs(first.TimeoutS))
		if len(pts) > 1 {
			s += fmt.Sprintf(" and %s at %s", count(last.RenewThird), saySecs(last.TimeoutS))
		}
		s += fmt.Sprintf(", against %s", count(first.NoRenewal))
		if len(pts) > 1 {
			s += fmt.Sprintf(" and %s", count(last.NoRenewal))
		}
		s += " with no renewal."
		if allThirdZero {
			s += " No lease lapsed: a lapse needs enough heartbeats lost in a row to span the whole timeout, and none of these jobs ran long enough to draw such a run."
		} else {
			s += " One lost heartbeat is survivable; a run of them spanning the whole timeout is not, and a long job sends more heartbeats, so it has more chances to meet such a run. That is why a worker whose renewal fails should stop, and why the dedup key is still needed."
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
		out = append(out, fmt.Sprintf("Renewing only every twice the timeout is worse than not renewing: all %s jobs ran twice at every timeout, because each lease lapses before its first heartbeat arrives.", count(r.Jobs)))
	} else {
		out = append(out, fmt.Sprintf("Renewing only every twice the timeout ran %s jobs twice at %s and %s at %s: a heartbeat slower than the lease cannot keep it alive.",
			count(first.RenewDouble), saySecs(first.TimeoutS), count(last.RenewDouble), saySecs(last.TimeoutS)))
	}
	return out
}

func readClaims(p experiments.ClaimsParams, r experiments.ClaimsResult) []string {
	if r.Total == 0 {
		return []string{"The verifier checked nothing on this run."}
	}
	defaults := p == experiments.DefaultClaimsParams()
	if r.Passed == r.Total {
		s := fmt.Sprintf("All %d claims hold on these parameters.", r.Total)
		if defaults {
			s += " These are the document's own inputs, so this is its result derived again by separate code, not copied."
		} else {
			s += " The inputs differ from the document's, and every claim survived the change."
		}
		return []string{s}
	}
	failed := "1 does not"
	if r.Total-r.Passed != 1 {
		failed = fmt.Sprintf("%d do not", r.Total-r.Passed)
	}
	out := []string{fmt.Sprintf("%d of %d claims hold; %s.", r.Passed, r.Total, failed)}
	for _, c := range r.Claims {
		if !c.Holds {
			out = append(out, fmt.Sprintf("%s failed (%s): %s.", c.ID, c.Text, strings.TrimSuffix(c.Detail, ".")))
		}
	}
	if defaults {
		out = append(out, "At the document's inputs every claim should hold, so a failure here means the code changed, not the world.")
	} else {
		out = append(out, "Some claims are tied to their inputs: a window of half the max delay can only leak if something crashed, and a 5 s timeout only doubles many jobs if enough of them are slow. After a change of parameters, a failure can mean the claim does not carry over to them rather than that the code is wrong.")
	}
	return out
}

func readScale(p experiments.ScaleParams, r experiments.ScaleResult) []string {
	s := fmt.Sprintf("At %s messages a day, with a %s chance per message that the consumer dies inside the crash window, expect about %s duplicates a day",
		sayApprox(p.MessagesPerDay), sayProb(p.CrashWindowP), sayApprox(r.DuplicatesPerDay))
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
	out = append(out, fmt.Sprintf("Keeping dedup keys for %s days means holding about %s keys; at %s bytes a key that is about %s.",
		sayApprox(p.ReplayDays), sayApprox(r.DedupKeys), sayApprox(p.BytesPerKey), sayBytes(r.DedupStoreBytes)))
	if r.RetryPeakMultiplier > 1 {
		out = append(out, fmt.Sprintf("A naive retry policy of %sx puts %sx the normal load on a downstream at the moment it is already failing; backoff and a dead-letter queue are part of correctness, not polish.",
			sayApprox(p.RetryMultiplier), sayApprox(r.RetryPeakMultiplier)))
	}
	return out
}

func readOutbox(p experiments.OutboxParams, r experiments.OutboxResult) []string {
	if r.Events == 0 || len(r.Rows) == 0 {
		return []string{"No events were produced in this run, so there is nothing to read."}
	}
	out := []string{fmt.Sprintf("%s business changes, with a %s chance of a crash at each step.", count(r.Events), percent(p.CrashRate))}
	var clean []string
	var obNo, obYes *experiments.OutboxRow
	for i := range r.Rows {
		row := &r.Rows[i]
		out = append(out, fmt.Sprintf("%s, %s: %s lost, %s phantom, %s duplicate applications.",
			sayCap(row.Design), sayConsumer(row.ConsumerDedup), count(row.Lost), count(row.Phantom), count(row.DuplicateApplications)))
		if row.Lost == 0 && row.Phantom == 0 && row.DuplicateApplications == 0 {
			clean = append(clean, row.Design+", "+sayConsumer(row.ConsumerDedup))
		}
		if strings.Contains(strings.ToLower(row.Design), "outbox") {
			if row.ConsumerDedup {
				obYes = row
			} else {
				obNo = row
			}
		}
	}
	if p.CrashRate == 0 {
		return append(out, "With no crashes every design looks perfect; they differ only inside the crash window.")
	}
	switch len(clean) {
	case 0:
		out = append(out, "No combination came through clean on every count.")
	case 1:
		out = append(out, fmt.Sprintf("Only one combination lost nothing, invented nothing and applied nothing twice: %s.", clean[0]))
	default:
		out = append(out, fmt.Sprintf("Clean on every count: %s.", sayList(clean)))
	}
	if obNo != nil && obYes != nil {
		out = append(out, fmt.Sprintf("The outbox lost %s events and invented %s. Its relay's republishing showed up as %s duplicate applications at a consumer without a key and %s at one with a key: the outbox makes sure the event exists, the key makes sure it lands once.",
			count(obNo.Lost), count(obNo.Phantom), count(obNo.DuplicateApplications), count(obYes.DuplicateApplications)))
	}
	return out
}

func sayConsumer(dedup bool) string {
	if dedup {
		return "consumer with a dedup key"
	}
	return "consumer without a dedup key"
}



// sayShare writes n as a percentage of of, two decimals; nothing of nothing is 0.00%.
func sayShare(n, of int64) string {
	if of == 0 {
		return "0.00%"
	}
	return percent(float64(n) / float64(of))
}

// saySecs writes a duration in seconds as given, or to one decimal when it was measured.
func saySecs(s float64) string {
	if s == math.Trunc(s) {
		return strconv.FormatFloat(s, 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(s, 'f', 1, 64) + " s"
}

// sayRatio writes a growth factor to at most one decimal.
func sayRatio(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}

// sayApprox writes a float for prose: whole with separators when large, three significant digits
// when small, scientific when beyond what separators make readable.
func sayApprox(f float64) string {
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return "unbounded"
	case math.Abs(f) >= 1e15:
		return strconv.FormatFloat(f, 'g', 3, 64)
	case math.Abs(f) >= 100:
		return count(int64(math.Round(f)))
	case f == math.Trunc(f):
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}

// sayProb writes a small probability as "1 in N" and a larger one as a percentage.
func sayProb(f float64) string {
	if f > 0 && f < 0.001 {
		return "1 in " + sayApprox(1/f)
	}
	return percent(f)
}

// saySpan writes seconds in the largest sensible unit.
func saySpan(s float64) string {
	switch {
	case math.IsInf(s, 0) || math.IsNaN(s) || s <= 0:
		return "never"
	case s < 120:
		return sayApprox(s) + " s"
	case s < 7200:
		return sayApprox(s/60) + " minutes"
	case s < 2*86400:
		return sayApprox(s/3600) + " hours"
	}
	return sayApprox(s/86400) + " days"
}

// sayBytes writes a size in decimal units, as storage is priced.
func sayBytes(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	return strconv.FormatFloat(math.Round(b*10)/10, 'f', -1, 64) + " " + units[i]
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
