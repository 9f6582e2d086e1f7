package pages

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
)

// Table is a result laid out as rows: the data table under every chart, the CSV answer of the API
// and the CLI's table output all come from it, so a number reads the same everywhere.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
	// Numeric marks the columns to right-align.
	Numeric []bool
}

// CSV writes the table as RFC 4180 text.
func (t Table) CSV() string {
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteByte(',')
			}
			if strings.ContainsAny(c, ",\"\n") {
				c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
			}
			b.WriteString(c)
		}
		b.WriteString("\r\n")
	}
	line(t.Head)
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}

// Text writes the table with aligned columns, for a terminal.
func (t Table) Text() string {
	w := make([]int, len(t.Head))
	for i, h := range t.Head {
		w[i] = len([]rune(h))
	}
	for _, r := range t.Rows {
		for i, c := range r {
			w[i] = max(w[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	if t.Caption != "" {
		b.WriteString(t.Caption + "\n")
	}
	line := func(cells []string) {
		for i, c := range cells {
			pad := strings.Repeat(" ", w[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(t.Numeric) && t.Numeric[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		b.WriteString("\n")
	}
	line(t.Head)
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}

// Tables lays out any experiment's result. Unknown results give nil.
func Tables(result any) []Table {
	switch r := result.(type) {
	case experiments.AssemblyResult:
		t := Table{Caption: fmt.Sprintf("Four designs, %s jobs, %s crashed", count(r.Jobs), count(r.Crashed)),
			Head: []string{"design", "lost", "exactly once", "duplicated", "correct"}, Numeric: []bool{false, true, true, true, false}}
		for _, row := range r.Rows {
			t.Rows = append(t.Rows, []string{string(row.Design), count(row.Lost), count(row.ExactlyOnce), count(row.Duplicated), yesNo(row.Correct)})
		}
		return []Table{t}
	case experiments.CrashSweepResult:
		t := Table{Caption: fmt.Sprintf("Ack before work, %s jobs", count(r.Jobs)),
			Head:    []string{"crash rate", "lost", "duplicated", "errors raised", "duplicated if acked after"},
			Numeric: []bool{true, true, true, true, true}}
		for _, p := range r.Points {
			t.Rows = append(t.Rows, []string{rate(p.CrashRate), count(p.Lost), count(p.Duplicated), count(p.Errors), count(p.AckAfterDuplicated)})
		}
		return []Table{t}
	case experiments.KeysResult:
		t := Table{Caption: fmt.Sprintf("Dedup keys, %s jobs, %s redelivered", count(r.Jobs), count(r.Crashed)),
			Head: []string{"dedup key", "duplicates"}, Numeric: []bool{false, true}}
		for _, row := range r.Rows {
			t.Rows = append(t.Rows, []string{string(row.Key), count(row.Duplicated)})
		}
		return []Table{t}
	case experiments.WindowResult:
		t := Table{Caption: fmt.Sprintf("Bounded dedup, redeliveries 1 to %s jobs late", count(r.MaxDelay)),
			Head: []string{"window", "state", "duplicates escaped", "rate"}, Numeric: []bool{true, true, true, true}}
		for _, p := range r.Points {
			t.Rows = append(t.Rows, []string{count(p.Window), count(p.StateKB) + " KB", count(p.Escaped), percent(p.EscapeRate)})
		}
		return []Table{t}
	case experiments.WindowGridResult:
		t := Table{Caption: "Duplicates escaped, by max redelivery delay (rows) and window (columns)",
			Head: []string{"max redelivery delay"}, Numeric: []bool{true}}
		for _, w := range r.Windows {
			t.Head = append(t.Head, "window "+count(w))
			t.Numeric = append(t.Numeric, true)
		}
		for di, d := range r.MaxDelays {
			row := []string{count(d)}
			for wi := range r.Windows {
				row = append(row, count(gridCell(r, di, wi)))
			}
			t.Rows = append(t.Rows, row)
		}
		return []Table{t}
	case experiments.OrderingsResult:
		t := Table{Caption: fmt.Sprintf("Dedup key and effect, %s jobs", count(r.Jobs)),
			Head: []string{"order", "lost", "duplicated"}, Numeric: []bool{false, true, true}}
		for _, row := range r.Rows {
			t.Rows = append(t.Rows, []string{string(row.Order), count(row.Lost), count(row.Duplicated)})
		}
		return []Table{t}
	case experiments.LeaseResult:
		t := Table{Caption: fmt.Sprintf("Jobs executed twice, of %s", count(r.Jobs)),
			Head: []string{"visibility timeout", "no renewal", "renew at t/3", "renew at 2t"}, Numeric: []bool{true, true, true, true}}
		for _, p := range r.Points {
			t.Rows = append(t.Rows, []string{seconds(p.TimeoutS), count(p.NoRenewal), count(p.RenewThird), count(p.RenewDouble)})
		}
		return []Table{t}
	case experiments.ClaimsResult:
		t := Table{Caption: fmt.Sprintf("%d/%d claims verified", r.Passed, r.Total),
			Head: []string{"id", "claim", "result", "measured"}}
		for _, c := range r.Claims {
			t.Rows = append(t.Rows, []string{c.ID, c.Text, passFail(c.Holds), c.Detail})
		}
		return []Table{t}
	case experiments.ScaleResult:
		t := Table{Caption: "Duplicates at scale", Head: []string{"quantity", "value"}, Numeric: []bool{false, true}}
		t.Rows = [][]string{
			{"duplicates a day", approx(r.DuplicatesPerDay)},
			{"one duplicate every", duration(r.SecondsBetweenDuplicates)},
			{"dedup keys held", approx(r.DedupKeys)},
			{"dedup store", bytesSI(r.DedupStoreBytes)},
			{"load on a failing downstream", approx(r.RetryPeakMultiplier) + "x"},
		}
		return []Table{t}
	case experiments.OutboxResult:
		t := Table{Caption: fmt.Sprintf("Producer designs, %s events", count(r.Events)),
			Head: []string{"producer", "consumer", "lost events", "phantom events", "duplicate applications"}, Numeric: []bool{false, false, true, true, true}}
		for _, row := range r.Rows {
			c := "no dedup key"
			if row.ConsumerDedup {
				c = "dedup key"
			}
			t.Rows = append(t.Rows, []string{string(row.Design), c, count(row.Lost), count(row.Phantom), count(row.DuplicateApplications)})
		}
		return []Table{t}
	}
	return nil
}

// gridCell is the cell at row di (max delay) and column wi (window). Cells are laid out row by
// row, so this is an index, not a search: a 50 by 50 grid would otherwise cost millions of
// comparisons per render.
func gridCell(r experiments.WindowGridResult, di, wi int) int64 {
	return r.Cells[di*len(r.Windows)+wi].Escaped
}

// count writes an integer with thousands separators.
func count(v int64) string { return experiments.Thousands(v) }

// percent writes a fraction as a percentage with two decimals, as the documents do.
func percent(f float64) string { return strconv.FormatFloat(f*100, 'f', 2, 64) + "%" }

// rate writes a crash rate as a short percentage (0.001 -> 0.1%).
func rate(f float64) string { return strconv.FormatFloat(f*100, 'f', -1, 64) + "%" }

func seconds(s float64) string { return strconv.FormatFloat(s, 'f', -1, 64) + " s" }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func passFail(b bool) string {
	if b {
		return "PASS"
	}
	return "FAIL"
}

// approx writes a float for a reader, in tables and prose alike: whole with separators when large, three significant digits
// when small, scientific when beyond what separators make readable.
func approx(f float64) string {
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

// timeUnit is one unit a span of seconds can be written in.
type timeUnit struct {
	below     float64 // spans shorter than this many seconds use this unit
	seconds   float64
	short     string
	one, many string
}

var timeUnits = []timeUnit{
	{1e-3, 1e-6, "µs", "microsecond", "microseconds"},
	{1, 1e-3, "ms", "millisecond", "milliseconds"},
	{120, 1, "s", "second", "seconds"},
	{7200, 60, "min", "minute", "minutes"},
	{172800, 3600, "h", "hour", "hours"},
	{math.Inf(1), 86400, "days", "day", "days"},
}

// spanIn picks the largest sensible unit for s seconds; tables and readings both use it, so a
// duration is written in the same unit in the table and in the prose beside it.
func spanIn(s float64) (float64, timeUnit) {
	for _, u := range timeUnits {
		if s < u.below {
			return s / u.seconds, u
		}
	}
	u := timeUnits[len(timeUnits)-1]
	return s / u.seconds, u
}

// duration writes seconds as the largest sensible unit.
func duration(s float64) string {
	if s <= 0 || math.IsNaN(s) {
		return "never"
	}
	v, u := spanIn(s)
	return sig3(v) + " " + u.short
}

// roundSig3 rounds to three significant digits.
func roundSig3(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 3, 64), 64)
	return v
}

// sig3 writes three significant digits without an exponent, with separators for large values.
func sig3(x float64) string {
	v := roundSig3(x)
	if v >= 1000 && v < 1e18 {
		return count(int64(v))
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// bytesSI writes a byte count in decimal units, as storage is priced.
func bytesSI(b float64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	return sig3(b) + " " + units[i]
}
