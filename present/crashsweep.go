package present

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"effectivelyonce/experiments"
)

// crashSweepShows presents block 1's sweep of crash rates.
var crashSweepShows = shows[experiments.CrashSweepParams, experiments.CrashSweepResult]{
	charts:  crashSweepCharts,
	tables:  crashSweepTables,
	reading: readCrashSweep,
	point:   func(p experiments.Point) string { return "crash rate " + experiments.FormatFloat(p.X) },
	rowWord: "at",
	ask: &asking[experiments.CrashSweepParams, experiments.CrashSweepResult]{says: []string{"jobs", "crash_rates"},
		words: askCrashSweep},
}

// askCrashSweep asks what block 1 asks before its sweep: "Acking each job before running it, with
// 20% crashing, how many of 20,000 jobs raise an error?"
func askCrashSweep(p experiments.CrashSweepParams, _ experiments.CrashSweepResult, at experiments.Count) string {
	return fmt.Sprintf("Acking each job before running it, with %s, how many of %s %s?", crashing(at.At.X), ofJobs(p.Jobs), jobsDid[at.Name])
}

func crashSweepCharts(domID string, _ experiments.CrashSweepParams, r experiments.CrashSweepResult) []Chart {
	cats, series := rowBars(r.Points, func(x experiments.CrashSweepPoint) string { return rate(x.CrashRate) },
		column[experiments.CrashSweepPoint]{"lost", func(x experiments.CrashSweepPoint) int64 { return x.Lost }},
		column[experiments.CrashSweepPoint]{"duplicated", func(x experiments.CrashSweepPoint) int64 { return x.Duplicated }},
		column[experiments.CrashSweepPoint]{"errors raised", func(x experiments.CrashSweepPoint) int64 { return x.Errors }})
	return []Chart{barChart(domID+"-bars", "Ack before work: lost, duplicated, errors",
		"Bars of jobs lost per crash rate, beside duplicated jobs and errors raised, both zero.",
		"crash rate", "jobs", cats, series)}
}

// crashRule is the sweep's crash rule in a reader's notation, for the caption and the reading.
const crashRule = "job i crashes when (i × 7,919) mod 100,000 is below the rate × 100,000"

func crashSweepTables(_ experiments.CrashSweepParams, r experiments.CrashSweepResult) []Table {
	t := Table{Caption: fmt.Sprintf("Ack before work, %s, by a fixed rule rather than the random stream: %s", Plural(r.Jobs, "job", "jobs"), crashRule),
		Head:    []string{"crash rate", "lost", "duplicated", "errors raised", "duplicated if acked after"},
		Keys:    []string{"crash_rate", "lost_jobs", "duplicated_jobs", "errors_raised", "ack_after_duplicated_jobs"},
		Numeric: []bool{true, true, true, true, true}}
	for _, p := range r.Points {
		t.addAt(experiments.SweepPoint(p.CrashRate), rateCell(p.CrashRate), countCell(p.Lost), countCell(p.Duplicated), countCell(p.Errors), countCell(p.AckAfterDuplicated))
	}
	return []Table{t}
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
		parts = append(parts, fmt.Sprintf("at %s crashes, %s lost (%s)", rate(pt.CrashRate), count(pt.Lost), sayShare(pt.Lost, r.Jobs)))
		lost += pt.Lost
		dup += pt.Duplicated
		errs += pt.Errors
		if pt.CrashRate > 0 {
			anyRate = true
		}
	}
	out := []string{fmt.Sprintf("Acknowledging before the work, on %s: %s.", Plural(r.Jobs, "job", "jobs"), strings.Join(parts, "; ")),
		"Which jobs crash here is not drawn at random: " + crashRule + ". The rule needs no seed and hits exactly the asked share only over a full cycle of 100,000 jobs, " +
			"while the seeded stream of the other experiments tosses a coin for each job; so at the same rate the two crash different " +
			"jobs, and different numbers of them, and this table need not match theirs."}
	runs := Plural(int64(len(pts)), "run", "runs")
	top := pts[len(pts)-1]
	switch {
	case lost == 0 && !anyRate:
		out = append(out, "Every rate tried was zero, so nothing crashed and nothing could be lost. Add a rate above zero to see the loss.")
	case lost == 0:
		out = append(out, fmt.Sprintf("No rate tried crashed any of these %s, so nothing was lost. Add jobs or a higher rate to see the loss.", Plural(r.Jobs, "job", "jobs")))
	case len(pts) == 1 && errs == 0:
		out = append(out, fmt.Sprintf("It raised %s and duplicated %s. The loss is silent: no exception, no dead letter, no metric that moves.",
			Plural(errs, "error", "errors"), count(dup)))
	case errs == 0:
		s := fmt.Sprintf("None of the %s raised an error", runs)
		if dup == 0 {
			s += " or ran a job twice"
		}
		s += ": the loss is silent at every rate, with no exception, no dead letter and no metric that moves."
		if top.Lost > 0 && top.CrashRate > pts[0].CrashRate {
			s += fmt.Sprintf(" The rule nests its crashes, since a job below the bar at one rate is below it at every higher one, so %s lost at %s %s every job lost at a lower rate; the counts overlap and do not add up.",
				sayThe(top.Lost, "job", "jobs"), rate(top.CrashRate), verb(top.Lost, "includes", "include"))
		}
		out = append(out, s)
	default:
		out = append(out, fmt.Sprintf("The %s raised %s between them. Ack-before-work normally has no one left to raise anything, so errors here point at the simulation, not the design.",
			runs, Plural(errs, "error", "errors")))
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
			coarseRates = append(coarseRates, rate(pt.CrashRate))
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
				rate(lo.CrashRate), rate(hi.CrashRate), sayRatio(hi.CrashRate/lo.CrashRate), sayRatio(float64(hi.Lost)/float64(lo.Lost)),
				count(lo.Lost), Plural(hi.Lost, "job", "jobs"))
			if follows {
				s += " At each of these rates the loss is within a fifth of the rate times the stream: it follows the crash rate."
			} else {
				s += " At some of these rates the loss is more than a fifth away from the rate times the stream, so on this stream it does not follow the rate closely."
			}
			out = append(out, s)
		}
	}
	if len(coarseRates) > 0 && lost > 0 {
		out = append(out, fmt.Sprintf("On %s, %s %s that only %s of them %s lost, and a job is lost whole, so at %s the count is too coarse to follow the rate.",
			Plural(r.Jobs, "job", "jobs"), pickNoun(coarseRates, "a rate of", "rates of")+" "+SayList(coarseRates), pickNoun(coarseRates, "predicts", "predict"),
			SayList(coarseExpect), pickNoun(coarseExpect, "is", "are", "1"), pickNoun(coarseRates, "that rate", "those rates")))
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
				d = append(d, fmt.Sprintf("%s at %s", count(pt.AckAfterDuplicated), rate(pt.CrashRate)))
			}
			out = append(out, fmt.Sprintf("Moving the ack after the work would duplicate %s instead.", SayList(d)))
		}
	}
	return out
}
