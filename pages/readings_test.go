package pages

import (
	"context"
	"slices"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// The experiments are filled in by hand: a reading must follow whatever result it is given, so the
// tests feed it the document's numbers, edge cases and deliberately odd numbers, and check that each
// one surfaces in the text.
func TestReading(t *testing.T) {
	stream := experiments.DefaultStreamParams()
	docAssembly := experiments.AssemblyResult{Jobs: 20_000, Crashed: 398, SameSet: true, Rows: []experiments.AssemblyRow{
		{Design: "at-most-once", Lost: 398, ExactlyOnce: 19_602},
		{Design: "at-least-once", ExactlyOnce: 19_602, Duplicated: 398},
		{Design: "dedup, non-transactional", ExactlyOnce: 19_602, Duplicated: 398},
		{Design: "dedup, transactional", ExactlyOnce: 20_000, Correct: true},
	}}
	partial := docAssembly
	partial.Rows = append([]experiments.AssemblyRow(nil), docAssembly.Rows...)
	partial.Rows[2].Duplicated = 100
	partial.SameSet = false
	noCrash := experiments.AssemblyResult{Jobs: 5_000, Crashed: 0, SameSet: true, Rows: []experiments.AssemblyRow{
		{Design: "at-most-once", ExactlyOnce: 5_000, Correct: true},
		{Design: "at-least-once", ExactlyOnce: 5_000, Correct: true},
		{Design: "dedup, non-transactional", ExactlyOnce: 5_000, Correct: true},
		{Design: "dedup, transactional", ExactlyOnce: 5_000, Correct: true},
	}}

	window := experiments.DefaultWindowParams()
	docWindow := experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 2000, Points: []experiments.WindowPoint{
		{Window: 5000, Escaped: 0, EscapeRate: 0, StateKB: 78},
		{Window: 100, Escaped: 380, EscapeRate: 0.019, StateKB: 1},
		{Window: 500, Escaped: 300, EscapeRate: 0.015, StateKB: 7},
		{Window: 1000, Escaped: 195, EscapeRate: 0.00975, StateKB: 15},
		{Window: 1500, Escaped: 104, EscapeRate: 0.0052, StateKB: 23},
		{Window: 2000, Escaped: 0, EscapeRate: 0, StateKB: 31},
	}}
	tooSmall := experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 20_000, Points: []experiments.WindowPoint{
		{Window: 500, Escaped: 383, EscapeRate: 0.01915},
		{Window: 10_000, Escaped: 110, EscapeRate: 0.0055},
	}}
	coarse := experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 2000, Points: []experiments.WindowPoint{
		{Window: 1000, Escaped: 195, EscapeRate: 0.00975},
		{Window: 5000, Escaped: 0, StateKB: 78},
	}}
	lucky := experiments.WindowResult{Jobs: 3000, Crashed: 3, MaxDelay: 2000, Points: []experiments.WindowPoint{
		{Window: 1200, Escaped: 0, StateKB: 18},
	}}
	// A stream shorter than the delay: the window that holds every id is the bound.
	shortStream := experiments.WindowResult{Jobs: 300, Crashed: 3, MaxDelay: 2000, Points: []experiments.WindowPoint{
		{Window: 1200, Escaped: 0, StateKB: 18},
	}}
	longDelay := experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 100_000, Points: []experiments.WindowPoint{
		{Window: 10, Escaped: 398, EscapeRate: 0.0199}, {Window: 20, Escaped: 398, EscapeRate: 0.0199}, {Window: 20_000, StateKB: 312},
	}}
	onlyAbove := experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 2000, Points: []experiments.WindowPoint{{Window: 5000, StateKB: 78}}}

	lease := experiments.DefaultLeaseParams()
	docLease := experiments.LeaseResult{Jobs: 20_000, SlowestS: 287.3, Points: []experiments.LeasePoint{
		{TimeoutS: 60, NoRenewal: 233, RenewDouble: 20_000},
		{TimeoutS: 5, NoRenewal: 2448, RenewDouble: 20_000},
		{TimeoutS: 15, NoRenewal: 715, RenewDouble: 20_000},
		{TimeoutS: 30, NoRenewal: 499, RenewDouble: 20_000},
		{TimeoutS: 300, NoRenewal: 0, RenewDouble: 20_000},
	}}
	lossy := lease
	lossy.HeartbeatLoss = 0.3
	lossyResult := experiments.LeaseResult{Jobs: 20_000, SlowestS: 287.3, Points: []experiments.LeasePoint{
		{TimeoutS: 5, NoRenewal: 2448, RenewThird: 611, RenewDouble: 20_000},
		{TimeoutS: 300, NoRenewal: 0, RenewThird: 7, RenewDouble: 20_000},
	}}
	shortLease := experiments.LeaseResult{Jobs: 1_000, SlowestS: 95.5, Points: []experiments.LeasePoint{
		{TimeoutS: 5, NoRenewal: 140, RenewDouble: 1_000},
	}}
	oneTimeout := experiments.LeaseResult{Jobs: 20_000, SlowestS: 289.2, Points: []experiments.LeasePoint{{TimeoutS: 1000, RenewDouble: 20_000}}}
	oneJob := experiments.LeaseResult{Jobs: 1, SlowestS: 4.8, Points: []experiments.LeasePoint{
		{TimeoutS: 5, RenewDouble: 1}, {TimeoutS: 300, RenewDouble: 1},
	}}
	idle := experiments.LeaseResult{Jobs: 1_000, SlowestS: 3.2, Points: []experiments.LeasePoint{
		{TimeoutS: 10, RenewDouble: 1_000}, {TimeoutS: 20, RenewDouble: 1_000},
	}}

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

	tests := []struct {
		name       string
		experiment string
		params     any
		result     any
		want       []string
		not        []string
		empty      bool
	}{
		{name: "unknown experiment", experiment: "nope", params: stream, result: docAssembly, empty: true},
		{name: "mismatched result", experiment: "assembly", params: stream, result: docWindow, empty: true},
		{name: "mismatched params", experiment: "window", params: stream, result: docWindow, empty: true},
		{name: "pointer instead of value", experiment: "assembly", params: &stream, result: &docAssembly, empty: true},

		{name: "assembly at the document's values", experiment: "assembly", params: stream, result: docAssembly,
			want: []string{"20,000 jobs", "398", "1.99%", "2.00%", "19,602", "exactly the ones the first design lost",
				"caught 0 of the 398", "Only one row is correct", "dedup, transactional"}},
		{name: "assembly where the loose key catches some", experiment: "assembly", params: stream, result: partial,
			want: []string{"let 100 duplicates through", "caught 298 of the 398", "not the same set"}},
		{name: "assembly with no crashes", experiment: "assembly", params: experiments.StreamParams{Jobs: 5_000}, result: noCrash,
			want: []string{"5,000 jobs", "0.00%", "cannot tell them apart", "Set crash_rate above zero"}, not: []string{"Only one row"}},
		{name: "assembly of one job that did not crash", experiment: "assembly", params: experiments.StreamParams{Jobs: 1, CrashRate: 0.02},
			result: experiments.AssemblyResult{Jobs: 1, SameSet: true, Rows: noCrash.Rows},
			want:   []string{"The one job did not crash", "1 job is too few", "0.02 crashes"}, not: []string{"Set crash_rate above zero", "1 jobs"}},
		{name: "assembly of one job that crashed", experiment: "assembly", params: experiments.StreamParams{Jobs: 1, CrashRate: 1},
			result: experiments.AssemblyResult{Jobs: 1, Crashed: 1, SameSet: true, Rows: []experiments.AssemblyRow{
				{Design: "at-most-once", Lost: 1}, {Design: "at-least-once", Duplicated: 1},
				{Design: "dedup, non-transactional", Duplicated: 1}, {Design: "dedup, transactional", ExactlyOnce: 1, Correct: true},
			}},
			want: []string{"The one job had its worker die", "ran 1 job twice", "let 1 duplicate through", "the single redelivery"},
			not:  []string{"1 jobs", "1 duplicates", "1 redeliveries"}},

		{name: "crash sweep at the document's rates", experiment: "crash-sweep", params: experiments.DefaultCrashSweepParams(),
			result: experiments.CrashSweepResult{Jobs: 20_000, Points: []experiments.CrashSweepPoint{
				{CrashRate: 0.001, Lost: 23, AckAfterDuplicated: 23},
				{CrashRate: 0.01, Lost: 204, AckAfterDuplicated: 204},
				{CrashRate: 0.05, Lost: 1001, AckAfterDuplicated: 1001},
				{CrashRate: 0.2, Lost: 4003, AckAfterDuplicated: 4003},
			}},
			want: []string{"0.10% crashes, 23 lost (0.11%)", "4,003 lost (20.02%)", "Summed over the 4 runs, 5,231 losses", "0 errors",
				"counted once per run", "200x", "174x", "(23 to 4,003 jobs)", "follows the crash rate", "duplicate exactly as many"}},
		{name: "crash sweep on a stream too short to follow the rate", experiment: "crash-sweep", params: experiments.CrashSweepParams{Jobs: 10, CrashRates: []float64{0.01, 0.05}},
			result: experiments.CrashSweepResult{Jobs: 10, Points: []experiments.CrashSweepPoint{
				{CrashRate: 0.01, Lost: 1, AckAfterDuplicated: 1}, {CrashRate: 0.05, Lost: 1, AckAfterDuplicated: 1},
			}},
			want: []string{"on 10 jobs", "rates of 1.00% and 5.00% predict only 0.1 and 0.5 jobs lost", "too coarse"}, not: []string{"follows", "grows"}},
		{name: "crash sweep of one job at one rate", experiment: "crash-sweep", params: experiments.CrashSweepParams{Jobs: 1, CrashRates: []float64{0.2}},
			result: experiments.CrashSweepResult{Jobs: 1, Points: []experiments.CrashSweepPoint{{CrashRate: 0.2, Lost: 1, AckAfterDuplicated: 1}}},
			want:   []string{"on 1 job:", "It raised 0 errors"}, not: []string{"1 jobs", "Summed"}},
		{name: "crash sweep at zero only", experiment: "crash-sweep", params: experiments.CrashSweepParams{Jobs: 100, CrashRates: []float64{0}},
			result: experiments.CrashSweepResult{Jobs: 100, Points: []experiments.CrashSweepPoint{{CrashRate: 0}}},
			want:   []string{"0.00% crashes, 0 lost", "Every rate tried was zero"}, not: []string{"grows", "above zero produced"}},

		{name: "keys at the document's values", experiment: "keys", params: stream,
			result: experiments.KeysResult{Jobs: 20_000, Crashed: 398, Rows: []experiments.KeyRow{
				{Key: "job id", Duplicated: 0}, {Key: "job id + attempt", Duplicated: 398}, {Key: "uuid per attempt", Duplicated: 398},
			}},
			want: []string{"398 of 20,000", "Keyed on job id, 0 duplicates", "100.00% of the redeliveries", "Only job id stopped every redelivery", "Job id + attempt and uuid per attempt stopped none"}},
		{name: "keys without crashes", experiment: "keys", params: stream,
			result: experiments.KeysResult{Jobs: 1_000, Rows: []experiments.KeyRow{{Key: "job id"}, {Key: "uuid per attempt"}}},
			want:   []string{"None of the 1,000 jobs crashed", "cannot tell a working key"}},

		{name: "window at the document's values", experiment: "window", params: window, result: docWindow,
			want: []string{"398 of 20,000", "due up to 2,000 jobs later, or at the end of the stream if that came sooner", "100 ids, let 380", "1.90%", "2,000 ids (about 31 KB",
				"exactly 2,000, the maximum redelivery delay", "zero is guaranteed", "half the maximum delay (1,000 ids)", "195 duplicates", "0.97%"},
			not: []string{"between 1 and"}},
		{name: "window: none large enough", experiment: "window", params: window, result: tooSmall,
			want: []string{"No window tried reaches zero", "10,000 ids, still let 110", "0.55%", "only sure to stop the leak at 20,000"}, not: []string{"with zero escapes"}},
		{name: "window: zero only above the max delay", experiment: "window", params: window, result: coarse,
			want: []string{"5,000 ids", "guaranteed from 2,000, the maximum redelivery delay", "1,000, still leaked 195", "do not pin it down"}},
		{name: "window: one lucky point below the max delay", experiment: "window", params: window, result: lucky,
			want: []string{"1,200 ids", "below 2,000, the maximum redelivery delay", "luck, not a guarantee", "3 redeliveries"}, not: []string{"half the maximum"}},
		{name: "window: a stream shorter than the delay", experiment: "window", params: window, result: shortStream,
			want: []string{"shorter than that delay", "300 ids, which holds every id", "at least 300, the length of the stream", "does not locate the threshold"},
			not:  []string{"luck", "half the maximum"}},
		{name: "window: a delay far past the stream", experiment: "window", params: window, result: longDelay,
			want: []string{"due up to 100,000 jobs later", "exactly 20,000, the length of the stream", "guaranteed"},
			not:  []string{"luck", "between 1 and", "100,000 before"}},
		{name: "window: only a window above the delay", experiment: "window", params: window, result: onlyAbove,
			want: []string{"does not locate the threshold", "Add windows below 2,000"}},
		{name: "window: one job, crashed", experiment: "window", params: window,
			result: experiments.WindowResult{Jobs: 1, Crashed: 1, MaxDelay: 2000, Points: []experiments.WindowPoint{{Window: 100, StateKB: 1}}},
			want:   []string{"The one job crashed. Its redelivery was due", "1 id, which holds every id", "no window can leak"}, not: []string{"1 jobs", "1 redeliveries", "luck", "below 1"}},
		{name: "window: nothing crashed", experiment: "window", params: window,
			result: experiments.WindowResult{Jobs: 20_000, MaxDelay: 2000, Points: []experiments.WindowPoint{{Window: 100}, {Window: 2000}}},
			want:   []string{"None of the 20,000 jobs crashed", "says nothing about sizing"}},

		{name: "window grid at the document's values", experiment: "window-grid", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 20_000, Windows: []int64{500, 2000, 10_000}, MaxDelays: []int64{200, 1000, 5000, 20_000},
				Cells: []experiments.GridCell{
					gc(200, 500, 0), gc(200, 2000, 0), gc(200, 10_000, 0),
					gc(1000, 500, 198), gc(1000, 2000, 0), gc(1000, 10_000, 0),
					gc(5000, 500, 357), gc(5000, 2000, 231), gc(5000, 10_000, 0),
					gc(20_000, 500, 383), gc(20_000, 2000, 333), gc(20_000, 10_000, 110),
				}},
			want: []string{"delays up to 200 reach zero at window 500", "delays up to 5,000 reach zero at window 10,000",
				"delays up to 20,000 never reach zero (the largest window, 10,000, still leaks 110)", "6 cells are at or above that bound, and all of them are zero",
				"6 cells below the bound leaked"},
			not: []string{"luck", "cannot happen", "capped"}},
		{name: "window grid with delays past the stream", experiment: "window-grid", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 20_000, Windows: []int64{50, 20_000, 30_000}, MaxDelays: []int64{50_000, 100},
				Cells: []experiments.GridCell{
					gc(50_000, 50, 398), gc(50_000, 20_000, 0), gc(50_000, 30_000, 0),
					gc(100, 50, 300), gc(100, 20_000, 0), gc(100, 30_000, 0),
				}},
			want: []string{"delays up to 50,000 (capped by the stream's 20,000 jobs) reach zero at window 20,000", "the stream's length when that is shorter",
				"4 cells are at or above that bound", "2 cells below the bound leaked"},
			not: []string{"luck"}},
		{name: "window grid with an anomaly and a lucky zero", experiment: "window-grid", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 500, Windows: []int64{100, 1000}, MaxDelays: []int64{500},
				Cells: []experiments.GridCell{gc(500, 100, 0), gc(500, 1000, 4)}},
			want: []string{"1 cell is at or above that bound, yet 1 leaked", "In 1 cell below the bound", "window 1,000 at delay 500 (4 escaped)", "cannot happen"}},
		{name: "window grid all zero", experiment: "window-grid", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 800, Windows: []int64{100}, MaxDelays: []int64{200}, Cells: []experiments.GridCell{gc(200, 100, 0)}},
			want:   []string{"Every cell of the grid is zero", "800 jobs", "1 cell below", "luck"}},
		{name: "window grid all zero by guarantee", experiment: "window-grid", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 800, Windows: []int64{1000}, MaxDelays: []int64{200, 5000}, Cells: []experiments.GridCell{gc(200, 1000, 0), gc(5000, 1000, 0)}},
			want:   []string{"Every cell of the grid is zero, as it must be"}, not: []string{"luck"}},

		{name: "orderings at the document's values", experiment: "orderings", params: stream,
			result: experiments.OrderingsResult{Jobs: 20_000, Crashed: 398, Rows: []experiments.OrderingRow{
				{Order: "key-then-effect", Lost: 398}, {Order: "effect-then-key", Duplicated: 398}, {Order: "one transaction"},
			}},
			want: []string{"398 of 20,000", "key first lost 398 jobs and duplicated 0", "effect first lost 0 and duplicated 398", "In one transaction: 0 lost, 0 duplicated"}},
		{name: "orderings without crashes", experiment: "orderings", params: stream,
			result: experiments.OrderingsResult{Jobs: 20_000, Rows: []experiments.OrderingRow{{Order: "key-then-effect"}}},
			want:   []string{"None of the 20,000 jobs crashed", "never opened"}},

		{name: "lease at the document's values", experiment: "lease", params: lease, result: docLease,
			want: []string{"slowest took 287.3 s", "5 s visibility timeout ran 2,448 jobs twice (12.24%)", "first reaches zero at 300 s",
				"0 jobs ran twice at every timeout from 5 s to 300 s", "all 20,000 jobs ran twice", "completion on a heartbeat tick",
				"at least one renewal interval", "once every two timeouts"},
			not: []string{"before its first heartbeat", "every twice"}},
		{name: "lease at one long timeout", experiment: "lease", params: lease, result: oneTimeout,
			want: []string{"the only timeout tried, 1,000 s, ran no job twice", "at the only timeout tried, 1,000 s", "completion on a heartbeat tick"},
			not:  []string{"1000 s", "from 1,000 s to 1,000 s", "shortest"}},
		{name: "lease of one job", experiment: "lease", params: lease, result: oneJob,
			want: []string{"The one job took 4.8 s", "the one job ran twice"}, not: []string{"1 jobs", "slowest"}},
		{name: "lease under heartbeat loss", experiment: "lease", params: lossy, result: lossyResult,
			want: []string{"30.00% of heartbeats lost", "ran 611 jobs twice at 5 s and 7 at 300 s", "against 2,448 and 0", "should stop", "completion on a heartbeat tick"}},
		{name: "lease with one point that never reaches zero", experiment: "lease", params: lease, result: shortLease,
			want: []string{"ran 140 jobs twice (14.00%)", "outlast the slowest job, 95.5 s"}, not: []string{"first reaches zero", "no timeout tried"}},
		{name: "lease where nothing outlives the timeout", experiment: "lease", params: lease, result: idle,
			want: []string{"even the shortest timeout tried, 10 s, ran no job twice"}},

		{name: "claims all pass at the defaults", experiment: "claims", params: claims, result: allPass,
			want: []string{"All 9 claims hold", "document's own inputs"}},
		{name: "claims with a failure after a change", experiment: "claims", params: changedClaims, result: oneFail,
			want: []string{"8 of 9 claims hold; 1 does not", "B4 failed", "0 escaped at window=1000, max delay=2000", "Nothing crashed on this run, so nothing was redelivered",
				"differ from the document's in the crash rate", "B6 reads none of it", "passes of B1, B2, B3, B5 and the second B4 claim are empty"},
			not: []string{"B1 failed", "survived"}},
		{name: "claims that pass trivially at a delay of 1", experiment: "claims", params: tinyDelay, result: allPassTiny,
			want: []string{"All 9 claims hold", "the maximum delay. That reaches B4", "window of 0 ids, which is no dedup at all", "trivial too"},
			not:  []string{"survived", "every claim reads"}},
		{name: "claims on ten jobs", experiment: "claims", params: fewJobs, result: fewFail,
			want: []string{"7 of 9 claims hold; 2 do not", "B6 failed", "No job on this draw ran longer than 60 s", "Nothing crashed on this run, so nothing was redelivered", "which every claim reads"}},
		{name: "claims with every job crashing", experiment: "claims", params: allCrash, result: allPass,
			want: []string{"All 9 claims hold", "That reaches B1", "B6 reads none of it"}, not: []string{"survived", "empty"}},
		{name: "claims with a failure at the defaults", experiment: "claims", params: claims, result: oneFail,
			want: []string{"the code changed"}},

		{name: "scale at the concept page's values", experiment: "scale", params: experiments.DefaultScaleParams(),
			result: experiments.ScaleResult{DuplicatesPerDay: 1000, SecondsBetweenDuplicates: 86.4, DedupKeys: 7e9, DedupStoreBytes: 448e9, RetryPeakMultiplier: 5},
			want:   []string{"1,000,000,000 messages", "1 in 1,000,000", "about 1,000 duplicates a day", "one every 86.4 s", "7,000,000,000 keys", "448 GB", "5x", "retry budget"}},
		{name: "scale at certain crashes", experiment: "scale", params: experiments.ScaleParams{MessagesPerDay: 1e9, CrashWindowP: 1, ReplayDays: 7, BytesPerKey: 64, RetryMultiplier: 5},
			result: experiments.ScaleResult{DuplicatesPerDay: 1e9, SecondsBetweenDuplicates: 8.64e-5, DedupKeys: 7e9, DedupStoreBytes: 448e9, RetryPeakMultiplier: 5},
			want:   []string{"one every 86.4 µs"}, not: []string{"e-05"}},
		{name: "scale at a thousand a day", experiment: "scale", params: experiments.ScaleParams{MessagesPerDay: 1000, CrashWindowP: 1e-6, ReplayDays: 1, BytesPerKey: 1, RetryMultiplier: 1},
			result: experiments.ScaleResult{DuplicatesPerDay: 0.001, SecondsBetweenDuplicates: 8.64e7, DedupKeys: 1000, DedupStoreBytes: 1000},
			want:   []string{"1,000 messages", "one every 1,000 days", "for 1 day", "1,000 keys", "at 1 byte a key", "1 KB"}, not: []string{"kB", "1 days", "1 bytes"}},
		{name: "scale with no replay window", experiment: "scale", params: experiments.ScaleParams{MessagesPerDay: 1e9, CrashWindowP: 1e-6, BytesPerKey: 64, RetryMultiplier: 5},
			result: experiments.ScaleResult{DuplicatesPerDay: 1000, SecondsBetweenDuplicates: 86.4, RetryPeakMultiplier: 5},
			want:   []string{"0 days keeps no dedup keys at all", "That is no dedup"}, not: []string{"0 B", "0 keys"}},
		{name: "scale with a zero crash window", experiment: "scale", params: experiments.ScaleParams{MessagesPerDay: 1e6, ReplayDays: 1, BytesPerKey: 64, RetryMultiplier: 1},
			result: experiments.ScaleResult{DedupKeys: 1e6, DedupStoreBytes: 64e6, RetryPeakMultiplier: 1},
			want:   []string{"none, because the chance is zero", "64 MB"}, not: []string{"corrupted", "retry policy"}},
		{name: "scale with fewer than one a day", experiment: "scale", params: experiments.ScaleParams{MessagesPerDay: 1e5, CrashWindowP: 1e-6, ReplayDays: 7, BytesPerKey: 64, RetryMultiplier: 5},
			result: experiments.ScaleResult{DuplicatesPerDay: 0.1, SecondsBetweenDuplicates: 864_000, DedupKeys: 7e5, DedupStoreBytes: 44.8e6, RetryPeakMultiplier: 5},
			want:   []string{"about 0.1 duplicates a day", "one every 10 days"}},

		{name: "outbox", experiment: "outbox", params: experiments.DefaultOutboxParams(),
			result: experiments.OutboxResult{Events: 20_000, Rows: []experiments.OutboxRow{
				{Design: "dual-write-db-first", Lost: 392}, {Design: "dual-write-db-first", ConsumerDedup: true, Lost: 392},
				{Design: "dual-write-publish-first", Phantom: 401}, {Design: "dual-write-publish-first", ConsumerDedup: true, Phantom: 401},
				{Design: "outbox", DuplicateApplications: 377},
				{Design: "outbox", ConsumerDedup: true},
			}},
			want: []string{"20,000 business changes", "2.00%", "The dual write that commits first: 392 events lost, no phantom event, no event applied twice", "401 phantom events",
				"377 duplicate applications at a consumer without a dedup key and 0 at one with a key",
				"Only one combination", "the outbox with a consumer that dedups", "Each of the outbox's 377 duplicates", "applied none of them"}},
		{name: "outbox of one clean event", experiment: "outbox", params: experiments.OutboxParams{Events: 1, CrashRate: 0.5, Seed: 13},
			result: experiments.OutboxResult{Events: 1, Rows: []experiments.OutboxRow{
				{Design: "dual-write-db-first"}, {Design: "dual-write-db-first", ConsumerDedup: true},
				{Design: "outbox"}, {Design: "outbox", ConsumerDedup: true},
			}},
			want: []string{"1 business change,", "Every combination came through clean"}, not: []string{"republish", "relay", "1 business changes"}},
		{name: "outbox without a republish", experiment: "outbox", params: experiments.DefaultOutboxParams(),
			result: experiments.OutboxResult{Events: 50, Rows: []experiments.OutboxRow{
				{Design: "dual-write-db-first", Lost: 1}, {Design: "dual-write-db-first", ConsumerDedup: true, Lost: 1},
				{Design: "outbox"}, {Design: "outbox", ConsumerDedup: true},
			}},
			want: []string{"1 event lost", "Clean on every count: the outbox with either consumer", "never had to publish a row twice"}, not: []string{"Each of the outbox"}},
		{name: "outbox without crashes", experiment: "outbox", params: experiments.OutboxParams{Events: 10, Seed: 13},
			result: experiments.OutboxResult{Events: 10, Rows: []experiments.OutboxRow{{Design: "outbox"}}},
			want:   []string{"differ only inside the crash window"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Reading(tc.experiment, tc.params, tc.result)
			if tc.empty {
				if got != nil {
					t.Fatalf("Reading = %q, want nil", got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatal("Reading gave no paragraphs")
			}
			text := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("reading lacks %q:\n%s", w, text)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(text, n) {
					t.Errorf("reading should not say %q:\n%s", n, text)
				}
			}
			for _, p := range got {
				if strings.ContainsAny(p, "<>*`") || strings.TrimSpace(p) == "" {
					t.Errorf("paragraph is not plain text: %q", p)
				}
			}
		})
	}
}

func TestReadingFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{count(0), "0"},
		{count(999), "999"},
		{count(1000), "1,000"},
		{count(-1234567), "-1,234,567"},
		{percent(0.0199), "1.99%"},
		{sayShare(1, 0), "0.00%"},
		{bytesSI(448e9), "448 GB"},
		{sayProb(1e-6), "1 in 1,000,000"},
		{sayProb(0.02), "2.00%"},
		{saySpan(86.4), "86.4 s"},
		{saySpan(3600), "60 minutes"},
		{sayList([]string{"a", "b", "c"}), "a, b and c"},
		{saySpan(8.64e-5), "86.4 µs"},
		{saySpan(0.5), "500 ms"},
		{saySpan(60), "60 s"},
		{saySpan(86_400), "24 hours"},
		{saySpan(86_400 * 2), "2 days"},
		{saySecs(1000), "1,000 s"},
		{saySecs(287.34), "287.3 s"},
		{saySecs(12_345.6), "12,345.6 s"},
		{saySecs(5), "5 s"},
		{plural(0, "job", "jobs"), "0 jobs"},
		{plural(1, "job", "jobs"), "1 job"},
		{plural(2, "job", "jobs"), "2 jobs"},
		{plural(20_000, "job", "jobs"), "20,000 jobs"},
		{plural(1, "job is", "jobs are"), "1 job is"},
		{pluralF(1, "day", "days"), "1 day"},
		{pluralF(0.5, "day", "days"), "0.5 days"},
		{pluralF(7e9, "key", "keys"), "7,000,000,000 keys"},
		{verb(1, "was", "were"), "was"},
		{verb(0, "was", "were"), "were"},
		{sayThe(1, "redelivery", "redeliveries"), "the single redelivery"},
		{sayThe(398, "redelivery", "redeliveries"), "the 398 redeliveries"},
		{sayCrashed(1, 1, "crashed", "crashed"), "The one job crashed"},
		{sayCrashed(2, 2, "crashed", "crashed"), "Both jobs crashed"},
		{sayCrashed(1, 20_000, "had its worker die", "had their worker die"), "1 of 20,000 jobs had its worker die"},
		{sayNoneCrashed(1), "The one job did not crash"},
		{sayNoneCrashed(2), "Neither job crashed"},
		{sayNoneCrashed(300), "None of the 300 jobs crashed"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// nineClaims is the verifier's own report at the document's defaults, with the claims at the given
// indexes failing and the given details replaced: the real claim texts, so that a reading keyed on
// them is tested against what the verifier says.
func nineClaims(fail map[int]bool, detail map[int]string) experiments.ClaimsResult {
	real, err := experiments.Claims(context.Background(), experiments.DefaultClaimsParams())
	if err != nil {
		panic(err)
	}
	r := experiments.ClaimsResult{Claims: slices.Clone(real.Claims)}
	for i := range r.Claims {
		r.Claims[i].Holds = !fail[i]
		if d, ok := detail[i]; ok {
			r.Claims[i].Detail = d
		}
		r.Total++
		if r.Claims[i].Holds {
			r.Passed++
		}
	}
	return r
}

// gc is a grid cell: escaped duplicates e at max delay d and window w.
func gc(d, w, e int64) experiments.GridCell {
	return experiments.GridCell{MaxDelay: d, Window: w, Escaped: e}
}
