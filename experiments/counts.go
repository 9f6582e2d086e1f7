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
	// At is the point as the values its label is made of (see Point).
	At Point `json:"-"`
}

// Point is a count's point as values, kept beside its label (Count.Point, the name a URL, the API
// and the CSV use), so that a chart's axis and the words for a row read the numbers and the names
// themselves and never parse the label back. Which of its parts are set is the experiment's
// PointKind: none for a count of the whole run (label ""); X for a sweep (a window, a timeout, a
// crash rate); X and Y for a grid's cell (its window and its max delay); Name for a named row (a
// design, a key, an order, a claim), with Flag for the outbox's second part of a row, whether the
// consumer dedups.
type Point struct {
	X, Y float64
	Name string
	Flag bool
}

// PointKind is what the points of an experiment's counts are, declared in its definition (.counts) so
// that a presenter is held to say them in words, and a sweep to draw them on an axis, before any
// run (TestEveryExperimentIsWhole); TestCountsStandAtTheirPoints holds each run's counts to it.
type PointKind int

// The kinds of points a run's counts stand at. Any of them may also count the whole run, at "".
const (
	// WholeRun: every count is of the whole run (window-time, scale).
	WholeRun PointKind = iota
	// NamedRows: rows named by a word (designs, keys, orders, claims).
	NamedRows
	// Sweep: one number that the run sweeps (windows, timeouts, crash rates).
	Sweep
	// Grid: cells of two numbers (max delay by window).
	Grid
)

// String names the kind for a test's message.
func (k PointKind) String() string {
	return [...]string{"the whole run", "named rows", "a sweep", "a grid"}[k]
}

// SweepPoint is the label of a sweep's point at x (a window of 1000 is "1000", a timeout of 2.5 s
// "2.5"): the tables that link to a count name it by the same function as the count itself.
func SweepPoint(x float64) string { return FormatFloat(x) }

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

// pointAt is a point as the counts and the tracers make it: its label and its values, made
// together by the constructors below so that the two always say the same.
type pointAt struct {
	label string
	Point
}

// The points of each PointKind: the whole run; a sweep's number; a grid's cell; a named row, and
// the outbox's rows, named by their design and whether the consumer dedups.
var whole pointAt

func swept(x float64) pointAt { return pointAt{SweepPoint(x), Point{X: x}} }
func cell(maxDelay, window int64) pointAt {
	return pointAt{GridPoint(maxDelay, window), Point{X: float64(window), Y: float64(maxDelay)}}
}
func named(name string) pointAt { return pointAt{name, Point{Name: name}} }
func outboxAt(d OutboxDesign, dedup bool) pointAt {
	return pointAt{OutboxPoint(d, dedup), Point{Name: string(d), Flag: dedup}}
}

// counter collects a result's counts in order; each experiment's counts function (given to its
// definition with .counts) fills one.
type counter []Count

func (c *counter) add(p pointAt, name string, v int64) { c.addFloat(p, name, float64(v)) }

func (c *counter) addFloat(p pointAt, name string, v float64) {
	*c = append(*c, Count{Point: p.label, Name: name, Value: v, At: p.Point})
}

func windowTimeCounts(r WindowTimeResult) []Count {
	var out counter
	out.add(whole, "window_ids", r.WindowIDs)
	out.add(whole, "delay_jobs", r.DelayJobs)
	return out
}

func assemblyCounts(r AssemblyResult) []Count {
	var out counter
	for _, row := range r.Rows {
		p := named(string(row.Design))
		out.add(p, "lost", row.Lost)
		out.add(p, "exactly_once", row.ExactlyOnce)
		out.add(p, "duplicated", row.Duplicated)
	}
	return out
}

func crashSweepCounts(r CrashSweepResult) []Count {
	var out counter
	for _, pt := range r.Points {
		p := swept(pt.CrashRate)
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
		out.add(named(string(row.Key)), "duplicated", row.Duplicated)
	}
	return out
}

func windowCounts(r WindowResult) []Count {
	var out counter
	for _, pt := range r.Points {
		out.add(swept(float64(pt.Window)), "escaped", pt.Escaped)
	}
	return out
}

func windowGridCounts(r WindowGridResult) []Count {
	var out counter
	for _, c := range r.Cells {
		out.add(cell(c.MaxDelay, c.Window), "escaped", c.Escaped)
	}
	return out
}

func orderingsCounts(r OrderingsResult) []Count {
	var out counter
	for _, row := range r.Rows {
		p := named(string(row.Order))
		out.add(p, "lost", row.Lost)
		out.add(p, "duplicated", row.Duplicated)
	}
	return out
}

func leaseCounts(r LeaseResult) []Count {
	var out counter
	for _, pt := range r.Points {
		p := swept(pt.TimeoutS)
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
		p := outboxAt(row.Design, row.ConsumerDedup)
		out.add(p, "lost", row.Lost)
		out.add(p, "phantom", row.Phantom)
		out.add(p, "duplicate_applications", row.DuplicateApplications)
	}
	return out
}

func claimsCounts(r ClaimsResult) []Count {
	var out counter
	out.addFloat(whole, "passed", float64(r.Passed))
	out.add(whole, "crashes", r.Crashes)
	for _, c := range r.Claims {
		p := named(c.Kind.String())
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
	out.addFloat(whole, "duplicates_per_day", r.DuplicatesPerDay)
	out.addFloat(whole, "seconds_between_duplicates", r.SecondsBetweenDuplicates)
	out.addFloat(whole, "dedup_keys", r.DedupKeys)
	out.addFloat(whole, "dedup_store_bytes", r.DedupStoreBytes)
	out.addFloat(whole, "retry_peak_multiplier", r.RetryPeakMultiplier)
	return out
}
