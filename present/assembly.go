package present

import (
	"fmt"

	"effectivelyonce/experiments"
)

// assemblyShows presents the four designs on one stream (blocks 1 to 3 and the assembly).
var assemblyShows = shows[experiments.StreamParams, experiments.AssemblyResult]{
	tables:  assemblyTables,
	reading: readAssembly,
	opening: func(_ experiments.StreamParams, r experiments.AssemblyResult) Opening {
		return crashedOpening(r.Crashed)
	},

	// A block shows the designs it has introduced so far and marks its own (see Scope).
	focusCharts: assemblyCharts,
	rows:        &scoping[experiments.AssemblyResult]{keys: designKeys, upTo: assemblyUpTo},
	point:       byName,
	rowWord:     "with design",
	ask:         &asking[experiments.StreamParams, experiments.AssemblyResult]{says: []string{"jobs", "crash_rate"}, words: askAssembly},
}

// designDoes says what each design does with the ack and the key, to open a question about its row.
var designDoes = map[string]string{
	string(experiments.DesignAtMostOnce):            "Acking each job before running it",
	string(experiments.DesignAtLeastOnce):           "Acking each job after running it",
	string(experiments.DesignDedupNonTransactional): "With a dedup key written in its own statement after the effect",
	string(experiments.DesignDedupTransactional):    "With the dedup key and the effect committed in one transaction",
}

// jobsDid says what a count of jobs counts, after "how many of 20,000 jobs".
var jobsDid = map[string]string{"lost": "are lost", "duplicated": "run twice", "exactly_once": "are applied exactly once",
	"errors": "raise an error", "ack_after_duplicated": "would run twice had the ack come after the work"}

// askAssembly asks for a design's lost or duplicated jobs: "Acking each job before running it, how
// many of 20,000 jobs are lost with 2% crashing?"
func askAssembly(p experiments.StreamParams, _ experiments.AssemblyResult, at experiments.Count) string {
	return fmt.Sprintf("%s, how many of %s %s with %s?", designDoes[at.At.Name], ofJobs(p.Jobs), jobsDid[at.Name], crashing(p.CrashRate))
}

// assemblyCharts draws lost and duplicated jobs per design; the design a page is about (focus) is
// marked on the axis.
func assemblyCharts(domID string, _ experiments.StreamParams, r experiments.AssemblyResult, focus string) []Chart {
	cats, series := rowBars(r.Rows, func(x experiments.AssemblyRow) string { return string(x.Design) },
		column[experiments.AssemblyRow]{"lost", func(x experiments.AssemblyRow) int64 { return x.Lost }},
		column[experiments.AssemblyRow]{"duplicated", func(x experiments.AssemblyRow) int64 { return x.Duplicated }})
	alt := fmt.Sprintf("Grouped bars of lost and duplicated jobs for %s; the table below holds the numbers.", sayDesigns(len(r.Rows)))
	if focus != "" {
		alt = fmt.Sprintf("Grouped bars of lost and duplicated jobs for %s, %s marked; the table below holds the numbers.", sayDesigns(len(r.Rows)), focus)
	}
	return []Chart{barChart(domID+"-bars", "Lost and duplicated jobs per design", alt, "", "jobs", cats, series, withFocus(focus))}
}

// designKeys are the assembly's rows as a marker names them (upto=, focus=), in the result's order.
func designKeys() []string {
	var out []string
	for _, d := range experiments.Designs() {
		out = append(out, string(d))
	}
	return out
}

// assemblyUpTo keeps the designs up to and including key: the ones a block has introduced.
func assemblyUpTo(r experiments.AssemblyResult, key string) experiments.AssemblyResult {
	for i, row := range r.Rows {
		if string(row.Design) == key {
			r.Rows = r.Rows[: i+1 : i+1]
			break
		}
	}
	return r
}

// sayDesigns is "the one design", "the two designs" ... "the four designs".
func sayDesigns(n int) string {
	if n == 1 {
		return "the one design"
	}
	return "the " + sayCount(n) + " designs"
}

// sayCount writes a small count as a word.
func sayCount(n int) string {
	if n >= 0 && n < 10 {
		return [...]string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}[n]
	}
	return count(int64(n))
}

func assemblyTables(_ experiments.StreamParams, r experiments.AssemblyResult) []Table {
	t := newTable(fmt.Sprintf("%s, %s, %s crashed", SayCap(sayCount(len(r.Rows))+" "+verb(int64(len(r.Rows)), "design", "designs")), Plural(r.Jobs, "job", "jobs"), count(r.Crashed)),
		col{"design", "design", false}, col{"lost", "lost_jobs", true}, col{"exactly once", "exactly_once_jobs", true},
		col{"duplicated", "duplicated_jobs", true}, col{"correct", "correct", false},
		col{"deliveries", "deliveries", true}, col{"effects applied", "effects", true})
	for _, row := range r.Rows {
		t.addAt(string(row.Design), textCell(string(row.Design)), countCell(row.Lost), countCell(row.ExactlyOnce), countCell(row.Duplicated), yesNoCell(row.Correct),
			countCell(row.Deliveries), countCell(row.Effects))
	}
	return []Table{t}
}

func readAssembly(p experiments.StreamParams, r experiments.AssemblyResult) []string {
	if r.Jobs == 0 || len(r.Rows) == 0 {
		return []string{"This run has no jobs, so there is nothing to compare."}
	}
	if r.Crashed == 0 {
		return []string{fmt.Sprintf("%s, at a crash rate of %s.", sayNoneCrashed(r.Jobs), rate(p.CrashRate)), "With no crash there is no crash window, so all four designs come out correct and this run " +
			"cannot tell them apart. That is also why a test suite that never kills a worker passes a broken " +
			"dedup. " + noCrashAdvice(p.CrashRate, r.Jobs, "see the rows separate")}
	}
	out := []string{fmt.Sprintf("%s mid-job, drawn at a crash rate of %s: %s of the stream.",
		sayCrashed(r.Crashed, r.Jobs, "had its worker die", "had their worker die"), rate(p.CrashRate), sayShare(r.Crashed, r.Jobs))}
	var amo, alo, loose, tx *experiments.AssemblyRow
	var other []experiments.AssemblyRow
	for i := range r.Rows {
		row := &r.Rows[i]
		switch row.Design {
		case experiments.DesignAtMostOnce:
			amo = row
		case experiments.DesignAtLeastOnce:
			alo = row
		case experiments.DesignDedupNonTransactional:
			loose = row
		case experiments.DesignDedupTransactional:
			tx = row
		default:
			other = append(other, *row)
		}
	}
	if amo != nil {
		s := fmt.Sprintf("Acknowledging before the work ran %s exactly once, lost %s (%s) and duplicated %s.",
			Plural(amo.ExactlyOnce, "job", "jobs"), count(amo.Lost), sayShare(amo.Lost, r.Jobs), count(amo.Duplicated))
		if amo.Lost == r.Crashed && amo.Lost > 0 {
			s += " That is one lost job per crash, and the design has nowhere to report any of them: the queue forgot each job the moment it was acknowledged."
		}
		out = append(out, s)
	}
	if alo != nil {
		s := fmt.Sprintf("Acknowledging after the work lost %s and ran %s twice (%s).",
			count(alo.Lost), Plural(alo.Duplicated, "job", "jobs"), sayShare(alo.Duplicated, r.Jobs))
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
			Plural(loose.Duplicated, "duplicate", "duplicates"), sayShare(loose.Duplicated, r.Jobs), count(caught), sayThe(r.Crashed, "redelivery", "redeliveries"))
		if caught == 0 {
			s += ": none, because the crash that skips the key write is the same crash that causes the redelivery."
		} else {
			s += "."
		}
		out = append(out, s)
	}
	if tx != nil {
		s := fmt.Sprintf("With the key and the effect committed together in one transaction: %s lost, %s duplicated, %s applied exactly once.",
			count(tx.Lost), count(tx.Duplicated), count(tx.ExactlyOnce))
		if redelivered := tx.Deliveries - r.Jobs; redelivered > 0 {
			s += fmt.Sprintf(" Delivery did not change: the workers still received %s for %s, because %s came a second time; the dedup key turned each repeat delivery into a no-op, so %s landed.",
				Plural(tx.Deliveries, "delivery", "deliveries"), Plural(r.Jobs, "job", "jobs"), Plural(redelivered, "job", "jobs"), Plural(tx.Effects, "effect", "effects"))
		}
		out = append(out, s)
	}
	for _, row := range other {
		out = append(out, fmt.Sprintf("%s: %s lost, %s exactly once, %s duplicated.",
			SayCap(string(row.Design)), count(row.Lost), count(row.ExactlyOnce), count(row.Duplicated)))
	}
	var correct []string
	for _, row := range r.Rows {
		if row.Correct {
			correct = append(correct, string(row.Design))
		}
	}
	switch {
	case len(correct) == 0 && len(r.Rows) == 1:
		out = append(out, fmt.Sprintf("So %s is not correct on this run: it %s.", r.Rows[0].Design, failedHow(r.Rows[0])))
	case len(correct) == 0:
		var how []string
		for _, row := range r.Rows {
			how = append(how, string(row.Design)+" "+failedHow(row))
		}
		out = append(out, "No design was correct on this run: "+SayList(how)+".")
	case len(correct) == 1 && len(r.Rows) == 1:
		out = append(out, fmt.Sprintf("On this run %s lost nothing and doubled nothing.", correct[0]))
	case len(correct) == 1:
		out = append(out, fmt.Sprintf("Only one row is correct, losing nothing and doubling nothing: %s.", correct[0]))
	default:
		out = append(out, fmt.Sprintf("Correct on this run, losing nothing and doubling nothing: %s.", SayList(correct)))
	}
	return out
}

// failedHow says what an incorrect row did wrong, and only that: a row that only lost jobs did not
// double any, and a reading that says "lost or doubled" leaves the reader to find out which.
func failedHow(row experiments.AssemblyRow) string {
	switch {
	case row.Lost > 0 && row.Duplicated > 0:
		return "lost jobs and doubled others"
	case row.Lost > 0:
		return "lost jobs"
	default:
		return "doubled jobs"
	}
}

// noCrashAdvice says how to get a crash into a run that had none: a rate of zero cannot crash
// anything, and a positive rate on a short stream may simply expect less than one crash.
func noCrashAdvice(crashRate float64, jobs int64, goal string) string {
	if crashRate <= 0 {
		return "Set crash_rate above zero to " + goal + "."
	}
	expect, pct := crashRate*float64(jobs), rate(crashRate)
	if expect < 3 {
		return fmt.Sprintf("The crash rate is above zero, but %s too few: at %s the stream expects only %s. Raise jobs or crash_rate to %s.",
			Plural(jobs, "job is", "jobs are"), pct, pluralF(expect, "crash", "crashes"), goal)
	}
	return fmt.Sprintf("This stream expected about %s and drew none; try another seed to %s.", pluralF(expect, "crash", "crashes"), goal)
}
