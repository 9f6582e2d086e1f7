package present

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
)

// pointLabel is a count's point as the experiment's own tables and the "which jobs?" headings
// write it ("timeout 5 s", "max delay 5,000, window 500", "outbox, consumer with dedup"), or "the
// run" for a count of the whole run.
func pointLabel(experiment string, c experiments.SpreadCount) string {
	return PointWords(experiment, c.Point, c.At)
}

// countWords is a count's name as prose: "duplicate_applications" reads "duplicate applications",
// unless the experiment's presenter names it otherwise (the lease's policies read as its table
// heads them).
func countWords(experiment, name string) string {
	if p, ok := PresenterFor(experiment); ok {
		if w, ok := p.counts[name]; ok {
			return w
		}
	}
	return strings.ReplaceAll(name, "_", " ")
}

// countTitle names a count for a chart's title: the count in words, or, for counts the presenter
// names as kinds of one thing (the lease's policies, of jobs run twice), the thing and the kind.
func countTitle(experiment, name string) string {
	if p, ok := PresenterFor(experiment); ok && p.countsOf != "" {
		if w, ok := p.counts[name]; ok {
			return p.countsOf + " (" + w + ")"
		}
	}
	return SayCap(countWords(experiment, name))
}

// tenths rounds a summary value to one decimal: quantiles interpolate between runs' counts, and
// a tenth of a job is already finer than any reader needs (432.65000000000003 is 432.7). A whole
// number stays whole.
func tenths(x float64) float64 {
	if x == math.Trunc(x) {
		return x
	}
	return math.Round(x*10) / 10
}

// num writes a summary value: whole numbers whole, with separators (1,000); anything else at one
// decimal, with separators too (1,234.5), however large, so that one table writes its fractions
// one way (not 80.0 beside 113 for 112.6).
func num(x float64) string {
	x = tenths(x)
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return count(int64(x))
	}
	return group(strconv.FormatFloat(x, 'f', 1, 64))
}

// ordinal writes a whole percentile as "38th".
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

// still reports whether a count came out the same on every seed: its rank says nothing then.
func still(c experiments.SpreadCount) bool { return c.Min == c.Max }

// verdict says whether the form's own value lies inside the band.
func verdict(c experiments.SpreadCount) string {
	if c.Typical() {
		return "typical"
	}
	return "atypical"
}

// rank is the table's rank cell: the percentile and the verdict, or, for a count that never moved,
// that it did not (the 50th percentile of a constant is no news of typicality). The cell says
// "percentile": a bare "45th" among 20 seeds reads as a place in a queue of 20.
func rank(c experiments.SpreadCount, n int) string {
	if still(c) {
		return fmt.Sprintf("did not move over %d seeds", n)
	}
	return ordinal(int(math.Round(c.Percentile))) + " percentile, " + verdict(c)
}

// SpreadTable lists every count's summary over the seeds: the page's table under the band charts,
// and the CSV's second table.
func SpreadTable(experiment string, s experiments.SpreadResult) Table {
	// The people's table leaves the lowest and highest seed to the program's form (min, max): seven
	// columns did not fit a page's column at 1280 px, and the one cut off was the percentile, which
	// carries the point; the middle 90% already says how far the seeds spread.
	t := newTable(fmt.Sprintf("Spread over %d seeds: this run against the others", s.N),
		col{"point", "point", false}, col{"count", "count", false}, col{"this run", "value", true},
		col{"median", "median", true}, col{"middle 90%", "p5_p95", true},
		col{"percentile among seeds", "percentile", false})
	// The two forms differ in shape here: people read ranges in one cell, programs want one
	// number per column, so Keys and Data are written out in full below.
	t.Keys = []string{"point", "count", "value", "median", "p5", "p95", "min", "max", "percentile"}
	t.Data = nil
	for _, c := range s.Counts {
		point, name := pointLabel(experiment, c), countWords(experiment, c.Name)
		t.Rows = append(t.Rows, []string{point, name, num(c.Value), num(c.Median),
			num(c.P5) + "–" + num(c.P95), rank(c, s.N)})
		t.Data = append(t.Data, []Cell{WordCell(point, c.Point), WordCell(name, c.Name),
			NumberCell(num(c.Value), c.Value), NumberCell(num(c.Median), c.Median), NumberCell(num(c.P5), c.P5),
			NumberCell(num(c.P95), c.P95), NumberCell(num(c.Min), c.Min), NumberCell(num(c.Max), c.Max),
			NumberCell(rank(c, s.N), c.Percentile)})
	}
	return t
}

// notNews are counts a reading does not lead with: the share that came out right (exactly_once,
// passed) is the complement of what the block is about, and crashes are the stream's input.
var notNews = []string{"exactly_once", "passed", "crashes"}

// headlines picks the counts the reading speaks of, among those that moved and that the block is
// about (not notNews): every atypical one first (they are the news), then those with the largest
// medians, at most three in all.
func headlines(s experiments.SpreadResult) []experiments.SpreadCount {
	var pool []experiments.SpreadCount
	for _, c := range s.Counts {
		if !still(c) && !slices.Contains(notNews, c.Name) {
			pool = append(pool, c)
		}
	}
	var out []experiments.SpreadCount
	for _, c := range pool {
		if !c.Typical() && len(out) < 3 {
			out = append(out, c)
		}
	}
	rest := slices.DeleteFunc(slices.Clone(pool), func(c experiments.SpreadCount) bool { return !c.Typical() })
	slices.SortStableFunc(rest, func(a, b experiments.SpreadCount) int { return cmp.Compare(b.Median, a.Median) })
	for _, c := range rest {
		if len(out) == 3 {
			break
		}
		out = append(out, c)
	}
	return out
}

// SpreadReading says where the form's own numbers sit among the seeds': how many of the counts
// that moved fall inside the band, then the headlines grouped by verdict, one sentence per verdict
// rather than one per count, so that three alike do not read as the same sentence three times.
func SpreadReading(experiment string, s experiments.SpreadResult) []string {
	moved, inside := 0, 0
	for _, c := range s.Counts {
		if still(c) {
			continue
		}
		moved++
		if c.Typical() {
			inside++
		}
	}
	seeds := fmt.Sprintf("Over %d seeds (your seeds and the %d that follow each of them)", s.N, s.N-1)
	if moved == 0 {
		return []string{seeds + ", no number moved at all from one seed to the next."}
	}
	first := fmt.Sprintf("%s, %d of the %d numbers that moved come out inside the band of the middle 90%% of seeds", seeds, inside, moved)
	if never := len(s.Counts) - moved; never > 0 {
		first += "; " + Plural(int64(never), "other did not move at all", "others did not move at all")
	}
	first += "."
	var typical, atypical []string
	for _, c := range headlines(s) {
		where := ""
		if c.Point != "" {
			where = pointLabel(experiment, c) + ": "
		}
		item := fmt.Sprintf("%s %s (%s%s percentile; median %s, middle 90%% %s to %s)", num(c.Value), countWords(experiment, c.Name),
			where, ordinal(int(math.Round(c.Percentile))), num(c.Median), num(c.P5), num(c.P95))
		if c.Typical() {
			typical = append(typical, item)
		} else {
			atypical = append(atypical, item)
		}
	}
	out := []string{first}
	var parts []string
	if len(atypical) > 0 {
		parts = append(parts, fmt.Sprintf("Outside the middle 90%% of the %d seeds, so atypical: %s.", s.N, SayList(atypical)))
	}
	if len(typical) > 0 {
		parts = append(parts, fmt.Sprintf("Inside the middle 90%% of the %d seeds, so typical: %s.", s.N, SayList(typical)))
	}
	if len(parts) > 0 {
		out = append(out, strings.Join(parts, " "))
	}
	return out
}
