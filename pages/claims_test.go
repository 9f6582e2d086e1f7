package pages

import (
	"testing"

	"effectivelyonce/experiments"
)

func TestReadClaims(t *testing.T) {
	claims := experiments.DefaultClaimsParams()
	changedClaims := claims
	changedClaims.CrashRate = 0
	allPass := nineClaims(nil, map[int]string{})
	oneFail := nineClaims(map[int]bool{4: true}, map[int]string{0: "0 lost (0.00%), 0 duplicated", 1: "0 lost, 0 duplicated -- the identical crash window",
		4: "0 escaped at window=1000, max delay=2000"})
	tinyDelay := claims
	tinyDelay.MaxDelay = 1
	allPassTiny := nineClaims(nil, map[int]string{4: "398 escaped at window=0, max delay=1", 5: "0 escaped at window=1"})
	fewJobs := claims
	fewJobs.Jobs = 10
	fewFail := nineClaims(map[int]bool{4: true, 7: true}, map[int]string{0: "0 lost (0.00%), 0 duplicated",
		4: "0 escaped at window=1000, max delay=2000", 6: "1 of 10 at a 5 s timeout", 7: "0 at 60 s, 0 at 300 s"})
	allCrash := claims
	allCrash.CrashRate = 1

	checkReadings(t, "claims", []readingCase{
		{name: "claims all pass at the defaults", params: claims, result: allPass,
			want: []string{"All 9 claims hold", "document's own inputs"}},
		{name: "claims with a failure after a change", params: changedClaims, result: oneFail,
			want: []string{"8 of 9 claims hold; 1 does not", "B4 failed", "0 escaped at window=1000, max delay=2000", "Nothing crashed on this run, so nothing was redelivered",
				"differ from the document's in the crash rate", "B6 reads none of it", "passes of B1, B2, B3, B5 and the second B4 claim are empty"},
			not: []string{"B1 failed", "survived"}},
		{name: "claims that pass trivially at a delay of 1", params: tinyDelay, result: allPassTiny,
			want: []string{"All 9 claims hold", "the maximum delay. That reaches B4", "window of 0 ids, which is no dedup at all", "trivial too"},
			not:  []string{"survived", "every claim reads"}},
		{name: "claims on ten jobs", params: fewJobs, result: fewFail,
			want: []string{"7 of 9 claims hold; 2 do not", "B6 failed", "No job on this draw ran longer than 60 s", "Nothing crashed on this run, so nothing was redelivered", "which every claim reads"}},
		{name: "claims with every job crashing", params: allCrash, result: allPass,
			want: []string{"All 9 claims hold", "That reaches B1", "B6 reads none of it"}, not: []string{"survived", "empty"}},
		{name: "claims with a failure at the defaults", params: claims, result: oneFail,
			want: []string{"the code changed"}},
	})
}
