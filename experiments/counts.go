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

// Counts lists the numbers a result's charts and tables report, point by point in the result's own
// order, each point's counts in a fixed order. It knows every result type of the catalog; any
// other value has no counts.
func Counts(result any) []Count {
	var out []Count
	add := func(point, name string, v float64) { out = append(out, Count{point, name, v}) }
	n := func(v int64) float64 { return float64(v) }
	switch r := result.(type) {
	case AssemblyResult:
		for _, row := range r.Rows {
			p := string(row.Design)
			add(p, "lost", n(row.Lost))
			add(p, "exactly_once", n(row.ExactlyOnce))
			add(p, "duplicated", n(row.Duplicated))
		}
	case CrashSweepResult:
		for _, pt := range r.Points {
			p := FormatFloat(pt.CrashRate)
			add(p, "lost", n(pt.Lost))
			add(p, "duplicated", n(pt.Duplicated))
			add(p, "errors", n(pt.Errors))
			add(p, "ack_after_duplicated", n(pt.AckAfterDuplicated))
		}
	case KeysResult:
		for _, row := range r.Rows {
			add(string(row.Key), "duplicated", n(row.Duplicated))
		}
	case WindowResult:
		for _, pt := range r.Points {
			add(strconv.FormatInt(pt.Window, 10), "escaped", n(pt.Escaped))
		}
	case WindowGridResult:
		for _, c := range r.Cells {
			add(GridPoint(c.MaxDelay, c.Window), "escaped", n(c.Escaped))
		}
	case WindowTimeResult:
		add("", "window_ids", n(r.WindowIDs))
		add("", "delay_jobs", n(r.DelayJobs))
	case OrderingsResult:
		for _, row := range r.Rows {
			p := string(row.Order)
			add(p, "lost", n(row.Lost))
			add(p, "duplicated", n(row.Duplicated))
		}
	case LeaseResult:
		for _, pt := range r.Points {
			p := FormatFloat(pt.TimeoutS)
			add(p, "no_renewal", n(pt.NoRenewal))
			add(p, "renew_third", n(pt.RenewThird))
			add(p, "renew_double", n(pt.RenewDouble))
			add(p, "renew_double_real", n(pt.RenewDoubleReal))
		}
	case OutboxResult:
		for _, row := range r.Rows {
			p := OutboxPoint(row.Design, row.ConsumerDedup)
			add(p, "lost", n(row.Lost))
			add(p, "phantom", n(row.Phantom))
			add(p, "duplicate_applications", n(row.DuplicateApplications))
		}
	case ClaimsResult:
		add("", "passed", float64(r.Passed))
		add("", "crashes", n(r.Crashes))
		for _, c := range r.Claims {
			p := c.Kind.String()
			switch c.Kind {
			case ClaimAckBeforeLoses, ClaimAckAfterDuplicates, ClaimDedupKeyCatches, ClaimKeyOutsideTxMisses:
				add(p, "lost", n(c.Lost))
				add(p, "duplicated", n(c.Duplicated))
			case ClaimSmallWindowLeaks, ClaimFullWindowLeaksNone:
				add(p, "escaped", n(c.Escaped))
			case ClaimShortTimeoutDoubles:
				add(p, "doubles", n(c.Doubles))
			case ClaimLongTimeoutReachesZero:
				add(p, "doubles_60s", n(c.Doubles60))
				add(p, "doubles_300s", n(c.Doubles300))
			}
		}
	case ScaleResult:
		add("", "duplicates_per_day", r.DuplicatesPerDay)
		add("", "seconds_between_duplicates", r.SecondsBetweenDuplicates)
		add("", "dedup_keys", r.DedupKeys)
		add("", "dedup_store_bytes", r.DedupStoreBytes)
		add("", "retry_peak_multiplier", r.RetryPeakMultiplier)
	}
	return out
}
