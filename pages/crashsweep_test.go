package pages

import (
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
			want: []string{"0.10% crashes, 23 lost (0.11%)", "4,003 lost (20.02%)", "Summed over the 4 runs, 5,231 losses", "0 errors",
				"counted once per run", "200x", "174x", "(23 to 4,003 jobs)", "follows the crash rate", "duplicate exactly as many"}},
		{name: "crash sweep on a stream too short to follow the rate", params: experiments.CrashSweepParams{Jobs: 10, CrashRates: []float64{0.01, 0.05}},
			result: experiments.CrashSweepResult{Jobs: 10, Points: []experiments.CrashSweepPoint{
				{CrashRate: 0.01, Lost: 1, AckAfterDuplicated: 1}, {CrashRate: 0.05, Lost: 1, AckAfterDuplicated: 1},
			}},
			want: []string{"on 10 jobs", "rates of 1.00% and 5.00% predict only 0.1 and 0.5 jobs lost", "too coarse"}, not: []string{"follows", "grows"}},
		{name: "crash sweep of one job at one rate", params: experiments.CrashSweepParams{Jobs: 1, CrashRates: []float64{0.2}},
			result: experiments.CrashSweepResult{Jobs: 1, Points: []experiments.CrashSweepPoint{{CrashRate: 0.2, Lost: 1, AckAfterDuplicated: 1}}},
			want:   []string{"on 1 job:", "It raised 0 errors"}, not: []string{"1 jobs", "Summed"}},
		{name: "crash sweep at zero only", params: experiments.CrashSweepParams{Jobs: 100, CrashRates: []float64{0}},
			result: experiments.CrashSweepResult{Jobs: 100, Points: []experiments.CrashSweepPoint{{CrashRate: 0}}},
			want:   []string{"0.00% crashes, 0 lost", "Every rate tried was zero"}, not: []string{"grows", "above zero produced"}},
	})
}
