package experiments

import (
	"context"
	"math"
	"reflect"
	"testing"
)

// The golden tests pin every number the hands-on document and the concept page publish, at the
// documents' parameters. A failure here means a page would print a number the documents do not.

func TestGoldenAssembly(t *testing.T) {
	res, err := Assembly(context.Background(), DefaultStreamParams())
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 20_000 || res.Crashed != 398 {
		t.Errorf("jobs, crashed = %d, %d; document: 20,000, 398", res.Jobs, res.Crashed)
	}
	want := []AssemblyRow{
		{DesignAtMostOnce, 398, 19602, 0, false},
		{DesignAtLeastOnce, 0, 19602, 398, false},
		{DesignDedupNonTransactional, 0, 19602, 398, false},
		{DesignDedupTransactional, 0, 20000, 0, true},
	}
	if len(res.Rows) != len(want) {
		t.Fatalf("got %d rows, want %d", len(res.Rows), len(want))
	}
	for i, w := range want {
		t.Run(string(w.Design), func(t *testing.T) {
			if res.Rows[i] != w {
				t.Errorf("got %+v, document %+v", res.Rows[i], w)
			}
		})
	}
	if !res.SameSet {
		t.Error("SameSet = false; document: the same set of job ids? True")
	}
}

func TestGoldenKeys(t *testing.T) {
	res, err := Keys(context.Background(), DefaultStreamParams())
	if err != nil {
		t.Fatal(err)
	}
	want := []KeyRow{{KeyJobID, 0}, {KeyJobIDAttempt, 398}, {KeyUUIDPerAttempt, 398}}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("got %+v, document %+v", res.Rows, want)
	}
}

func TestGoldenOrderings(t *testing.T) {
	res, err := Orderings(context.Background(), DefaultStreamParams())
	if err != nil {
		t.Fatal(err)
	}
	want := []OrderingRow{{OrderKeyThenEffect, 398, 0}, {OrderEffectThenKey, 0, 398}, {OrderOneTransaction, 0, 0}}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("got %+v, document %+v", res.Rows, want)
	}
}

func TestGoldenCrashSweep(t *testing.T) {
	res, err := CrashSweep(context.Background(), DefaultCrashSweepParams())
	if err != nil {
		t.Fatal(err)
	}
	lost := map[float64]int64{0.001: 23, 0.01: 204, 0.05: 1001, 0.2: 4003}
	if len(res.Points) != len(lost) {
		t.Fatalf("got %d points, want %d", len(res.Points), len(lost))
	}
	for _, pt := range res.Points {
		t.Run(FormatFloat(pt.CrashRate), func(t *testing.T) {
			want := CrashSweepPoint{CrashRate: pt.CrashRate, Lost: lost[pt.CrashRate], AckAfterDuplicated: lost[pt.CrashRate]}
			if pt != want {
				t.Errorf("got %+v, document %+v", pt, want)
			}
		})
	}
}

func TestGoldenWindow(t *testing.T) {
	res, err := Window(context.Background(), DefaultWindowParams())
	if err != nil {
		t.Fatal(err)
	}
	want := []WindowPoint{
		{100, 380, 0.019, 1}, {500, 300, 0.015, 7}, {1000, 195, 0.00975, 15},
		{1500, 104, 0.0052, 23}, {2000, 0, 0, 31}, {5000, 0, 0, 78},
	}
	if res.Crashed != 398 || res.MaxDelay != 2000 {
		t.Errorf("crashed, max delay = %d, %d; want 398, 2000", res.Crashed, res.MaxDelay)
	}
	if len(res.Points) != len(want) {
		t.Fatalf("got %d points, want %d", len(res.Points), len(want))
	}
	for i, w := range want {
		t.Run(FormatFloat(float64(w.Window)), func(t *testing.T) {
			if res.Points[i] != w {
				t.Errorf("got %+v, document %+v", res.Points[i], w)
			}
		})
	}
}

func TestGoldenWindowGrid(t *testing.T) {
	res, err := WindowGrid(context.Background(), DefaultWindowGridParams())
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64][3]int64{200: {0, 0, 0}, 1000: {198, 0, 0}, 5000: {357, 231, 0}, 20000: {383, 333, 110}}
	if len(res.Cells) != 12 {
		t.Fatalf("got %d cells, want 12", len(res.Cells))
	}
	for i, c := range res.Cells {
		if c.MaxDelay != res.MaxDelays[i/3] || c.Window != res.Windows[i%3] {
			t.Fatalf("cell %d is (%d, %d): not row-major over max delays, then windows", i, c.MaxDelay, c.Window)
		}
		if w := want[c.MaxDelay][i%3]; c.Escaped != w {
			t.Errorf("max delay %d, window %d: %d escaped, document %d", c.MaxDelay, c.Window, c.Escaped, w)
		}
	}
}

func TestGoldenLease(t *testing.T) {
	res, err := Lease(context.Background(), DefaultLeaseParams())
	if err != nil {
		t.Fatal(err)
	}
	want := []LeasePoint{
		{5, 2448, 0, 20000}, {15, 715, 0, 20000}, {30, 499, 0, 20000}, {60, 233, 0, 20000}, {300, 0, 0, 20000},
	}
	if !reflect.DeepEqual(res.Points, want) {
		t.Errorf("got %+v, document %+v", res.Points, want)
	}
	// The slowest of the 20,000 durations, as CPython draws it; pins expovariate to the last bit.
	if res.SlowestS != 289.2298969933371 {
		t.Errorf("slowest = %v, CPython 289.2298969933371", res.SlowestS)
	}
}

func TestGoldenClaims(t *testing.T) {
	res, err := Claims(context.Background(), DefaultClaimsParams())
	if err != nil {
		t.Fatal(err)
	}
	// The document's --verify output, character for character.
	want := []Claim{
		{"B1", "ack-before-work loses exactly the crashed jobs, silently", true, "398 lost (1.99%), 0 duplicated"},
		{"B2", "ack-after-work loses nothing and duplicates the same jobs", true, "0 lost, 398 duplicated -- the identical crash window"},
		{"B3", "a dedup key at the sink makes the redelivery a no-op", true, "0 lost, 0 duplicated"},
		{"B5", "a dedup key written OUTSIDE the transaction catches none of them", true, "398 duplicated -- exactly the crash rate, so the dedup did nothing"},
		{"B4", "a window below the max redelivery delay leaks duplicates", true, "195 escaped at window=1000, max delay=2000"},
		{"B4", "...and a window at the max delay leaks exactly zero", true, "0 escaped at window=2000"},
		{"B6", "a short visibility timeout double-executes slow jobs", true, "2448 of 20,000 at a 5 s timeout"},
		{"B6", "...and only a timeout far beyond the slowest job reaches zero", true, "233 at 60 s, 0 at 300 s"},
		{"B6", "a heartbeat removes the dependency on job duration entirely", true, "renewal is bounded by the renewal interval, not the work"},
	}
	if len(res.Claims) != len(want) {
		t.Fatalf("got %d claims, want %d", len(res.Claims), len(want))
	}
	for i, w := range want {
		t.Run(w.ID+"/"+w.Text, func(t *testing.T) {
			if res.Claims[i] != w {
				t.Errorf("got  %+v\nwant %+v", res.Claims[i], w)
			}
		})
	}
	if res.Passed != 9 || res.Total != 9 {
		t.Errorf("%d/%d claims verified; document: 9/9", res.Passed, res.Total)
	}
}

func TestGoldenScale(t *testing.T) {
	res, err := Scale(context.Background(), DefaultScaleParams())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"duplicates a day", res.DuplicatesPerDay, 1000},
		{"seconds between duplicates", res.SecondsBetweenDuplicates, 86.4},
		{"dedup keys", res.DedupKeys, 7e9},
		{"dedup store bytes", res.DedupStoreBytes, 448e9},
		{"retry peak", res.RetryPeakMultiplier, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %v, concept page %v", c.got, c.want)
			}
		})
	}
	// The page rounds 448 GB to "~450 GB".
	if gb := math.Round(res.DedupStoreBytes/1e9/10) * 10; gb != 450 {
		t.Errorf("store is ~%v GB, concept page ~450 GB", gb)
	}
	none, err := Scale(context.Background(), ScaleParams{MessagesPerDay: 1e9, CrashWindowP: 0, ReplayDays: 7, BytesPerKey: 64, RetryMultiplier: 5})
	if err != nil {
		t.Fatal(err)
	}
	if none.DuplicatesPerDay != 0 || none.SecondsBetweenDuplicates != 0 {
		t.Errorf("with p = 0: %v duplicates every %v s; want 0 and 0 (never), not Inf", none.DuplicatesPerDay, none.SecondsBetweenDuplicates)
	}
}

// TestGoldenOutbox pins our own experiment at its defaults: it publishes no document number, but a
// change in these counts is a change in the model, which should be deliberate.
func TestGoldenOutbox(t *testing.T) {
	res, err := Outbox(context.Background(), DefaultOutboxParams())
	if err != nil {
		t.Fatal(err)
	}
	want := []OutboxRow{
		{DualWriteDBFirst, false, 381, 0, 0},
		{DualWriteDBFirst, true, 381, 0, 0},
		{DualWritePublishFirst, false, 0, 381, 0},
		{DualWritePublishFirst, true, 0, 381, 0},
		{TransactionalOutbox, false, 0, 0, 400},
		{TransactionalOutbox, true, 0, 0, 0},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("got  %+v\nwant %+v", res.Rows, want)
	}
}

// TestCatalogDefaults runs every registered experiment at its defaults through the catalog, as the
// site does, and checks that Defaults, Parse of an empty query and the DefaultX functions agree.
func TestCatalogDefaults(t *testing.T) {
	typed := map[string]any{
		"assembly": DefaultStreamParams(), "keys": DefaultStreamParams(), "orderings": DefaultStreamParams(),
		"crash-sweep": DefaultCrashSweepParams(), "window": DefaultWindowParams(), "window-grid": DefaultWindowGridParams(),
		"lease": DefaultLeaseParams(), "claims": DefaultClaimsParams(), "scale": DefaultScaleParams(), "outbox": DefaultOutboxParams(),
	}
	all := All()
	if len(all) != len(typed) {
		t.Fatalf("catalog has %d experiments, test knows %d", len(all), len(typed))
	}
	for _, e := range all {
		t.Run(e.Name, func(t *testing.T) {
			want, ok := typed[e.Name]
			if !ok {
				t.Fatalf("unknown experiment %q", e.Name)
			}
			if !reflect.DeepEqual(e.Defaults(), want) {
				t.Errorf("Defaults() = %+v, want %+v", e.Defaults(), want)
			}
			p, err := e.Parse(map[string][]string{})
			if err != nil {
				t.Fatalf("Parse(empty): %v", err)
			}
			if !reflect.DeepEqual(p, want) {
				t.Errorf("Parse(empty) = %+v, want %+v", p, want)
			}
			if c := e.Cost(p); c <= 0 || c > MaxCost {
				t.Errorf("cost at defaults = %d, want within 1..%d", c, MaxCost)
			}
			res, err := e.Run(context.Background(), p)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res == nil {
				t.Fatal("Run returned a nil result")
			}
		})
	}
}
