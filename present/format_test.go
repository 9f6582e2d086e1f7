package present

import (
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestFormatAtEveryMagnitude pins the three writers and the units built on them at the values the
// documents print (which must not move) and at the values issue 8 saw go wrong.
func TestFormatAtEveryMagnitude(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		// The documents' own figures.
		{percent(0.0199), "1.99%"},
		{percent(0.00975), "0.97%"},
		{percent(0.019), "1.90%"},
		{percent(0), "0.00%"},
		{rate(0.001), "0.1%"},
		{rate(0.2), "20%"},
		{seconds(5), "5 s"},
		{seconds(300), "300 s"},
		{saySecs(287.3), "287.3 s"},
		{duration(86.4), "86.4 s"},
		{bytesSI(448e9), "448 GB"},
		{approx(1e9), "1,000,000,000"},
		{stateSize(100 * 16), "1 KB"},
		{stateSize(500 * 16), "7 KB"},
		{stateSize(1000 * 16), "15 KB"},
		{stateSize(1500 * 16), "23 KB"},
		{stateSize(2000 * 16), "31 KB"},
		{stateSize(5000 * 16), "78 KB"},
		{stateSize(10_000_000 * 16), "153 MB"},
		{stateSize(1 << 50), "1 PB"}, // once stopped at GB and read "1,048,576 GB"
		// Small values keep two significant digits instead of rounding to zero.
		{percent(1e-6), "0.0001%"},
		{percent(0.000123), "0.012%"},
		{percent(1e-7), "0.00001%"},
		{rate(1e-6), "0.0001%"},
		{rate(5e-6), "0.0005%"},
		{rate(0.07), "7%"},
		// A rate next to the smallest doubles is moved by its decimal point, not multiplied by
		// 100: 1e-320 × 100 in binary is a subnormal that reads 9.99988867183 × 10⁻³¹⁹.
		{rate(1e-320), "1 × 10⁻³¹⁸%"},
		{rate(5e-324), "5 × 10⁻³²²%"},
		{Exact(1e-318), "1 × 10⁻³¹⁸"},
		{seconds(0.001), "0.001 s"},
		{saySecs(0.0004), "0.0004 s"},
		{saySecs(0.00123), "0.0012 s"},
		{stateSize(10 * 16), "160 B"},
		{stateSize(10_000_000 * 16), "153 MB"},
		{sayRatio(5), "5"},
		{sayRatio(1e6), "1,000,000"},
		// Large values: separators, never an exponent in the e+15 style; a power of ten beyond 10^21.
		{approx(1e15), "1,000,000,000,000,000"},
		{approx(3.65e19), "36,500,000,000,000,000,000"},
		{approx(3.65e25), "3.65 × 10²⁵"},
		{approx(1e-6), "0.000001"},
		{approx(1e-7), "1 × 10⁻⁷"},
		{Exact(1e15), "1,000,000,000,000,000"},
		{seconds(86_400), "86,400 s"},
		{bytesSI(3.65e25), "36.5 YB"},
		{duration(8.64e-11), "86.4 ps"},
		{duration(8.64e-8), "86.4 ns"},
		{duration(119.96), "2.00 min"},
		{sayProb(1e-15), "1 in 1,000,000,000,000,000"},
		{sayProb(0.02), "2%"},
		{pluralF(1.0001, "day", "days"), "1.00 days"}, {pluralF(1, "day", "days"), "1 day"},
		{pluralGiven(0.001, "day", "days"), "0.001 days"},
		{pluralGiven(1, "byte", "bytes"), "1 byte"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// noise finds more digits after a point than any writer should give.
var noise = regexp.MustCompile(`\.\d*[1-9]\d{7,}`)

// TestFormatNeverHidesAValue feeds every writer random values over 600 orders of magnitude and
// checks what any reader relies on: a nonzero value never reads as zero, no e-notation, no float
// noise, and the number written is the value (within the rounding of its last digit).
func TestFormatNeverHidesAValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 5))
	writers := []struct {
		name string
		f    func(float64) string
		// scale converts the written number back to the value: percent writes 100 times it.
		scale  float64
		digits int // significant digits the writer promises at least
	}{
		{"sig3", func(v float64) string { return sig(v, 3) }, 1, 3},
		{"fixed2", func(v float64) string { return fixed(v, 2) }, 1, 2},
		{"exact", Exact, 1, 12},
		{"percent", func(v float64) string { return strings.TrimSuffix(percent(v), "%") }, 100, 2},
		{"rate", func(v float64) string { return strings.TrimSuffix(rate(v), "%") }, 100, 12},
	}
	for range 20_000 {
		v := math.Pow(10, rng.Float64()*600-300) * (0.5 + rng.Float64())
		typed := rng.IntN(4) == 0 // a value a person types: few digits
		if typed {
			v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 1+rng.IntN(3), 64), 64)
		}
		for _, w := range writers {
			s := w.f(v)
			// A writer of given values shows what was given, up to 12 digits; anything typed shows short.
			if strings.ContainsAny(s, "eE") || (noise.MatchString(s) && (typed || w.digits < 12)) {
				t.Fatalf("%s(%g) = %q: exponent or noise", w.name, v, s)
			}
			got, half, ok := readNumber(s)
			if !ok {
				t.Fatalf("%s(%g) = %q: not a number a reader can read", w.name, v, s)
			}
			if got == 0 {
				t.Fatalf("%s(%g) = %q: a nonzero value reads as zero", w.name, v, s)
			}
			want := v * w.scale
			if math.Abs(got-want) > half+1e-9*math.Abs(want) {
				t.Fatalf("%s(%g) = %q, which reads %g, more than half its last digit from %g", w.name, v, s, got, want)
			}
			// Fewer digits are fine only when they are the whole value (9 × 10⁻¹⁵⁸, 0.01).
			if shown := shownDigits(strings.Split(s, " ")[0]); shown < min(w.digits, 2) && math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Fatalf("%s(%g) = %q shows %d significant digits", w.name, v, s, shown)
			}
		}
	}
}

// readNumber reads a number as the writers write it, separators and powers of ten included, and
// says how far the value may lie from it: half a unit of its last digit.
func readNumber(s string) (v, half float64, ok bool) {
	mant, pow, hasPow := strings.Cut(s, " × 10")
	mant = strings.ReplaceAll(mant, ",", "")
	v, err := strconv.ParseFloat(mant, 64)
	if err != nil {
		return 0, 0, false
	}
	half = 0.5
	if _, frac, ok := strings.Cut(mant, "."); ok {
		half = 0.5 * math.Pow(10, -float64(len(frac)))
	}
	if hasPow {
		e, neg := 0, false
		for _, r := range pow {
			if r == '⁻' {
				neg = true
				continue
			}
			d := slices.Index([]rune("⁰¹²³⁴⁵⁶⁷⁸⁹"), r)
			if d < 0 {
				return 0, 0, false
			}
			e = e*10 + d
		}
		if neg {
			e = -e
		}
		v *= math.Pow(10, float64(e))
		half *= math.Pow(10, float64(e))
	}
	return v, half, true
}
