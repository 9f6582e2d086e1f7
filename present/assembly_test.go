package present

import (
	"testing"

	"effectivelyonce/experiments"
)

func TestReadAssembly(t *testing.T) {
	stream := experiments.DefaultStreamParams()
	docAssembly := experiments.AssemblyResult{Jobs: 20_000, Crashed: 398, SameSet: true, Rows: []experiments.AssemblyRow{
		{Design: experiments.DesignAtMostOnce, Lost: 398, ExactlyOnce: 19_602},
		{Design: experiments.DesignAtLeastOnce, ExactlyOnce: 19_602, Duplicated: 398},
		{Design: experiments.DesignDedupNonTransactional, ExactlyOnce: 19_602, Duplicated: 398},
		{Design: experiments.DesignDedupTransactional, ExactlyOnce: 20_000, Correct: true, Deliveries: 20_398, Effects: 20_000},
	}}
	partial := docAssembly
	partial.Rows = append([]experiments.AssemblyRow(nil), docAssembly.Rows...)
	partial.Rows[2].Duplicated = 100
	partial.SameSet = false
	noCrash := experiments.AssemblyResult{Jobs: 5_000, Crashed: 0, SameSet: true, Rows: []experiments.AssemblyRow{
		{Design: experiments.DesignAtMostOnce, ExactlyOnce: 5_000, Correct: true},
		{Design: experiments.DesignAtLeastOnce, ExactlyOnce: 5_000, Correct: true},
		{Design: experiments.DesignDedupNonTransactional, ExactlyOnce: 5_000, Correct: true},
		{Design: experiments.DesignDedupTransactional, ExactlyOnce: 5_000, Correct: true},
	}}
	docWindow := experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 2000, Points: []experiments.WindowPoint{
		{Window: 5000, Escaped: 0, EscapeRate: 0, StateKB: 78},
		{Window: 100, Escaped: 380, EscapeRate: 0.019, StateKB: 1},
		{Window: 500, Escaped: 300, EscapeRate: 0.015, StateKB: 7},
		{Window: 1000, Escaped: 195, EscapeRate: 0.00975, StateKB: 15},
		{Window: 1500, Escaped: 104, EscapeRate: 0.0052, StateKB: 23},
		{Window: 2000, Escaped: 0, EscapeRate: 0, StateKB: 31},
	}}

	checkReadings(t, "assembly", []readingCase{
		{name: "assembly cut to one row, as block 1 shows it", params: stream,
			result: experiments.AssemblyResult{Jobs: 20_000, Crashed: 398, SameSet: true, Rows: docAssembly.Rows[:1]},
			want:   []string{"So at-most-once is not correct on this run: it lost jobs."}, not: []string{"every row", "No design", "doubled"}},
		{name: "assembly cut to two rows, as block 2 shows it", params: stream,
			result: experiments.AssemblyResult{Jobs: 20_000, Crashed: 398, SameSet: true, Rows: docAssembly.Rows[:2]},
			want:   []string{"No design was correct on this run: at-most-once lost jobs and at-least-once doubled jobs."}, not: []string{"lost or doubled"}},
		{name: "mismatched result", params: stream, result: docWindow, empty: true},
		{name: "pointer instead of value", params: &stream, result: &docAssembly, empty: true},
		{name: "assembly at the document's values", params: stream, result: docAssembly,
			want: []string{"20,000 jobs", "398", "1.99%", "crash rate of 2%", "19,602", "exactly the ones the first design lost",
				"caught 0 of the 398", "Only one row is correct", "dedup-transactional",
				"still received 20,398 deliveries for 20,000 jobs, because 398 jobs came a second time", "so 20,000 effects landed"}},
		{name: "assembly where the loose key catches some", params: stream, result: partial,
			want: []string{"let 100 duplicates through", "caught 298 of the 398", "not the same set"}},
		{name: "assembly with no crashes", params: experiments.StreamParams{Jobs: 5_000}, result: noCrash,
			want: []string{"5,000 jobs", "crash rate of 0%", "cannot tell them apart", "Set crash_rate above zero"}, not: []string{"Only one row"}},
		{name: "assembly of one job that did not crash", params: experiments.StreamParams{Jobs: 1, CrashRate: 0.02},
			result: experiments.AssemblyResult{Jobs: 1, SameSet: true, Rows: noCrash.Rows},
			want:   []string{"The one job did not crash", "1 job is too few", "0.02 crashes"}, not: []string{"Set crash_rate above zero", "1 jobs"}},
		{name: "assembly of one job that crashed", params: experiments.StreamParams{Jobs: 1, CrashRate: 1},
			result: experiments.AssemblyResult{Jobs: 1, Crashed: 1, SameSet: true, Rows: []experiments.AssemblyRow{
				{Design: experiments.DesignAtMostOnce, Lost: 1}, {Design: experiments.DesignAtLeastOnce, Duplicated: 1},
				{Design: experiments.DesignDedupNonTransactional, Duplicated: 1}, {Design: experiments.DesignDedupTransactional, ExactlyOnce: 1, Correct: true},
			}},
			want: []string{"The one job had its worker die", "ran 1 job twice", "let 1 duplicate through", "the single redelivery"},
			not:  []string{"1 jobs", "1 duplicates", "1 redeliveries"}},
	})
}
