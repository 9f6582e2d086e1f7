package present

import (
	"context"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

func TestReadWindow(t *testing.T) {
	stream := experiments.DefaultStreamParams()
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
	shortStream := experiments.WindowResult{Jobs: 300, Crashed: 3, MaxDelay: 2000, Points: []experiments.WindowPoint{
		{Window: 1200, Escaped: 0, StateKB: 18},
	}}
	longDelay := experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 100_000, Points: []experiments.WindowPoint{
		{Window: 10, Escaped: 398, EscapeRate: 0.0199}, {Window: 20, Escaped: 398, EscapeRate: 0.0199}, {Window: 20_000, StateKB: 312},
	}}
	onlyAbove := experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 2000, Points: []experiments.WindowPoint{{Window: 5000, StateKB: 78}}}

	checkReadings(t, "window", []readingCase{
		{name: "mismatched params", params: stream, result: docWindow, empty: true},
		{name: "window at the document's values", params: window, result: docWindow,
			want: []string{"398 of 20,000", "due up to 2,000 jobs later, or at the end of the stream if that came sooner", "100 ids, let 380", "1.90%", "2,000 ids (about 31 KB",
				"exactly 2,000, the maximum redelivery delay", "zero is guaranteed", "half the maximum delay (1,000 ids)", "195 duplicates", "0.97%"},
			not: []string{"between 1 and"}},
		{name: "window: none large enough", params: window, result: tooSmall,
			want: []string{"No window tried reaches zero", "10,000 ids, still let 110", "0.55%", "only sure to stop the leak at 20,000"}, not: []string{"with zero escapes"}},
		{name: "window: zero only above the max delay", params: window, result: coarse,
			want: []string{"5,000 ids", "guaranteed from 2,000, the maximum redelivery delay", "1,000, still leaked 195", "do not pin it down"}},
		{name: "window: one lucky point below the max delay", params: window, result: lucky,
			want: []string{"1,200 ids", "below 2,000, the maximum redelivery delay", "luck, not a guarantee", "3 redeliveries"}, not: []string{"half the maximum"}},
		{name: "window: a stream shorter than the delay", params: window, result: shortStream,
			want: []string{"shorter than that delay", "300 ids, which holds every id", "at least 300, the length of the stream", "does not locate the threshold"},
			not:  []string{"luck", "half the maximum"}},
		{name: "window: a delay far past the stream", params: window, result: longDelay,
			want: []string{"due up to 100,000 jobs later", "exactly 20,000, the length of the stream", "guaranteed"},
			not:  []string{"luck", "between 1 and", "100,000 before"}},
		{name: "window: only a window above the delay", params: window, result: onlyAbove,
			want: []string{"does not locate the threshold", "Add windows below 2,000"}},
		{name: "window: one job, crashed", params: window,
			result: experiments.WindowResult{Jobs: 1, Crashed: 1, MaxDelay: 2000, Points: []experiments.WindowPoint{{Window: 100, StateKB: 1}}},
			want:   []string{"The one job crashed. Its redelivery was due", "1 id, which holds every id", "no window can leak"}, not: []string{"1 jobs", "1 redeliveries", "luck", "below 1"}},
		// Issue 8: a maximum delay of 1 read "on a stream of one job" for a stream of 20,000.
		{name: "window: a maximum delay of one job", params: window,
			result: experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 1, Points: []experiments.WindowPoint{{Window: 100, StateKB: 1}, {Window: 500, StateKB: 7}}},
			want:   []string{"due up to 1 job later", "maximum delay of 1 job", "no window can leak"}, not: []string{"stream of one job", "1 jobs"}},
		// Issue 8: windows under 64 ids read "under 1 KB"; the state is written from bytes.
		{name: "window: a window smaller than a kilobyte", params: window,
			result: experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 10, Points: []experiments.WindowPoint{{Window: 10}}},
			want:   []string{"10 ids (160 B of ids)"}, not: []string{"0 KB", "under 1 KB"}},
		{name: "window: nothing crashed", params: window,
			result: experiments.WindowResult{Jobs: 20_000, MaxDelay: 2000, Points: []experiments.WindowPoint{{Window: 100}, {Window: 2000}}},
			want:   []string{"None of the 20,000 jobs crashed", "says nothing about sizing"}},
	})
}

func TestReadWindowGrid(t *testing.T) {
	checkReadings(t, "window-grid", []readingCase{
		{name: "window grid at the document's values", params: experiments.DefaultWindowGridParams(),
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
		{name: "window grid with delays past the stream", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 20_000, Windows: []int64{50, 20_000, 30_000}, MaxDelays: []int64{50_000, 100},
				Cells: []experiments.GridCell{
					gc(50_000, 50, 398), gc(50_000, 20_000, 0), gc(50_000, 30_000, 0),
					gc(100, 50, 300), gc(100, 20_000, 0), gc(100, 30_000, 0),
				}},
			want: []string{"delays up to 50,000 (capped by the stream's 20,000 jobs) reach zero at window 20,000", "the stream's length when that is shorter",
				"4 cells are at or above that bound", "2 cells below the bound leaked"},
			not: []string{"luck"}},
		{name: "window grid with an anomaly and a lucky zero", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 500, Windows: []int64{100, 1000}, MaxDelays: []int64{500},
				Cells: []experiments.GridCell{gc(500, 100, 0), gc(500, 1000, 4)}},
			want: []string{"1 cell is at or above that bound, yet 1 leaked", "In 1 cell below the bound", "window 1,000 at delay 500 (4 escaped)", "cannot happen"}},
		{name: "window grid all zero", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 800, Windows: []int64{100}, MaxDelays: []int64{200}, Cells: []experiments.GridCell{gc(200, 100, 0)}},
			want:   []string{"Every cell of the grid is zero", "800 jobs", "1 cell below", "luck"}},
		{name: "window grid all zero by guarantee", params: experiments.DefaultWindowGridParams(),
			result: experiments.WindowGridResult{Jobs: 800, Windows: []int64{1000}, MaxDelays: []int64{200, 5000}, Cells: []experiments.GridCell{gc(200, 1000, 0), gc(5000, 1000, 0)}},
			want:   []string{"Every cell of the grid is zero, as it must be"}, not: []string{"luck"}},
	})
}

// TestStateBytesMatchExperiment holds the table's bytes an id to the experiment's own StateKB, and
// the state column to the document's figures at its windows (1 KB to 78 KB), while a window under
// 64 ids reads in bytes instead of issue 8's "0 KB".
func TestStateBytesMatchExperiment(t *testing.T) {
	p := experiments.DefaultWindowParams()
	p.Jobs = 2000
	p.Windows = []int64{1, 10, 63, 64, 100, 500, 1000, 1500, 2000, 5000, 70_000}
	r, err := experiments.Window(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range r.Points {
		if got := pt.Window * stateBytesPerID / 1024; got != pt.StateKB {
			t.Errorf("window %d: %d KB from stateBytesPerID, experiment says %d", pt.Window, got, pt.StateKB)
		}
	}
	var state []string
	for _, row := range windowTables(p, r)[0].Rows {
		state = append(state, row[1])
	}
	want := []string{"16 B", "160 B", "1,008 B", "1 KB", "1 KB", "7 KB", "15 KB", "23 KB", "31 KB", "78 KB", "1.07 MB"}
	if strings.Join(state, "|") != strings.Join(want, "|") {
		t.Errorf("state column %q, want %q", state, want)
	}
	if c := windowTables(p, experiments.WindowResult{MaxDelay: 1})[0].Caption; strings.Contains(c, "1 to 1") || strings.Contains(c, "1 jobs") {
		t.Errorf("caption %q", c)
	}
}
