package present

import (
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

func TestReadCrashSweep(t *testing.T) {
	checkReadings(t, "crash-sweep", []readingCase{
		{name: "crash sweep at the document's rates", params: experiments.DefaultCrashSweepParams(),
			result: experiments.CrashSweepResult{Jobs: 20_000, Points: []experiments.CrashSweepPoint{
				{CrashRate: 0.001, Lost: 23, AckAfterDuplicated: 23},
				{CrashRate: 0.01, Lost: 204, AckAfterDuplicated: 204},
				{CrashRate: 0.05, Lost: 1001, AckAfterDuplicated: 1001},
				{CrashRate: 0.2, Lost: 4003, AckAfterDuplicated: 4003},
			}},
			want: []string{"0.1% crashes, 23 lost (0.11%)", "4,003 lost (20.02%)", "None of the 4 runs raised an error or ran a job twice",
				"200x", "174x", "(23 to 4,003 jobs)", "follows the crash rate", "duplicate exactly as many",
				// Issue 8, item 6: which rule, and why its counts are not the random stream's.
				"not drawn at random: job i crashes when (i × 7,919) mod 100,000 is below the rate × 100,000", "seeded stream",
				// Issue 8, item 5: the runs' losses overlap, so they are never summed.
				"the 4,003 jobs lost at 20% include every job lost at a lower rate"},
			not: []string{"Summed", "5,231", "0.10%"}},
		{name: "crash sweep on a stream too short to follow the rate", params: experiments.CrashSweepParams{Jobs: 10, CrashRates: []float64{0.01, 0.05}},
			result: experiments.CrashSweepResult{Jobs: 10, Points: []experiments.CrashSweepPoint{
				{CrashRate: 0.01, Lost: 1, AckAfterDuplicated: 1}, {CrashRate: 0.05, Lost: 1, AckAfterDuplicated: 1},
			}},
			want: []string{"on 10 jobs", "rates of 1% and 5% predict that only 0.1 and 0.5 of them are lost", "too coarse", "the single job lost at 5% includes"}, not: []string{"follows", "grows"}},
		{name: "crash sweep of one job at one rate", params: experiments.CrashSweepParams{Jobs: 1, CrashRates: []float64{0.2}},
			result: experiments.CrashSweepResult{Jobs: 1, Points: []experiments.CrashSweepPoint{{CrashRate: 0.2, Lost: 1, AckAfterDuplicated: 1}}},
			want:   []string{"on 1 job:", "It raised 0 errors"}, not: []string{"1 jobs", "Summed"}},
		{name: "crash sweep at zero only", params: experiments.CrashSweepParams{Jobs: 100, CrashRates: []float64{0}},
			result: experiments.CrashSweepResult{Jobs: 100, Points: []experiments.CrashSweepPoint{{CrashRate: 0}}},
			want:   []string{"at 0% crashes, 0 lost (0.00%)", "Every rate tried was zero"}, not: []string{"grows", "above zero produced"}},
		// Issue 8: tiny rates read 0.00% and their labels 0.00009999999999999999%.
		{name: "crash sweep at tiny rates", params: experiments.CrashSweepParams{Jobs: 20_000, CrashRates: []float64{0.000001, 0.000005}},
			result: experiments.CrashSweepResult{Jobs: 20_000, Points: []experiments.CrashSweepPoint{
				{CrashRate: 0.000001, Lost: 1, AckAfterDuplicated: 1}, {CrashRate: 0.000005, Lost: 1, AckAfterDuplicated: 1},
			}},
			want: []string{"at 0.0001% crashes, 1 lost (0.005%)", "at 0.0005% crashes", "rates of 0.0001% and 0.0005% predict that only 0.02 and 0.1 of them are lost"},
			not:  []string{"0.00%", "0.0000999"}},
		{name: "crash sweep predicting two jobs at one rate", params: experiments.CrashSweepParams{Jobs: 20_000, CrashRates: []float64{0.0001}},
			result: experiments.CrashSweepResult{Jobs: 20_000, Points: []experiments.CrashSweepPoint{{CrashRate: 0.0001, Lost: 3, AckAfterDuplicated: 3}}},
			want:   []string{"a rate of 0.01% predicts that only 2 of them are lost"}, not: []string{"2 job lost"}},
		// Found by the property test: "predict only 0.000002, 0.0228 and 1 jobs lost".
		{name: "crash sweep of one job at rates up to one", params: experiments.CrashSweepParams{Jobs: 1, CrashRates: []float64{0.000002, 0.0228, 1}},
			result: experiments.CrashSweepResult{Jobs: 1, Points: []experiments.CrashSweepPoint{
				{CrashRate: 0.000002, Lost: 1, AckAfterDuplicated: 1}, {CrashRate: 0.0228, Lost: 1, AckAfterDuplicated: 1}, {CrashRate: 1, Lost: 1, AckAfterDuplicated: 1}}},
			want: []string{"predict that only 0.000002, 0.0228 and 1 of them are lost"}, not: []string{"1 jobs"}},
		{name: "crash sweep predicting one job at one rate", params: experiments.CrashSweepParams{Jobs: 100, CrashRates: []float64{0.01}},
			result: experiments.CrashSweepResult{Jobs: 100, Points: []experiments.CrashSweepPoint{{CrashRate: 0.01, Lost: 1, AckAfterDuplicated: 1}}},
			want:   []string{"a rate of 1% predicts that only 1 of them is lost"}},
	})
}

// TestCrashSweepTableNamesItsRule holds issue 8's item 6: the table under the sweep says that its
// crashes come from the document's fixed rule, not the seeded stream the other tables use, and
// its labels carry no float noise.
func TestCrashSweepTableNamesItsRule(t *testing.T) {
	ts := crashSweepTables(experiments.CrashSweepParams{}, experiments.CrashSweepResult{Jobs: 1, Points: []experiments.CrashSweepPoint{{CrashRate: 0.000001}}})
	if c := ts[0].Caption; !strings.Contains(c, "(i × 7,919) mod 100,000") || !strings.Contains(c, "rather than the random stream") || strings.Contains(c, "1 jobs") {
		t.Errorf("caption %q", c)
	}
	if got := ts[0].Rows[0][0]; got != "0.0001%" {
		t.Errorf("rate label %q, want 0.0001%%", got)
	}
}
