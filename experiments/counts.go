package experiments

import (
	"strconv"
)

// Count is one number a run reports at one point of its chart: the design, window, timeout or
// crash rate the chart's category or x value is ("" for a run with no such axis), and the count's
// own name, the JSON name of the result field it comes from (lost, escaped, no_renewal, ...).
//
// Counts are the contract between a run and everything that asks about its numbers rather than
// drawing them: the spread over seeds summarises each Count over many runs, and "which jobs?"
// lists the jobs behind a Count, so both name a number the same way.
type Count struct {
	Point string  `json:"point"`
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// The points of a two-dimensional result and of the outbox's rows join their parts with this.
const pointSep = "/"

// GridPoint names the window-grid's cell at max delay d and window w: "d/w".
func GridPoint(maxDelay, window int64) string {
	return strconv.FormatInt(maxDelay, 10) + pointSep + strconv.FormatInt(window, 10)
}

// OutboxPoint names an outbox row: the design, with "/dedup" when the consumer dedups.
func OutboxPoint(d OutboxDesign, dedup bool) string {
	if dedup {
		return string(d) + pointSep + "dedup"
	}
	return string(d)
}

// counter collects a result's counts in order; each experiment's counts function (given to its
// definition with .counts) fills one.
type counter []Count

func (c *counter) add(point, name string, v int64) { *c = append(*c, Count{point, name, float64(v)}) }

func (c *counter) addFloat(point, name string, v float64) { *c = append(*c, Count{point, name, v}) }

func windowTimeCounts(r WindowTimeResult) []Count {
	var out counter
	out.add("", "window_ids", r.WindowIDs)
	out.add("", "delay_jobs", r.DelayJobs)
	return out
}

func assemblyCounts(r AssemblyResult) []Count {
	var out counter
	for _, row := range r.Rows {
		p := string(row.Design)
		out.add(p, "lost", row.Lost)
		out.add(p, "exactly_once", row.ExactlyOnce)
		out.add(p, "duplicated", row.Duplicated)
	}
	return out
}

func crashSweepCounts(r CrashSweepResult) []Count {
	var out counter
	for _, pt := range r.Points {
		p := FormatFloat(pt.CrashRate)
		out.add(p, "lost", pt.Lost)
		out.add(p, "duplicated", pt.Duplicated)
		out.add(p, "errors", pt.Errors)
		out.add(p, "ack_after_duplicated", pt.AckAfterDuplicated)
	}
	return out
}

func keysCounts(r KeysResult) []Count {
	var out counter
	for _, row := range r.Rows {
		out.add(string(row.Key), "duplicated", row.Duplicated)
	}
	return out
}

func windowCounts(r WindowResult) []Count {
	var out counter
	for _, pt := range r.Points {
		out.add(strconv.FormatInt(pt.Window, 10), "escaped", pt.Escaped)
	}
	return out
}

func windowGridCounts(r WindowGridResult) []Count {
	var out counter
	for _, c := range r.Cells {
		out.add(GridPoint(c.MaxDelay, c.Window), "escaped", c.Escaped)
	}
	return out
}

func orderingsCounts(r OrderingsResult) []Count {
	var out counter
	for _, row := range r.Rows {
		p := string(row.Order)
		out.add(p, "lost", row.Lost)
		out.add(p, "duplicated", row.Duplicated)
	}
	return out
}

func leaseCounts(r LeaseResult) []Count {
	var out counter
	for _, pt := range r.Points {
		p := FormatFloat(pt.TimeoutS)
		out.add(p, "no_renewal", pt.NoRenewal)
		out.add(p, "renew_third", pt.RenewThird)
		out.add(p, "renew_double", pt.RenewDouble)
		out.add(p, "renew_double_real", pt.RenewDoubleReal)
	}
	return out
}

func outboxCounts(r OutboxResult) []Count {
	var out counter
	for _, row := range r.Rows {
		p := OutboxPoint(row.Design, row.ConsumerDedup)
		out.add(p, "lost", row.Lost)
		out.add(p, "phantom", row.Phantom)
		out.add(p, "duplicate_applications", row.DuplicateApplications)
	}
	return out
}

func claimsCounts(r ClaimsResult) []Count {
	var out counter
	out.addFloat("", "passed", float64(r.Passed))
	out.add("", "crashes", r.Crashes)
	for _, c := range r.Claims {
		p := c.Kind.String()
		switch c.Kind {
		case ClaimAckBeforeLoses, ClaimAckAfterDuplicates, ClaimDedupKeyCatches, ClaimKeyOutsideTxMisses:
			out.add(p, "lost", c.Lost)
			out.add(p, "duplicated", c.Duplicated)
		case ClaimSmallWindowLeaks, ClaimFullWindowLeaksNone:
			out.add(p, "escaped", c.Escaped)
		case ClaimShortTimeoutDoubles:
			out.add(p, "doubles", c.Doubles)
		case ClaimLongTimeoutReachesZero:
			out.add(p, "doubles_60s", c.Doubles60)
			out.add(p, "doubles_300s", c.Doubles300)
		}
	}
	return out
}

func scaleCounts(r ScaleResult) []Count {
	var out counter
	out.addFloat("", "duplicates_per_day", r.DuplicatesPerDay)
	out.addFloat("", "seconds_between_duplicates", r.SecondsBetweenDuplicates)
	out.addFloat("", "dedup_keys", r.DedupKeys)
	out.addFloat("", "dedup_store_bytes", r.DedupStoreBytes)
	out.addFloat("", "retry_peak_multiplier", r.RetryPeakMultiplier)
	return out
}
