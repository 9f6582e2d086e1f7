package pages

import (
	"math"
	"strconv"
	"strings"
)

// pickNoun chooses the singular when a list has one item.
func pickNoun(items []string, one, many string) string {
	if len(items) == 1 {
		return one
	}
	return many
}

// sayShare writes n as a percentage of of, two decimals; nothing of nothing is 0.00%.
func sayShare(n, of int64) string {
	if of == 0 {
		return "0.00%"
	}
	return percent(float64(n) / float64(of))
}

// saySecs writes a duration in seconds as given, or to one decimal when it was measured, with
// thousands separators (1,000 s).
func saySecs(s float64) string {
	digits := 1
	if s == math.Trunc(s) {
		digits = 0
	}
	f := strconv.FormatFloat(math.Abs(s), 'f', digits, 64)
	whole, frac, _ := strings.Cut(f, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return strconv.FormatFloat(s, 'g', 3, 64) + " s"
	}
	out := count(n)
	if frac != "" {
		out += "." + frac
	}
	if s < 0 {
		out = "-" + out
	}
	return out + " s"
}

// sayRatio writes a growth factor to at most one decimal.
func sayRatio(f float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(f, 'f', 1, 64), ".0")
}

// sayProb writes a small probability as "1 in N" and a larger one as a percentage.
func sayProb(f float64) string {
	if f > 0 && f < 0.001 {
		return "1 in " + approx(1/f)
	}
	return percent(f)
}

// saySpan writes seconds in the table's unit: the short unit below two minutes, words above.
func saySpan(s float64) string {
	if math.IsInf(s, 0) || math.IsNaN(s) || s <= 0 {
		return "never"
	}
	v, u := spanIn(s)
	if u.seconds < 60 {
		return sig3(v) + " " + u.short
	}
	return pluralF(roundSig3(v), u.one, u.many)
}

// plural writes a count with its noun in the right number: "1 job", "0 jobs", "1,000 jobs". The
// nouns may carry a verb ("job is", "jobs are").
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// pluralF is plural for an estimate, written as approx writes it.
func pluralF(f float64, one, many string) string {
	if f == 1 {
		return "1 " + one
	}
	return approx(f) + " " + many
}

// verb picks a verb's number for a count.
func verb(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sayThe is "the 398 redeliveries", or "the single redelivery".
func sayThe(n int64, one, many string) string {
	if n == 1 {
		return "the single " + one
	}
	return "the " + count(n) + " " + many
}

// sayCrashed opens a sentence on how many of the jobs crashed, with the verb in the right number:
// "398 of 20,000 jobs crashed", "All 5 jobs crashed", "The one job crashed".
func sayCrashed(crashed, jobs int64, one, many string) string {
	switch {
	case crashed == jobs && jobs == 1:
		return "The one job " + one
	case crashed == jobs && jobs == 2:
		return "Both jobs " + many
	case crashed == jobs:
		return "All " + count(jobs) + " jobs " + many
	}
	return count(crashed) + " of " + count(jobs) + " jobs " + verb(crashed, one, many)
}

// sayNoneCrashed opens a sentence on a run in which no job crashed.
func sayNoneCrashed(jobs int64) string {
	switch jobs {
	case 1:
		return "The one job did not crash"
	case 2:
		return "Neither job crashed"
	}
	return "None of the " + count(jobs) + " jobs crashed"
}

// sayList joins items as prose: "a", "a and b", "a, b and c".
func sayList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// sayCap starts a sentence with a capital, for names that begin one.
func sayCap(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
