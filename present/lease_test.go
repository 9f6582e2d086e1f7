package present

import (
	"testing"

	"effectivelyonce/experiments"
)

func TestReadLease(t *testing.T) {
	lease := experiments.DefaultLeaseParams()
	docLease := experiments.LeaseResult{Jobs: 20_000, SlowestS: 287.3, Points: []experiments.LeasePoint{
		{TimeoutS: 60, NoRenewal: 233, RenewDouble: 20_000, RenewDoubleReal: 233},
		{TimeoutS: 5, NoRenewal: 2448, RenewDouble: 20_000, RenewDoubleReal: 2448},
		{TimeoutS: 15, NoRenewal: 715, RenewDouble: 20_000, RenewDoubleReal: 715},
		{TimeoutS: 30, NoRenewal: 499, RenewDouble: 20_000, RenewDoubleReal: 499},
		{TimeoutS: 300, NoRenewal: 0, RenewDouble: 20_000, RenewDoubleReal: 0},
	}}
	lossy := lease
	lossy.HeartbeatLoss = 0.3
	lossyResult := experiments.LeaseResult{Jobs: 20_000, SlowestS: 287.3, Points: []experiments.LeasePoint{
		{TimeoutS: 5, NoRenewal: 2448, RenewThird: 611, RenewDouble: 20_000, RenewDoubleReal: 2448},
		{TimeoutS: 300, NoRenewal: 0, RenewThird: 7, RenewDouble: 20_000, RenewDoubleReal: 0},
	}}
	shortLease := experiments.LeaseResult{Jobs: 1_000, SlowestS: 95.5, Points: []experiments.LeasePoint{
		{TimeoutS: 5, NoRenewal: 140, RenewDouble: 1_000, RenewDoubleReal: 140},
	}}
	oneTimeout := experiments.LeaseResult{Jobs: 20_000, SlowestS: 289.2, Points: []experiments.LeasePoint{{TimeoutS: 1000, RenewDouble: 20_000, RenewDoubleReal: 0}}}
	oneJob := experiments.LeaseResult{Jobs: 1, SlowestS: 4.8, Points: []experiments.LeasePoint{
		{TimeoutS: 5, RenewDouble: 1, RenewDoubleReal: 0}, {TimeoutS: 300, RenewDouble: 1, RenewDoubleReal: 0},
	}}
	idle := experiments.LeaseResult{Jobs: 1_000, SlowestS: 3.2, Points: []experiments.LeasePoint{
		{TimeoutS: 10, RenewDouble: 1_000, RenewDoubleReal: 0}, {TimeoutS: 20, RenewDouble: 1_000, RenewDoubleReal: 0},
	}}

	checkReadings(t, "lease", []readingCase{
		{name: "lease at the document's values", params: lease, result: docLease,
			want: []string{"slowest took 287.3 s", "5 s visibility timeout ran 2,448 jobs twice (12.24%)", "first reaches zero at 300 s",
				"0 jobs ran twice at every timeout from 5 s to 300 s", "document's simplification", "no renewal at all", "matches the column without renewal: 2,448 jobs at 5 s", "all 20,000 jobs run twice", "completion on a heartbeat tick",
				"at least one renewal interval", "once every two timeouts"},
			not: []string{"before its first heartbeat", "every twice"}},
		{name: "lease at one long timeout", params: lease, result: oneTimeout,
			want: []string{"the only timeout tried, 1,000 s, ran no job twice", "at the only timeout tried, 1,000 s", "completion on a heartbeat tick"},
			not:  []string{"1000 s", "from 1,000 s to 1,000 s", "shortest"}},
		{name: "lease of one job", params: lease, result: oneJob,
			want: []string{"The one job took 4.8 s", "the one job run twice"}, not: []string{"1 jobs", "slowest"}},
		{name: "lease under heartbeat loss", params: lossy, result: lossyResult,
			want: []string{"30% of heartbeats lost", "ran 611 jobs twice at 5 s and 7 at 300 s", "against 2,448 and 0", "should stop", "completion on a heartbeat tick"}},
		{name: "lease with one point that never reaches zero", params: lease, result: shortLease,
			want: []string{"ran 140 jobs twice (14.00%)", "outlast the slowest job, 95.5 s"}, not: []string{"first reaches zero", "no timeout tried"}},
		// Issue 8: a 0.001 s timeout read "a 0.0 s visibility timeout", a 0.0004 s job "took 0.0 s".
		{name: "lease at a timeout of a millisecond", params: lease,
			result: experiments.LeaseResult{Jobs: 20_000, SlowestS: 289.2, Points: []experiments.LeasePoint{
				{TimeoutS: 0.001, NoRenewal: 19_989, RenewDouble: 20_000, RenewDoubleReal: 19_989}, {TimeoutS: 5, NoRenewal: 2448, RenewDouble: 20_000, RenewDoubleReal: 2448}, {TimeoutS: 300, RenewDouble: 20_000, RenewDoubleReal: 0}}},
			want: []string{"a 0.001 s visibility timeout ran 19,989 jobs twice", "from 0.001 s to 300 s"}, not: []string{"0.0 s"}},
		{name: "lease of very short jobs", params: lease,
			result: experiments.LeaseResult{Jobs: 20_000, SlowestS: 0.0004, Points: []experiments.LeasePoint{{TimeoutS: 5, RenewDouble: 20_000, RenewDoubleReal: 0}}},
			want:   []string{"the slowest took 0.0004 s"}, not: []string{"0.0 s"}},
		{name: "lease where nothing outlives the timeout", params: lease, result: idle,
			want: []string{"even the shortest timeout tried, 10 s, ran no job twice"}},
	})
}
