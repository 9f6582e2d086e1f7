package present

import (
	"math"
	"strings"
)

// pickNoun chooses the singular when a list has one item, and, when singular is given, only when
// that one item is written as it: "rates of 1% and 5%", "predicts 2 jobs", "predicts 1 job".
func pickNoun(items []string, one, many string, singular ...string) string {
	if len(items) == 1 && (len(singular) == 0 || items[0] == singular[0]) {
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

// saySecs writes a measured duration in seconds to one decimal, as the documents print job times
// (287.3 s), and with more decimals where one would hide it: a job of 0.0004 s never took 0.0 s.
func saySecs(s float64) string { return fixed(s, 1) + " s" }

// sayRatio writes a growth factor to at most one decimal.
func sayRatio(f float64) string { return trimZeros(fixed(f, 1)) }

// sayProb writes a probability the reader gave: a small one as "1 in N", a larger one as a
// percentage as given.
func sayProb(f float64) string {
	switch {
	case f > 0 && math.IsInf(1/f, 1): // below 10⁻³⁰⁸, where "1 in N" has no N
		return sig(f*100, 3) + "%"
	case f > 0 && f < 0.001:
		return "1 in " + approx(1/f)
	}
	return rate(f)
}

// saySpan writes seconds in the table's unit: the short unit below two minutes, words above.
func saySpan(s float64) string {
	if math.IsInf(s, 0) || math.IsNaN(s) || s <= 0 {
		return "never"
	}
	v, u := spanIn(s)
	if u.seconds < 60 {
		return sig(v, 3) + " " + u.short
	}
	return pluralF(v, u.one, u.many)
}

// Plural writes a count with its noun in the right number: "1 job", "0 jobs", "1,000 jobs". The
// nouns may carry a verb ("job is", "jobs are").
func Plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// pluralF is Plural for an estimate, written as approx writes it; the noun agrees with the number
// as written: "1 day", but "1.00 days" for 1.0001, whose digits say it is not exactly one.
func pluralF(f float64, one, many string) string {
	if s := approx(f); s != "1" {
		return s + " " + many
	}
	return "1 " + one
}

// pluralGiven is Plural for a value the reader gave, written as given (exact).
func pluralGiven(f float64, one, many string) string {
	if s := Exact(f); s != "1" {
		return s + " " + many
	}
	return "1 " + one
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

// SayList joins items as prose: "a", "a and b", "a, b and c".
func SayList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// SayCap starts a sentence with a capital, for names (and messages) that begin one.
func SayCap(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
