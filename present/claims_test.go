package present

import (
	"context"
	"slices"
	"testing"

	"effectivelyonce/experiments"
)

func TestReadClaims(t *testing.T) {
	// Every result but the last is the real verifier's, run on the case's parameters: the reading is
	// keyed on the claims' kinds and numbers, so it is tested against what the verifier reports.
	claims := experiments.DefaultClaimsParams()
	verify := func(edit func(*experiments.ClaimsParams)) (experiments.ClaimsParams, experiments.ClaimsResult) {
		p := claims
		edit(&p)
		r, err := experiments.Claims(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return p, r
	}
	defaults, allPass := verify(func(*experiments.ClaimsParams) {})
	noCrash, noCrashResult := verify(func(p *experiments.ClaimsParams) { p.CrashRate = 0 })
	tinyDelay, tinyDelayResult := verify(func(p *experiments.ClaimsParams) { p.MaxDelay = 1 })
	fewJobs, fewJobsResult := verify(func(p *experiments.ClaimsParams) { p.Jobs = 10 })
	allCrash, allCrashResult := verify(func(p *experiments.ClaimsParams) { p.CrashRate = 1 })
	oneDelay, oneDelayResult := verify(func(p *experiments.ClaimsParams) { p.Jobs, p.CrashRate, p.MaxDelay = 4, 0, 1 })
	// A failure at the document's own inputs cannot be produced by any parameter: flip one verdict.
	broken := allPass
	broken.Claims = slices.Clone(allPass.Claims)
	broken.Claims[0].Holds = false
	broken.Passed--

	checkReadings(t, "claims", []readingCase{
		{name: "claims all pass at the defaults", params: defaults, result: allPass,
			want: []string{"All 9 claims hold", "document's own inputs"}},
		{name: "claims with a failure after a change", params: noCrash, result: noCrashResult,
			want: []string{"8 of 9 claims hold; 1 does not", "B4 failed", "Nothing crashed on this run, so nothing was redelivered",
				"differ from the document's in the crash rate", "B6 reads none of it", "passes of B1, B2, B3, B5 and the second B4 claim are empty"},
			not: []string{"B1 failed", "survived"}},
		{name: "claims that pass trivially at a delay of 1", params: tinyDelay, result: tinyDelayResult,
			want: []string{"All 9 claims hold", "the maximum delay. That reaches B4", "window of 0 ids, which is no dedup at all", "trivial too"},
			not:  []string{"survived", "every claim reads"}},
		{name: "claims on ten jobs", params: fewJobs, result: fewJobsResult,
			want: []string{"B6 failed", "No job on this draw ran longer than 60 s", "which every claim reads"}},
		{name: "claims with every job crashing", params: allCrash, result: allCrashResult,
			want: []string{"That reaches B1", "B6 reads none of it"}, not: []string{"survived", "empty"}},
		// Found by the property test: the verifier's own line said "delays up to 1 jobs".
		{name: "claims failing at a delay of one job", params: oneDelay, result: oneDelayResult,
			want: []string{"B4 failed", "0 escaped a window of 0 ids, with delays of up to 1 job."}, not: []string{"1 jobs"}},
		{name: "claims with a failure at the defaults", params: defaults, result: broken,
			want: []string{"B1 failed", "the code changed"}},
	})
}

// TestClaimsTableGroupsDigits: the verifier's table on a page writes its measurements as every page
// writes numbers, with thousands separators, where the verifier's own line (Detail, which the
// document's verifier and the command line print) leaves them bare.
func TestClaimsTableGroupsDigits(t *testing.T) {
	p := experiments.DefaultClaimsParams()
	p.CrashRate = 1 // every job crashes: 20,000 lost
	r, err := experiments.Claims(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	measured := map[string]bool{}
	for _, row := range claimsTables(p, r)[0].Rows {
		measured[row[3]] = true
	}
	for _, want := range []string{
		"20,000 lost and 0 duplicated, against 20,000 crashes",
		"2,448 of 20,000 jobs outlived a 5 s timeout",
		"0 escaped a window of 2,000 ids, with delays of up to 2,000 jobs",
	} {
		if !measured[want] {
			t.Errorf("no row measures %q; rows: %v", want, measured)
		}
	}
}
