package pages

import (
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
	lucky := experiments.WindowResult{Jobs: 300, Crashed: 3, MaxDelay: 2000, Points: []experiments.WindowPoint{
		{Window: 1200, Escaped: 0, StateKB: 18},
	}}

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
	idle := experiments.LeaseResult{Jobs: 1_000, SlowestS: 3.2, Points: []experiments.LeasePoint{
		{TimeoutS: 10, RenewDouble: 1_000}, {TimeoutS: 20, RenewDouble: 1_000},
	}}

	claims := experiments.DefaultClaimsParams()
	changedClaims := claims
	changedClaims.CrashRate = 0
	allPass := experiments.ClaimsResult{Passed: 9, Total: 9, Claims: []experiments.Claim{{ID: "B1", Text: "loses the crashed jobs", Holds: true, Detail: "398 lost"}}}
	oneFail := experiments.ClaimsResult{Passed: 8, Total: 9, Claims: []experiments.Claim{
		{ID: "B1", Text: "loses the crashed jobs", Holds: true, Detail: "0 lost"},
		{ID: "B4", Text: "windows shorter than the worst delay leak", Holds: false, Detail: "0 escaped at window=1000, max delay=2000"},
	}}

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
			want: []string{"5,000 jobs", "0.00%", "cannot tell them apart"}, not: []string{"Only one row"}},

		{name: "crash sweep at the document's rates", experiment: "crash-sweep", params: experiments.DefaultCrashSweepParams(),
			result: experiments.CrashSweepResult{Jobs: 20_000, Points: []experiments.CrashSweepPoint{
				{CrashRate: 0.001, Lost: 23, AckAfterDuplicated: 23},
				{CrashRate: 0.01, Lost: 204, AckAfterDuplicated: 204},
				{CrashRate: 0.05, Lost: 1001, AckAfterDuplicated: 1001},
				{CrashRate: 0.2, Lost: 4003, AckAfterDuplicated: 4003},
			}},
			want: []string{"0.10% crashes, 23 lost (0.11%)", "4,003 lost (20.02%)", "5,231 jobs vanished", "0 errors",
				"200x", "174x", "duplicate exactly as many"}},
		{name: "crash sweep at zero only", experiment: "crash-sweep", params: experiments.CrashSweepParams{Jobs: 100, CrashRates: []float64{0}},
			result: experiments.CrashSweepResult{Jobs: 100, Points: []experiments.CrashSweepPoint{{CrashRate: 0}}},
			want:   []string{"0.00% crashes, 0 lost", "Nothing was lost"}, not: []string{"grows"}},

		{name: "keys at the document's values", experiment: "keys", params: stream,
			result: experiments.KeysResult{Jobs: 20_000, Crashed: 398, Rows: []experiments.KeyRow{
				{Key: "job id", Duplicated: 0}, {Key: "job id + attempt", Duplicated: 398}, {Key: "uuid per attempt", Duplicated: 398},
			}},
			want: []string{"398 of 20,000", "Keyed on job id, 0 duplicates", "100.00% of the redeliveries", "Only job id stopped every redelivery", "Job id + attempt and uuid per attempt stopped none"}},
		{name: "keys without crashes", experiment: "keys", params: stream,
			result: experiments.KeysResult{Jobs: 1_000, Rows: []experiments.KeyRow{{Key: "job id"}, {Key: "uuid per attempt"}}},
			want:   []string{"None of the 1,000 jobs crashed", "cannot tell a working key"}},

		{name: "window at the document's values", experiment: "window", params: window, result: docWindow,
			want: []string{"398 of 20,000", "between 1 and 2,000", "100 ids, let 380", "1.90%", "2,000 ids (about 31 KB",
				"exactly the maximum redelivery delay", "half the maximum delay (1,000 ids)", "195 duplicates", "0.97%"}},
		{name: "window: none large enough", experiment: "window", params: window, result: tooSmall,
			want: []string{"No window tried reaches zero", "10,000 ids, still let 110", "0.55%", "20,000 jobs late"}, not: []string{"smallest window with zero"}},
		{name: "window: zero only above the max delay", experiment: "window", params: window, result: coarse,
			want: []string{"5,000 ids", "above the maximum redelivery delay of 2,000", "1,000, still leaked 195"}},
		{name: "window: one lucky point below the max delay", experiment: "window", params: window, result: lucky,
			want: []string{"1,200 ids", "below the maximum redelivery delay", "luck, not a guarantee"}, not: []string{"half the maximum"}},
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
				"delays up to 20,000 never reach zero (the largest window, 10,000, still leaks 110)", "holds in 12 of 12 cells"},
			not: []string{"luck", "should not happen"}},
		{name: "window grid with an anomaly and a lucky zero", experiment: "window-grid", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 500, Windows: []int64{100, 1000}, MaxDelays: []int64{500},
				Cells: []experiments.GridCell{gc(500, 100, 0), gc(500, 1000, 4)}},
			want: []string{"holds in 0 of 2 cells", "In 1 more", "window 1,000 at delay 500 (4 escaped)", "should not happen"}},
		{name: "window grid all zero", experiment: "window-grid", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 800, Windows: []int64{500}, MaxDelays: []int64{200}, Cells: []experiments.GridCell{gc(200, 500, 0)}},
			want:   []string{"Every cell of the grid is zero", "800 jobs"}},

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
				"0 jobs twice at every timeout from 5 s to 300 s", "all 20,000 jobs ran twice"}},
		{name: "lease under heartbeat loss", experiment: "lease", params: lossy, result: lossyResult,
			want: []string{"30.00% of heartbeats lost", "ran 611 jobs twice at 5 s and 7 at 300 s", "against 2,448 and 0", "should stop"}},
		{name: "lease with one point that never reaches zero", experiment: "lease", params: lease, result: shortLease,
			want: []string{"ran 140 jobs twice (14.00%)", "outlast the slowest job, 95.5 s"}, not: []string{"first reaches zero", "no timeout tried"}},
		{name: "lease where nothing outlives the timeout", experiment: "lease", params: lease, result: idle,
			want: []string{"even the shortest timeout tried, 10 s, ran no job twice"}},

		{name: "claims all pass at the defaults", experiment: "claims", params: claims, result: allPass,
			want: []string{"All 9 claims hold", "document's own inputs"}},
		{name: "claims with a failure after a change", experiment: "claims", params: changedClaims, result: oneFail,
			want: []string{"8 of 9 claims hold; 1 does not", "B4 failed", "0 escaped at window=1000, max delay=2000", "does not carry over"},
			not:  []string{"B1 failed"}},
		{name: "claims with a failure at the defaults", experiment: "claims", params: claims, result: oneFail,
			want: []string{"the code changed"}},

		{name: "scale at the concept page's values", experiment: "scale", params: experiments.DefaultScaleParams(),
			result: experiments.ScaleResult{DuplicatesPerDay: 1000, SecondsBetweenDuplicates: 86.4, DedupKeys: 7e9, DedupStoreBytes: 448e9, RetryPeakMultiplier: 5},
			want:   []string{"1,000,000,000 messages", "1 in 1,000,000", "about 1,000 duplicates a day", "one every 86.4 s", "7,000,000,000 keys", "448 GB", "5x"}},
		{name: "scale with a zero crash window", experiment: "scale", params: experiments.ScaleParams{MessagesPerDay: 1e6, ReplayDays: 1, BytesPerKey: 64, RetryMultiplier: 1},
			result: experiments.ScaleResult{DedupKeys: 1e6, DedupStoreBytes: 64e6, RetryPeakMultiplier: 1},
			want:   []string{"none, because the chance is zero", "64 MB"}, not: []string{"corrupted", "retry policy"}},
		{name: "scale with fewer than one a day", experiment: "scale", params: experiments.ScaleParams{MessagesPerDay: 1e5, CrashWindowP: 1e-6, ReplayDays: 7, BytesPerKey: 64, RetryMultiplier: 5},
			result: experiments.ScaleResult{DuplicatesPerDay: 0.1, SecondsBetweenDuplicates: 864_000, DedupKeys: 7e5, DedupStoreBytes: 44.8e6, RetryPeakMultiplier: 5},
			want:   []string{"about 0.1 duplicates a day", "one every 10 days"}},

		{name: "outbox", experiment: "outbox", params: experiments.DefaultOutboxParams(),
			result: experiments.OutboxResult{Events: 20_000, Rows: []experiments.OutboxRow{
				{Design: "dual write, database first", Lost: 392},
				{Design: "dual write, publish first", Phantom: 401},
				{Design: "outbox", DuplicateApplications: 377},
				{Design: "outbox", ConsumerDedup: true},
			}},
			want: []string{"20,000 business changes", "2.00%", "Dual write, database first, consumer without a dedup key: 392 lost", "401 phantom", "377 duplicate applications at a consumer without a key and 0 at one with a key",
				"Only one combination", "outbox, consumer with a dedup key"}},
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
		{sayBytes(448e9), "448 GB"},
		{sayProb(1e-6), "1 in 1,000,000"},
		{sayProb(0.02), "2.00%"},
		{saySpan(86.4), "86.4 s"},
		{saySpan(3600), "60 minutes"},
		{sayList([]string{"a", "b", "c"}), "a, b and c"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// gc is a grid cell: escaped duplicates e at max delay d and window w.
func gc(d, w, e int64) experiments.GridCell {
	return experiments.GridCell{MaxDelay: d, Window: w, Escaped: e}
}
