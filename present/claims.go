package present

import (
	"fmt"
	"slices"
	"strings"

	"effectivelyonce/experiments"
)

// claimsShows presents the verifier: a table alone, since nine sentences do not chart.
var claimsShows = shows[experiments.ClaimsParams, experiments.ClaimsResult]{
	tables:       claimsTables,
	reading:      readClaims,
	point:        byName,
	rowWord:      "in the claim",
	noPageSpread: true,
	ask: &asking[experiments.ClaimsParams, experiments.ClaimsResult]{says: []string{"jobs", "crash_rate", "max_delay"},
		words: func(p experiments.ClaimsParams, r experiments.ClaimsResult, _ experiments.Count) string {
			return fmt.Sprintf("Of the %s, how many hold on %s with %s and redeliveries up to %s late?",
				Plural(int64(r.Total), "claim", "claims"), ofJobs(p.Jobs), crashing(p.CrashRate), Plural(p.MaxDelay, "job", "jobs"))
		}},
}

// claimsTables is the verifier's table. Its measured column says each claim's numbers as every page
// writes numbers (sayMeasured, 2,448 of 20,000), not the verifier's own line, which prints them
// bare as the document's verifier does and which the command line keeps.
func claimsTables(p experiments.ClaimsParams, r experiments.ClaimsResult) []Table {
	t := newTable(fmt.Sprintf("%d/%d claims verified", r.Passed, r.Total),
		col{"id", "id", false}, col{"claim", "claim", false}, col{"result", "holds", false}, col{"measured", "measured", false})
	for _, c := range r.Claims {
		t.add(textCell(c.ID), textCell(c.Text), flagCell(PassFail(c.Holds), c.Holds), textCell(sayMeasured(p, c)))
	}
	return []Table{t}
}

// claimReach says which of the verifier's claims read each of its parameters: the stream feeds
// B1 to B5, the delays only B4, the duration seed only B6, and the job count all of them.
var claimReach = []struct {
	name   string
	differ func(a, b experiments.ClaimsParams) bool
	claims []string
}{
	{"the job count", func(a, b experiments.ClaimsParams) bool { return a.Jobs != b.Jobs }, []string{"B1", "B2", "B3", "B4", "B5", "B6"}},
	{"the crash rate", func(a, b experiments.ClaimsParams) bool { return a.CrashRate != b.CrashRate }, []string{"B1", "B2", "B3", "B4", "B5"}},
	{"the stream seed", func(a, b experiments.ClaimsParams) bool { return a.Seed != b.Seed }, []string{"B1", "B2", "B3", "B4", "B5"}},
	{"the maximum delay", func(a, b experiments.ClaimsParams) bool { return a.MaxDelay != b.MaxDelay }, []string{"B4"}},
	{"the delay seed", func(a, b experiments.ClaimsParams) bool { return a.DelaySeed != b.DelaySeed }, []string{"B4"}},
	{"the duration seed", func(a, b experiments.ClaimsParams) bool { return a.LeaseSeed != b.LeaseSeed }, []string{"B6"}},
}

// sayMeasured writes what the verifier measured for a claim from the claim's own numbers, as
// every reading writes numbers (the Detail beside it in the table is the verifier's line, which
// prints them bare, as the document's verifier does).
func sayMeasured(p experiments.ClaimsParams, c experiments.Claim) string {
	against := " against " + Plural(c.Crashes, "crash", "crashes")
	switch c.Kind {
	case experiments.ClaimAckBeforeLoses, experiments.ClaimAckAfterDuplicates, experiments.ClaimDedupKeyCatches:
		return fmt.Sprintf("%s lost and %s duplicated,%s", count(c.Lost), count(c.Duplicated), against)
	case experiments.ClaimKeyOutsideTxMisses:
		return fmt.Sprintf("%s duplicated,%s", count(c.Duplicated), against)
	case experiments.ClaimSmallWindowLeaks, experiments.ClaimFullWindowLeaksNone:
		return fmt.Sprintf("%s escaped a window of %s, with delays of up to %s", count(c.Escaped), Plural(c.Window, "id", "ids"), Plural(c.MaxDelay, "job", "jobs"))
	case experiments.ClaimShortTimeoutDoubles:
		return fmt.Sprintf("%s of %s outlived a %s timeout", count(c.Doubles), Plural(p.Jobs, "job", "jobs"), seconds(c.TimeoutS))
	case experiments.ClaimLongTimeoutReachesZero:
		return fmt.Sprintf("%s outlived a 60 s timeout and %s a 300 s one", Plural(c.Doubles60, "job", "jobs"), count(c.Doubles300))
	}
	return strings.TrimSuffix(c.Detail, ".")
}

// whyFailed explains one failed claim: either why it does not carry over to these parameters, or
// that it is a law of the mechanism and its failure points at the code.
func whyFailed(p experiments.ClaimsParams, c experiments.Claim, crashes int64) string {
	law := "This one holds for any parameters, so its failure points at the code, not the inputs."
	switch c.Kind {
	case experiments.ClaimSmallWindowLeaks:
		switch {
		case crashes == 0:
			return "Nothing crashed on this run, so nothing was redelivered and no window could leak."
		case c.Window >= p.Jobs:
			return fmt.Sprintf("Its window of half the maximum delay, %s, is as long as the stream of %s, so it holds every id and cannot leak.",
				Plural(c.Window, "id", "ids"), Plural(p.Jobs, "job", "jobs"))
		}
		return fmt.Sprintf("No redelivery came back more than %s after its original, so a window of %s caught them all. The claim needs enough redeliveries for one to draw a long delay, which few crashes may not.",
			Plural(c.Window, "job", "jobs"), Plural(c.Window, "id", "ids"))
	case experiments.ClaimShortTimeoutDoubles:
		return "It asks that more than one job in twenty outlast a 5 s timeout. The document's mix of durations gives that over many jobs; this draw did not."
	case experiments.ClaimLongTimeoutReachesZero:
		if c.Doubles60 == 0 {
			return "No job on this draw ran longer than 60 s, so even that timeout reached zero and the run cannot show that zero needs a timeout far past the usual job. A short stream rarely draws the slow tail."
		}
		if c.Doubles300 > 0 {
			return "At least one job on this draw outlasted even 300 s, so the longest timeout checked was not beyond the slowest job."
		}
		return "It needs some jobs to outlast 60 s and none to outlast 300 s, and this draw of durations did not give both."
	case experiments.ClaimFullWindowLeaksNone, experiments.ClaimAckBeforeLoses, experiments.ClaimAckAfterDuplicates,
		experiments.ClaimDedupKeyCatches, experiments.ClaimKeyOutsideTxMisses, experiments.ClaimHeartbeatDecouples:
		return law
	}
	return "After a change of parameters, a failure can mean the claim does not carry over to them rather than that the code is wrong."
}

func readClaims(p experiments.ClaimsParams, r experiments.ClaimsResult) []string {
	if r.Total == 0 {
		return []string{"The verifier checked nothing on this run."}
	}
	def := experiments.DefaultClaimsParams()
	defaults := p == def
	crashes := r.Crashes

	var out []string
	if r.Passed == r.Total {
		out = append(out, fmt.Sprintf("All %d claims hold on these parameters.", r.Total))
	} else {
		failed := "1 does not"
		if r.Total-r.Passed != 1 {
			failed = fmt.Sprintf("%d do not", r.Total-r.Passed)
		}
		out = append(out, fmt.Sprintf("%d of %d claims hold; %s.", r.Passed, r.Total, failed))
		for _, c := range r.Claims {
			if !c.Holds {
				out = append(out, fmt.Sprintf("%s failed (%s): %s. %s", c.ID, c.Text, sayMeasured(p, c), whyFailed(p, c, crashes)))
			}
		}
	}

	if defaults {
		if r.Passed == r.Total {
			out = append(out, "These are the document's own inputs, so this is its result derived again by separate code, not copied.")
		} else {
			out = append(out, "At the document's inputs every claim should hold, so a failure here means the code changed, not the world.")
		}
		return out
	}

	// Which claims did the change reach?
	var changed []string
	reached := map[string]bool{}
	for _, f := range claimReach {
		if f.differ(p, def) {
			changed = append(changed, f.name)
			for _, id := range f.claims {
				reached[id] = true
			}
		}
	}
	var ids, untouched []string
	for _, c := range r.Claims {
		if slices.Contains(ids, c.ID) || slices.Contains(untouched, c.ID) {
			continue
		}
		if reached[c.ID] {
			ids = append(ids, c.ID)
		} else {
			untouched = append(untouched, c.ID)
		}
	}
	slices.Sort(ids)
	slices.Sort(untouched)
	s := fmt.Sprintf("These inputs differ from the document's in %s", SayList(changed))
	if len(untouched) == 0 {
		s += ", which every claim reads."
	} else {
		s += fmt.Sprintf(". That reaches %s; %s %s none of it, so %s the document's own result again.",
			SayList(ids), SayList(untouched), pickNoun(untouched, "reads", "read"), pickNoun(untouched, "it is", "they are"))
	}
	out = append(out, s)

	// Passes that say nothing: a claim about crashes on a run without any, and a "small" window of 0.
	var trivial []string
	if crashes == 0 {
		var which []string
		for _, c := range r.Claims {
			switch {
			case !c.Holds:
			case c.Kind == experiments.ClaimFullWindowLeaksNone:
				which = append(which, "the second B4 claim")
			case c.Kind == experiments.ClaimAckBeforeLoses, c.Kind == experiments.ClaimAckAfterDuplicates,
				c.Kind == experiments.ClaimDedupKeyCatches, c.Kind == experiments.ClaimKeyOutsideTxMisses:
				which = append(which, c.ID)
			}
		}
		if len(which) > 0 {
			trivial = append(trivial, fmt.Sprintf("Nothing crashed on this run, so the passes of %s are empty: there was nothing to lose, repeat or catch.", SayList(which)))
		}
	}
	for _, c := range r.Claims {
		if c.Kind == experiments.ClaimSmallWindowLeaks && c.Holds && c.Window == 0 {
			trivial = append(trivial, "The first B4 claim checked a window of 0 ids, which is no dedup at all, so its leak says nothing about sizing a window. With a maximum delay of 1 every redelivery also comes straight back, and any window of one id or more catches it, so the second B4 claim is trivial too.")
		}
	}
	out = append(out, trivial...)
	return out
}
