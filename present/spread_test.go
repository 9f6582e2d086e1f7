package present

import (
	"effectivelyonce/experiments"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestSpreadNum(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{1000, "1,000"}, {0, "0"}, {79.95, "80"}, {112.6, "112.6"}, {432.65000000000003, "432.7"},
		{1234.56, "1,234.6"}, {96.5, "96.5"}, {-2.25, "-2.3"},
	} {
		if got := num(tc.in); got != tc.want {
			t.Errorf("num(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSpreadTableWords: the lease's points and counts read as its own table names them, the
// window grid's as "max delay 5,000, window 500", the outbox's designs in words, a count that
// never moved says so instead of ranking at the 50th percentile, and a fraction is written at one
// decimal however large.
func TestSpreadTableWords(t *testing.T) {
	lease := SpreadTable("lease", spreadOf(20,
		[]any{"5", "renew_third", 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 50.0},
		[]any{"5", "renew_double_real", 2448.0, 2440.0, 2403.25, 2534.65000000000003, 2398.0, 2544.0, 55.0},
		[]any{"300", "no_renewal", 3.0, 3.0, 1.0, 6.0, 0.0, 8.0, 50.0}))
	want := [][]string{
		{"timeout 5 s", "renew at t/3", "0", "0", "0–0", "did not move over 20 seeds"},
		{"timeout 5 s", "2t, real queue", "2,448", "2,440", "2,403.3–2,534.7", "55th percentile, typical"},
		{"timeout 300 s", "no renewal", "3", "3", "1–6", "50th percentile, typical"},
	}
	if h := lease.Head[len(lease.Head)-1]; h != "percentile among seeds" {
		t.Errorf("the rank column is headed %q; a percentile must say it is one", h)
	}
	for i, row := range lease.Rows {
		if strings.Join(row, "|") != strings.Join(want[i], "|") {
			t.Errorf("lease row %d = %q, want %q", i, row, want[i])
		}
	}
	grid := experiments.SpreadCount{Point: "5000/500", At: experiments.Point{X: 500, Y: 5000}}
	if got := pointLabel("window-grid", grid); got != "max delay 5,000, window 500" {
		t.Errorf("window-grid point reads %q", got)
	}
	outbox := experiments.SpreadCount{Point: "dual-write-db-first/dedup", At: experiments.Point{Name: "dual-write-db-first", Flag: true}}
	if got := pointLabel("outbox", outbox); got != "dual-write-db-first, consumer with dedup" {
		t.Errorf("outbox point reads %q", got)
	}
	if got := pointLabel("window", experiments.SpreadCount{Name: "escaped"}); got != "the run" {
		t.Errorf("a count of the whole run reads %q", got)
	}
}

// TestSpreadReading: on an assembly-like spread, the reading counts only the numbers that moved,
// speaks of lost and duplicated rather than exactly once, and puts three typical headlines in one
// sentence, not one sentence each.
func TestSpreadReading(t *testing.T) {
	s := spreadOf(20,
		[]any{"at-most-once", "lost", 398.0, 398.0, 381.3, 432.7, 370.0, 440.0, 48.0},
		[]any{"at-most-once", "exactly_once", 19602.0, 19602.0, 19567.3, 19618.7, 19560.0, 19630.0, 52.0},
		[]any{"at-most-once", "duplicated", 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 50.0},
		[]any{"at-least-once", "duplicated", 398.0, 398.0, 381.3, 432.7, 370.0, 440.0, 48.0},
		[]any{"dedup-non-transactional", "duplicated", 398.0, 398.0, 381.3, 432.7, 370.0, 440.0, 48.0},
		[]any{"dedup-transactional", "lost", 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 50.0})
	r := SpreadReading("assembly", s)
	all := strings.Join(r, " ")
	if !strings.Contains(r[0], "4 of the 4 numbers that moved") || !strings.Contains(r[0], "2 others did not move") {
		t.Errorf("first sentence does not count the moved numbers apart: %q", r[0])
	}
	if !strings.Contains(all, "your seeds and the 19 that follow each of them") {
		t.Errorf("reading does not say which seeds in plain words: %q", r[0])
	}
	if strings.Contains(all, "exactly once") || !strings.Contains(all, "lost") || !strings.Contains(all, "duplicated") {
		t.Errorf("headlines should be lost and duplicated, not exactly once: %q", all)
	}
	if len(r) != 2 || len(regexp.MustCompile(`\.\s+[A-Z]`).FindAllString(r[1], -1)) > 0 || strings.Count(r[1], "typical:") != 1 {
		t.Errorf("three typical headlines should be one sentence: %q", r)
	}
	if strings.Contains(all, "at at-") {
		t.Errorf("reading says %q", all)
	}
	still := SpreadReading("keys", spreadOf(5, []any{"uuid-per-attempt", "duplicated", 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 50.0}))
	if len(still) != 1 || !strings.Contains(still[0], "no number moved") || strings.Contains(still[0], "percentile") {
		t.Errorf("a spread where nothing moved reads %q", still)
	}
}

// TestBandChartOptions: every value sent to a band chart has at most one decimal; the tooltip's
// series are named in words; the lease's timeouts lie on a log axis; on bars, the median is a
// mark over the band, not a bar under it; and the band carries the id app.js styles per theme.
func TestBandChartOptions(t *testing.T) {
	lease := spreadOf(20,
		[]any{"5", "no_renewal", 2448.0, 2440.0, 2403.25, 2534.65000000000003, 2398.0, 2544.0, 55.0},
		[]any{"15", "no_renewal", 715.0, 700.5, 662.15, 747.85, 656.0, 751.0, 60.0},
		[]any{"60", "no_renewal", 100.0, 100.0, 90.0, 110.0, 80.0, 120.0, 50.0},
		[]any{"300", "no_renewal", 3.0, 3.0, 1.0, 6.0, 0.0, 8.0, 50.0})
	cs := BandCharts("exp-lease", "lease", lease)
	if len(cs) != 1 {
		t.Fatalf("%d charts for one count of a sweep", len(cs))
	}
	js, _ := json.Marshal(cs[0].Options)
	if m := longDecimal.FindString(seriesJSON(t, cs[0].Options)); m != "" {
		t.Errorf("lease band options carry %s", m)
	}
	for _, name := range []string{`"5th percentile"`, `"95th percentile"`, `"lowest"`, `"highest"`, `"median"`, `"this run"`, `"type":"log"`, `"id":"` + BandSeriesID + `"`, `"axisPointer":{"label":{"precision":0}}`} {
		if !strings.Contains(string(js), name) {
			t.Errorf("lease band options lack %s", name)
		}
	}
	for _, bad := range []string{`"p5"`, `"p95"`, `"min"`, `"max"`} {
		if strings.Contains(string(js), `"name":`+bad) {
			t.Errorf("lease band options name a series %s", bad)
		}
	}
	if !strings.Contains(cs[0].Title, "no renewal") {
		t.Errorf("lease band title %q", cs[0].Title)
	}

	bars := BandCharts("exp-assembly", "assembly", spreadOf(20,
		[]any{"at-most-once", "lost", 398.0, 398.0, 381.25, 432.65000000000003, 370.0, 440.0, 48.0},
		[]any{"at-least-once", "lost", 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 50.0}))
	js, _ = json.Marshal(bars[0].Options)
	var o struct {
		Series []struct {
			Name, Type, Symbol, ID string
			Z                      int
		}
	}
	if err := json.Unmarshal(js, &o); err != nil {
		t.Fatal(err)
	}
	if m := longDecimal.FindString(seriesJSON(t, bars[0].Options)); m != "" {
		t.Errorf("assembly band options carry %s", m)
	}
	var band, median bool
	for _, s := range o.Series {
		switch s.Name {
		case bandMedian:
			median = s.Type == "line" && s.Symbol == "rect" && s.Z > 0
		case bandName:
			band = s.Type == "bar" && s.ID == BandSeriesID
		}
	}
	if !band || !median {
		t.Errorf("bars: band is a bar with id %s: %v; median is a mark drawn over it: %v (%+v)", BandSeriesID, band, median, o.Series)
	}
	if darkPalette.BandOpacity <= lightPalette.BandOpacity {
		t.Errorf("the band is no denser on dark (%v) than on light (%v)", darkPalette.BandOpacity, lightPalette.BandOpacity)
	}
}

// spreadOf is a spread of n seeds over counts given as (point, name, value, median, p5, p95, min, max, percentile).
func spreadOf(n int, rows ...[]any) experiments.SpreadResult {
	s := experiments.SpreadResult{N: n}
	for _, r := range rows {
		f := func(i int) float64 { return r[i].(float64) }
		s.Counts = append(s.Counts, experiments.SpreadCount{Point: r[0].(string), At: fixturePoint(r[0].(string)), Name: r[1].(string),
			Value: f(2), Median: f(3), P5: f(4), P95: f(5), Min: f(6), Max: f(7), Percentile: f(8)})
	}
	return s
}

// fixturePoint is the values a fixture's point label stands for, as a run's Counts would give
// them beside it: a number for a sweep ("5"), two for a grid ("5000/500"), else a named row.
func fixturePoint(label string) experiments.Point {
	if x, err := strconv.ParseFloat(label, 64); err == nil {
		return experiments.Point{X: x}
	}
	if row, col, ok := strings.Cut(label, "/"); ok {
		y, errY := strconv.ParseFloat(row, 64)
		x, errX := strconv.ParseFloat(col, 64)
		if errY == nil && errX == nil {
			return experiments.Point{X: x, Y: y}
		}
		return experiments.Point{Name: row, Flag: col == "dedup"}
	}
	return experiments.Point{Name: label}
}

// seriesJSON is the data of a chart's series, what its tooltip shows, as JSON.
func seriesJSON(t *testing.T, o map[string]any) string {
	t.Helper()
	var data []any
	for _, s := range Objects(o["series"]) {
		data = append(data, s["data"])
	}
	js, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return string(js)
}

// longDecimal is a number with more than one decimal.
var longDecimal = regexp.MustCompile(`\d\.\d{2,}`)

// TestShownSpreadCutsToScope: a spread drawn on a block that shows the assembly up to at-most-once
// keeps that design's counts and no other design's, in their order, as the run's own table does;
// a page that shows every row keeps every count.
func TestShownSpreadCutsToScope(t *testing.T) {
	e, _ := experiments.Lookup("assembly")
	p := e.Defaults().(experiments.StreamParams)
	p.Jobs = 2000
	res, err := e.Run(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := e.Spread(t.Context(), p, experiments.SpreadOptions{N: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	pr, _ := PresenterFor("assembly")
	cut := pr.ShownSpread(Scope{UpTo: "at-most-once", Focus: "at-most-once"}, res, sp)
	if len(cut.Counts) == 0 || len(cut.Counts) >= len(sp.Counts) || cut.N != sp.N {
		t.Fatalf("cut to %d of %d counts (n %d)", len(cut.Counts), len(sp.Counts), cut.N)
	}
	for _, c := range cut.Counts {
		if c.Point != "at-most-once" {
			t.Errorf("the cut spread keeps %s's %s", c.Point, c.Name)
		}
	}
	for _, ch := range BandCharts("exp-assembly", "assembly", cut) {
		b, _ := json.Marshal(ch.Options)
		if s := string(b); strings.Contains(s, "at-least-once") || strings.Contains(s, "dedup") || !strings.Contains(s, "at-most-once") {
			t.Errorf("band chart %s draws a design the block has not introduced", ch.ID)
		}
	}
	for _, row := range SpreadTable("assembly", cut).Rows {
		if r := strings.Join(row, " "); strings.Contains(r, "at-least-once") || strings.Contains(r, "dedup") {
			t.Errorf("the spread table lists a later design: %v", row)
		}
	}
	if all := pr.ShownSpread(Scope{}, res, sp); len(all.Counts) != len(sp.Counts) {
		t.Errorf("the whole assembly keeps %d of %d counts", len(all.Counts), len(sp.Counts))
	}
}
