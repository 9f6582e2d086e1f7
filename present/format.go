package present

import (
	"math"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
)

// Every number a person reads, in a table, a reading or a chart label, is written by a function in
// this file, and all of them rest on three writers: sig (a measured or computed value, to a few
// significant digits), fixed (a value to a set number of decimals, as the documents print shares)
// and Exact (a value as the reader gave it). All three keep significant digits at every magnitude:
// a nonzero value never comes out as zero, binary noise (0.00009999999999999999) never shows, and
// no exponent in the e+15 style appears. Thousands get separators up to 10^21; beyond that, and
// below a millionth, a value is written as a mantissa times a power of ten (3.65 × 10²⁸), where
// runs of zeros would no longer be read.
//
// The machine form of a table (CSV) does not come from here: see raw in table.go.

const (
	// bigFrom is the magnitude from which separators stop helping: seven groups of digits.
	bigFrom = 1e21
	// tinyBelow is the magnitude under which leading zeros stop being counted by a reader.
	tinyBelow = 1e-6
	// givenDigits is how many significant digits a value the reader typed keeps: enough for
	// anything typed by hand, few enough to drop the noise of arithmetic such as 0.07*100.
	givenDigits = 12
)

// count writes an integer with thousands separators.
func count(v int64) string { return experiments.Thousands(v) }

// percent writes a fraction as a percentage with two decimals, as the documents do (1.99%), and
// with more decimals where two would hide the value: 1e-6 is 0.0001%, never 0.00%.
func percent(f float64) string { return fixed(f*100, 2) + "%" }

// rate writes a rate the reader gave as a percentage, as given: 0.001 is 0.1%, 1e-6 is 0.0001%.
// The decimal point of the shortest form of f is moved two places rather than f multiplied by
// 100, which in binary adds noise (0.07 × 100) and, near the smallest doubles, loses digits to a
// subnormal (1e-320 would read 9.99988867183 × 10⁻³¹⁹%).
func rate(f float64) string {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	e, _ := strconv.Atoi(exp)
	v, err := strconv.ParseFloat(mant+"e"+strconv.Itoa(e+2), 64)
	if err != nil { // f*100 overflows: the value itself says it
		v = f * 100
	}
	return Exact(v) + "%"
}

// seconds writes a time the reader gave, as given (0.001 s, 86,400 s).
func seconds(s float64) string { return Exact(s) + " s" }

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

// approx writes a computed value for a reader, in tables and prose alike: whole with separators
// from 100 up, three significant digits below.
func approx(f float64) string { return sig(f, 3) }

// sig writes v to n significant digits, but never cuts the whole part of a number: 1,234,567 stays
// whole, 12.345 becomes 12.3 at n = 3. Infinity, which no finite run produces, reads "unbounded".
func sig(v float64, n int) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "unbounded"
	case v == 0:
		return "0"
	case a >= bigFrom || a < tinyBelow:
		return sci(v, n)
	}
	exp := exponent(v, n)
	if exp >= n-1 {
		return group(strconv.FormatFloat(v, 'f', 0, 64))
	}
	return group(trimExact(strconv.FormatFloat(v, 'f', n-1-exp, 64), v))
}

// fixed writes v with places decimals, and with as many more as it takes to show two significant
// digits of a small nonzero value (the extra trailing zeros trimmed): fixed(0.0001, 2) is 0.0001.
func fixed(v float64, places int) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "unbounded"
	case v != 0 && (a >= bigFrom || a < tinyBelow):
		return sci(v, 2)
	}
	for d := places; ; d++ {
		s := strconv.FormatFloat(v, 'f', d, 64)
		if v != 0 && shownDigits(s) < 2 && d < places+12 {
			continue
		}
		if cut := len(s) - (d - places); d > places {
			// Past the decimals asked for, a trailing zero stays only when it is a digit of
			// the rounding (0.010 for 0.0095), not when the value ends there (0.0001).
			if short := s[:cut] + strings.TrimRight(s[cut:], "0"); same(mustParse(short), v) {
				s = short
			}
		}
		return group(s)
	}
}

// Exact writes a value the reader gave (a parameter, a constant of the model) as they would type
// it, with separators: 0.001, 20,000, 1,000,000,000,000,000.
func Exact(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "unbounded"
	case v == 0:
		return "0"
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', givenDigits, 64), 64)
	if a := math.Abs(v); a >= bigFrom || a < tinyBelow {
		// The shortest form of the value rounded to what a reader types: a subnormal has fewer
		// true digits than givenDigits, and more would print its binary noise.
		return sciText(strconv.FormatFloat(r, 'e', -1, 64))
	}
	return group(strconv.FormatFloat(r, 'f', -1, 64))
}

// exponent is the power of ten of v's leading digit once v is rounded to n significant digits.
func exponent(v float64, n int) int {
	s := strconv.FormatFloat(v, 'e', n-1, 64)
	e, _ := strconv.Atoi(s[strings.IndexByte(s, 'e')+1:])
	return e
}

// sci writes v as a mantissa of up to n significant digits times a power of ten: 3.65 × 10²⁸.
func sci(v float64, n int) string {
	s := strconv.FormatFloat(v, 'e', n-1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	if r, _ := strconv.ParseFloat(trimZeros(mant)+"e"+exp, 64); same(r, v) {
		mant = trimZeros(mant)
	}
	return mant + " × 10" + superscript(e)
}

// sciText writes a number in Go's e-notation ("1e-318", "3.65e+28") as a mantissa times a power
// of ten, with the digits it has.
func sciText(s string) string {
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return mant + " × 10" + superscript(e)
}

// superscript writes an integer in superscript digits.
func superscript(e int) string {
	const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹"
	var b strings.Builder
	if e < 0 {
		b.WriteString("⁻")
		e = -e
	}
	for _, c := range strconv.Itoa(e) {
		r := []rune(digits)[c-'0']
		b.WriteRune(r)
	}
	return b.String()
}

// trimExact drops the trailing zeros of a rounded decimal when they say nothing, because what is
// left is the value itself (0.0001%, 1 × 10⁻⁷), and keeps them when the value was rounded to them
// (0.010 for 0.0095, 0.200 for 0.2004): trailing zeros a reader sees are digits.
func trimExact(s string, v float64) string {
	if t := trimZeros(s); same(mustParse(t), v) {
		return t
	}
	return s
}

// same reports whether two floats agree to well past any digit a reader sees.
func same(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Abs(b) }

func mustParse(s string) float64 {
	v, _ := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	return v
}

// trimZeros drops the trailing zeros of a decimal fraction, and its point when nothing is left.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// shownDigits counts the significant digits a decimal string shows: "0.10" shows two, "0.00" none.
func shownDigits(s string) int {
	n, started := 0, false
	for _, c := range s {
		switch {
		case c >= '1' && c <= '9':
			started = true
			n++
		case c == '0' && started:
			n++
		}
	}
	return n
}

// group puts thousands separators into the whole part of a decimal string.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if shownDigits(s) == 0 {
		sign = "" // -0.00 is 0.00
	}
	grouped := experiments.GroupDigits(whole)
	if hasFrac {
		return sign + grouped + "." + frac
	}
	return sign + grouped
}

// timeUnit is one unit a span of seconds can be written in.
type timeUnit struct {
	below     float64 // spans shorter than this many seconds use this unit
	seconds   float64
	short     string
	one, many string
}

var timeUnits = []timeUnit{
	{1e-9, 1e-12, "ps", "picosecond", "picoseconds"},
	{1e-6, 1e-9, "ns", "nanosecond", "nanoseconds"},
	{1e-3, 1e-6, "µs", "microsecond", "microseconds"},
	{1, 1e-3, "ms", "millisecond", "milliseconds"},
	{120, 1, "s", "second", "seconds"},
	{7200, 60, "min", "minute", "minutes"},
	{172800, 3600, "h", "hour", "hours"},
	{math.Inf(1), 86400, "days", "day", "days"},
}

// spanIn picks the largest sensible unit for s seconds; tables and readings both use it, so a
// duration is written in the same unit in the table and in the prose beside it. A value that
// rounds up into the next unit (119.96 s) takes that unit, so no span reads "120 s".
func spanIn(s float64) (float64, timeUnit) {
	for i, u := range timeUnits {
		if s < u.below && (i == len(timeUnits)-1 || roundSig3(s/u.seconds)*u.seconds < u.below) {
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
	if math.IsInf(s, 1) {
		return "unbounded"
	}
	v, u := spanIn(s)
	return sig(v, 3) + " " + u.short
}

// roundSig3 rounds to three significant digits.
func roundSig3(f float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 3, 64), 64)
	return v
}

// bytesSI writes a byte count in decimal units, as storage is priced.
func bytesSI(b float64) string {
	units := []string{"B", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	return sig(b, 3) + " " + units[i]
}

// stateSize writes the memory of a dedup window the way the document's table does: whole
// kilobytes of 1,024 bytes, rounded down (31 KB for 2,000 ids of 16 bytes). Below one kilobyte it
// counts bytes, so a small window never reads 0 KB; from a megabyte up, three significant digits.
func stateSize(b int64) string {
	switch {
	case b < 1024:
		return count(b) + " B"
	case b < 1024*1024:
		return count(b/1024) + " KB"
	}
	v, units := float64(b)/(1024*1024), []string{"MB", "GB", "TB", "PB", "EB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return sig(v, 3) + " " + units[i]
}
