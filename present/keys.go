package present

import (
	"fmt"
	"strings"

	"effectivelyonce/experiments"
)

// keysShows presents block 3's three choices of dedup key.
var keysShows = shows[experiments.StreamParams, experiments.KeysResult]{
	charts:  keysCharts,
	tables:  keysTables,
	reading: readKeys,
	opening: func(_ experiments.StreamParams, r experiments.KeysResult) Opening {
		return crashedOpening(r.Crashed)
	},
	point:   byName,
	rowWord: "with the dedup key",
	ask:     &asking[experiments.StreamParams, experiments.KeysResult]{says: []string{"jobs", "crash_rate"}, words: askKeys},
}

// keyMadeOf says what each dedup key is made of.
var keyMadeOf = map[string]string{
	string(experiments.KeyJobID):          "the job id",
	string(experiments.KeyJobIDAttempt):   "the job id and the attempt number",
	string(experiments.KeyUUIDPerAttempt): "a fresh id minted for each attempt",
}

// askKeys asks how many jobs run twice behind one dedup key.
func askKeys(p experiments.StreamParams, _ experiments.KeysResult, at experiments.Count) string {
	return fmt.Sprintf("With a dedup key made of %s, how many of %s run twice with %s?", keyMadeOf[at.At.Name], ofJobs(p.Jobs), crashing(p.CrashRate))
}

func keysCharts(domID string, _ experiments.StreamParams, r experiments.KeysResult) []Chart {
	cats, series := rowBars(r.Rows, func(x experiments.KeyRow) string { return string(x.Key) },
		column[experiments.KeyRow]{"duplicates", func(x experiments.KeyRow) int64 { return x.Duplicated }})
	return []Chart{barChart(domID+"-bars", "Duplicates that get through, per dedup key",
		"Bars of duplicates per choice of dedup key.", "dedup key", "duplicates", cats, series)}
}

func keysTables(_ experiments.StreamParams, r experiments.KeysResult) []Table {
	t := newTable(fmt.Sprintf("Dedup keys, %s, %s redelivered", Plural(r.Jobs, "job", "jobs"), count(r.Crashed)),
		col{"dedup key", "dedup_key", false}, col{"duplicates", "duplicated_jobs", true},
		col{"deliveries", "deliveries", true}, col{"effects applied", "effects", true})
	for _, row := range r.Rows {
		t.addAt(string(row.Key), textCell(string(row.Key)), countCell(row.Duplicated), countCell(row.Deliveries), countCell(row.Effects))
	}
	return []Table{t}
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
			row.Key, Plural(row.Duplicated, "duplicate", "duplicates"), sayShare(row.Duplicated, r.Crashed)))
		if row.Duplicated == 0 {
			good = append(good, string(row.Key))
		}
		if row.Duplicated >= r.Crashed {
			bad = append(bad, string(row.Key))
		}
	}
	out = append(out, SayCap(strings.Join(parts, "; "))+".")
	if len(good) > 0 && len(bad) > 0 {
		out = append(out, fmt.Sprintf("Only %s stopped every redelivery. %s stopped none: a key that changes between attempts never matches the first attempt, so it is dedup in name only.",
			SayList(good), SayCap(SayList(bad))))
	} else if len(good) == 0 {
		out = append(out, "No key stopped every redelivery on this run.")
	}
	return out
}
