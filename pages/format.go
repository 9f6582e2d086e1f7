package pages

import (
	"effectivelyonce/experiments"
	"math"
	"strconv"
)

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

// PassFail writes a claim's verdict the way the verifier prints it.
func PassFail(b bool) string {
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
