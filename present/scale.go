package present

import (
	"fmt"
	"math"

	"effectivelyonce/experiments"
)

// scaleShows presents the concept page's arithmetic at scale: a table of five quantities.
var scaleShows = shows[experiments.ScaleParams, experiments.ScaleResult]{
	tables:  scaleTables,
	reading: readScale,
	// The duplicates a day depend on the day's messages and the crash window alone.
	ask: &asking[experiments.ScaleParams, experiments.ScaleResult]{
		says: []string{"messages_per_day", "crash_window_p", "replay_days", "bytes_per_key", "retry_multiplier"},
		words: func(p experiments.ScaleParams, _ experiments.ScaleResult, _ experiments.Count) string {
			return fmt.Sprintf("At %s a day, each with a %s chance that its worker dies in the crash window, how many duplicates a day?",
				pluralGiven(p.MessagesPerDay, "message", "messages"), rate(p.CrashWindowP))
		}},
}

func scaleTables(_ experiments.ScaleParams, r experiments.ScaleResult) []Table {
	t := Table{Caption: "Duplicates at scale", Head: []string{"quantity", "value"}, Numeric: []bool{false, true}}
	t.Rows = [][]string{
		{"duplicates a day", approx(r.DuplicatesPerDay)},
		{"one duplicate every", duration(r.SecondsBetweenDuplicates)},
		{"dedup keys held", approx(r.DedupKeys)},
		{"dedup store", bytesSI(r.DedupStoreBytes)},
		{"load on a failing downstream", approx(r.RetryPeakMultiplier) + "x"},
	}
	// For a program, the five quantities are one row under headers that carry their units. With no
	// duplicates there is no interval between them: the result's 0 means never, an empty cell here.
	between := r.SecondsBetweenDuplicates
	if between <= 0 {
		between = math.Inf(1)
	}
	t.Keys = []string{"duplicates_per_day", "seconds_between_duplicates", "dedup_keys", "dedup_store_bytes", "retry_peak_multiplier"}
	t.Data = [][]Cell{{NumberCell(t.Rows[0][1], r.DuplicatesPerDay), NumberCell(t.Rows[1][1], between),
		NumberCell(t.Rows[2][1], r.DedupKeys), NumberCell(t.Rows[3][1], r.DedupStoreBytes), NumberCell(t.Rows[4][1], r.RetryPeakMultiplier)}}
	return []Table{t}
}

func readScale(p experiments.ScaleParams, r experiments.ScaleResult) []string {
	s := fmt.Sprintf("At %s a day, with a %s chance per message that the consumer dies inside the crash window, expect about %s a day",
		pluralGiven(p.MessagesPerDay, "message", "messages"), sayProb(p.CrashWindowP), pluralF(r.DuplicatesPerDay, "duplicate", "duplicates"))
	switch {
	case r.DuplicatesPerDay > 0 && math.IsInf(r.SecondsBetweenDuplicates, 1):
		s += ", so few that the wait between two of them overflows any clock this page can compute."
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
		out = append(out, "With no replay window at all, no dedup key is kept. That is no dedup: every redelivery would find nothing to match and be applied again.")
	} else {
		out = append(out, fmt.Sprintf("Keeping dedup keys for %s means holding about %s; at %s a key that is about %s.",
			pluralGiven(p.ReplayDays, "day", "days"), pluralF(r.DedupKeys, "key", "keys"), pluralGiven(p.BytesPerKey, "byte", "bytes"), bytesSI(r.DedupStoreBytes)))
	}
	if r.RetryPeakMultiplier > 1 {
		out = append(out, fmt.Sprintf("A naive retry policy of %sx puts %sx the normal load on a downstream at the moment it is already failing; backoff, a retry budget and a dead-letter queue are part of correctness, not polish.",
			Exact(p.RetryMultiplier), approx(r.RetryPeakMultiplier)))
	}
	return out
}
