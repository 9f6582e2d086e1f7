package present

import (
	"fmt"

	"effectivelyonce/experiments"
)

// orderingsShows presents block 5's three orders of key and effect.
var orderingsShows = shows[experiments.StreamParams, experiments.OrderingsResult]{
	charts:  orderingsCharts,
	tables:  orderingsTables,
	reading: readOrderings,
	opening: func(_ experiments.StreamParams, r experiments.OrderingsResult) Opening {
		return crashedOpening(r.Crashed)
	},
	point:   byName,
	rowWord: "with the order",
	ask:     &asking[experiments.StreamParams, experiments.OrderingsResult]{says: []string{"jobs", "crash_rate"}, words: askOrderings},
}

// orderDoes says what each order of the two writes does, to open a question about its row.
var orderDoes = map[string]string{
	string(experiments.OrderKeyThenEffect):  "Writing the dedup key first and the effect after it",
	string(experiments.OrderEffectThenKey):  "Writing the effect first and the dedup key after it",
	string(experiments.OrderOneTransaction): "Writing the dedup key and the effect in one transaction",
}

// askOrderings asks for an order's lost or duplicated jobs.
func askOrderings(p experiments.StreamParams, _ experiments.OrderingsResult, at experiments.Count) string {
	return fmt.Sprintf("%s, how many of %s %s with %s?", orderDoes[at.At.Name], ofJobs(p.Jobs), jobsDid[at.Name], crashing(p.CrashRate))
}

func orderingsCharts(domID string, _ experiments.StreamParams, r experiments.OrderingsResult) []Chart {
	cats, series := rowBars(r.Rows, func(x experiments.OrderingRow) string { return string(x.Order) },
		column[experiments.OrderingRow]{"lost", func(x experiments.OrderingRow) int64 { return x.Lost }},
		column[experiments.OrderingRow]{"duplicated", func(x experiments.OrderingRow) int64 { return x.Duplicated }})
	return []Chart{barChart(domID+"-bars", "Lost and duplicated, per write order",
		"Grouped bars of lost and duplicated jobs for each ordering of key and effect.", "", "jobs", cats, series)}
}

func orderingsTables(_ experiments.StreamParams, r experiments.OrderingsResult) []Table {
	t := newTable("Dedup key and effect, "+Plural(r.Jobs, "job", "jobs"),
		col{"order", "order", false}, col{"lost", "lost_jobs", true}, col{"duplicated", "duplicated_jobs", true})
	for _, row := range r.Rows {
		t.addAt(string(row.Order), textCell(string(row.Order)), countCell(row.Lost), countCell(row.Duplicated))
	}
	return []Table{t}
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
		switch row.Order {
		case experiments.OrderKeyThenEffect:
			out = append(out, fmt.Sprintf("Writing the key first lost %s and duplicated %s: the crash marks the job as done before it ran, so the redelivery is skipped and the work never happens.",
				Plural(row.Lost, "job", "jobs"), count(row.Duplicated)))
		case experiments.OrderEffectThenKey:
			out = append(out, fmt.Sprintf("Writing the effect first lost %s and duplicated %s: the crash leaves the effect in place with no key beside it, so the redelivery does it again.",
				count(row.Lost), count(row.Duplicated)))
		case experiments.OrderOneTransaction:
			out = append(out, fmt.Sprintf("In one transaction: %s lost, %s duplicated. There is no moment at which one write exists without the other.",
				count(row.Lost), count(row.Duplicated)))
		default:
			out = append(out, fmt.Sprintf("%s: %s lost, %s duplicated.", SayCap(string(row.Order)), count(row.Lost), count(row.Duplicated)))
		}
	}
	return out
}
