package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

func TestSpreadable(t *testing.T) {
	for _, e := range All() {
		want := e.Name != "crash-sweep" && e.Name != "scale" && e.Name != "window-time"
		if got := Spreadable(e); got != want {
			t.Errorf("Spreadable(%s) = %v, want %v (seed fields %v)", e.Name, got, want, SeedFields(e))
		}
	}
}

func TestWrapAdd(t *testing.T) {
	const top = 1<<63 - 1
	for _, c := range []struct{ v, k, lo, hi, want int64 }{
		{13, 0, 0, top, 13},
		{13, 5, 0, top, 18},
		{top, 1, 0, top, 0},
		{top - 1, 3, 0, top, 1},
		{9, 3, 5, 10, 6},
	} {
		if got := wrapAdd(c.v, c.k, c.lo, c.hi); got != c.want {
			t.Errorf("wrapAdd(%d, %d, %d, %d) = %d, want %d", c.v, c.k, c.lo, c.hi, got, c.want)
		}
	}
}

func TestSpreadParamsMovesEverySeed(t *testing.T) {
	e, _ := Lookup("claims")
	p := e.Defaults()
	if got := e.SpreadParams(p, 0); !reflect.DeepEqual(got, p) {
		t.Fatalf("run 0 has params %+v, want the form's own %+v", got, p)
	}
	p3 := e.SpreadParams(p, 3)
	v0, v3 := reflect.ValueOf(p), reflect.ValueOf(p3)
	for _, f := range e.Fields {
		a, _ := member(v0, f.Name)
		b, _ := member(v3, f.Name)
		if len(SeedFields(e)) != 3 {
			t.Fatalf("claims has seed fields %v, want seed, delay_seed and lease_seed", SeedFields(e))
		}
		isSeed := strings.HasSuffix(f.Name, "seed")
		if isSeed && b.Int() != a.Int()+3 {
			t.Errorf("%s: run 3 has %d, want %d", f.Name, b.Int(), a.Int()+3)
		}
		if !isSeed && !reflect.DeepEqual(a.Interface(), b.Interface()) {
			t.Errorf("%s changed in run 3: %v, was %v", f.Name, b, a)
		}
	}
}

func TestParseSpread(t *testing.T) {
	window, _ := Lookup("window")
	scale, _ := Lookup("scale")
	big := DefaultWindowParams()
	big.Jobs = 1_000_000
	for _, c := range []struct {
		name  string
		e     *Experiment
		p     any
		raw   string
		n     int
		error string
	}{
		{"blank is off", window, window.Defaults(), " ", 0, ""},
		{"two", window, window.Defaults(), "2", 2, ""},
		{"two hundred", window, window.Defaults(), "200", 200, ""},
		{"one", window, window.Defaults(), "1", 0, "from 2 to 200"},
		{"too many", window, window.Defaults(), "201", 0, "from 2 to 200"},
		{"words", window, window.Defaults(), "lots", 0, "not a whole number"},
		{"no seed", scale, scale.Defaults(), "20", 0, "draws nothing at random"},
		{"over budget", window, big, "200", 0, "at most"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, fe := c.e.ParseSpread(c.p, c.raw)
			if c.error == "" {
				if fe != nil || n != c.n {
					t.Fatalf("ParseSpread(%q) = %d, %v; want %d", c.raw, n, fe, c.n)
				}
				return
			}
			if fe == nil || fe.Field != SpreadField || !strings.Contains(fe.Message, c.error) {
				t.Fatalf("ParseSpread(%q) = %d, %v; want an error on %s saying %q", c.raw, n, fe, SpreadField, c.error)
			}
		})
	}
}

// TestParseSpreadLargestFits checks that the N the message offers is accepted and one more is not.
func TestParseSpreadLargestFits(t *testing.T) {
	e, _ := Lookup("window")
	p := DefaultWindowParams()
	p.Jobs = 1_000_000
	_, fe := e.ParseSpread(p, "200")
	if fe == nil {
		t.Fatal("200 runs of a million jobs accepted")
	}
	var k int
	if _, err := fmt.Sscanf(fe.Message[strings.LastIndex(fe.Message, "at most "):], "at most %d fit", &k); err != nil {
		t.Fatalf("message %q offers no number: %v", fe.Message, err)
	}
	if _, bad := e.ParseSpread(p, strconv.Itoa(k)); bad != nil {
		t.Errorf("offered %d runs, then refused them: %v", k, bad)
	}
	if e.SpreadCost(p, k+1) <= MaxCost {
		t.Errorf("offered %d runs, but %d fit too", k, k+1)
	}
}

func TestQuantile(t *testing.T) {
	for _, c := range []struct {
		vals []float64
		q    float64
		want float64
	}{
		{[]float64{3, 7}, 0.5, 5},
		{[]float64{1, 2, 3, 4, 5}, 0.5, 3},
		{[]float64{0, 10}, 0.05, 0.5},
		{[]float64{0, 10}, 0.95, 9.5},
		{[]float64{4}, 0.95, 4},
		{[]float64{1, 2, 3, 4}, 1, 4},
	} {
		if got := Quantile(c.vals, c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", c.vals, c.q, got, c.want)
		}
	}
	if got := midRank([]float64{1, 2, 2, 3}, 2); got != 50 {
		t.Errorf("midRank of 2 in 1,2,2,3 = %v, want 50", got)
	}
	if got := midRank([]float64{1, 2, 3, 4}, 1); got != 12.5 {
		t.Errorf("midRank of the least of four = %v, want 12.5", got)
	}
}

// TestSpreadWindow checks the summary against the runs done one by one.
func TestSpreadWindow(t *testing.T) {
	ctx := context.Background()
	e, _ := Lookup("window")
	p := e.Defaults()
	for _, n := range []int{2, 7} {
		t.Run(strings.Repeat("n", n), func(t *testing.T) {
			var calls atomic.Int64
			s, err := e.Spread(ctx, p, SpreadOptions{N: n, Workers: 2, Progress: func(int) { calls.Add(1) }})
			if err != nil {
				t.Fatal(err)
			}
			if s.N != n || len(s.Seeds) != n || calls.Load() != int64(n) {
				t.Fatalf("N %d, %d seeds, %d progress calls; want %d of each", s.N, len(s.Seeds), calls.Load(), n)
			}
			byRun := make([][]Count, n)
			for k := range n {
				if s.Seeds[k]["seed"] != 13+int64(k) || s.Seeds[k]["delay_seed"] != 17+int64(k) {
					t.Errorf("run %d used seeds %v, want seed %d and delay_seed %d", k, s.Seeds[k], 13+k, 17+k)
				}
				res, err := e.Run(ctx, e.SpreadParams(p, k))
				if err != nil {
					t.Fatal(err)
				}
				byRun[k] = e.Counts(res)
			}
			if len(s.Counts) != len(byRun[0]) {
				t.Fatalf("%d summarised counts, want %d", len(s.Counts), len(byRun[0]))
			}
			for i, c := range s.Counts {
				if c.Value != byRun[0][i].Value {
					t.Errorf("%s %s: value %v, want run 0's own %v", c.Point, c.Name, c.Value, byRun[0][i].Value)
				}
				lo, hi := math.Inf(1), math.Inf(-1)
				for k := range n {
					lo, hi = min(lo, byRun[k][i].Value), max(hi, byRun[k][i].Value)
				}
				if c.Min != lo || c.Max != hi {
					t.Errorf("%s: min %v max %v, want %v and %v", c.Point, c.Min, c.Max, lo, hi)
				}
				if !(c.Min <= c.P5 && c.P5 <= c.Median && c.Median <= c.P95 && c.P95 <= c.Max) {
					t.Errorf("%s: out of order: %+v", c.Point, c)
				}
				if n == 2 && c.Median != (byRun[0][i].Value+byRun[1][i].Value)/2 {
					t.Errorf("%s: median of two runs %v, want their mean", c.Point, c.Median)
				}
			}
		})
	}
}

// TestSpreadKeepsTheDocumentsRun checks run 0 at the defaults is the document's: 195 escapes at a
// window of 1,000, the number the first document prints.
func TestSpreadKeepsTheDocumentsRun(t *testing.T) {
	e, _ := Lookup("window")
	s, err := e.Spread(context.Background(), e.Defaults(), SpreadOptions{N: 20, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range s.Counts {
		if c.Point == "1000" && c.Value != 195 {
			t.Errorf("window 1000 escaped %v in run 0, want the document's 195", c.Value)
		}
		if c.Point == "1000" && c.Min == c.Max {
			t.Errorf("window 1000 escaped %v in every one of 20 seeds: the seeds did not move", c.Min)
		}
	}
}

// TestSpreadCancel cancels from the progress callback after three runs and checks that the
// spread stops with the context's error long before its 200 runs.
func TestSpreadCancel(t *testing.T) {
	e, _ := Lookup("window")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last atomic.Int64
	_, err := e.Spread(ctx, e.Defaults(), SpreadOptions{N: 200, Workers: 2, Progress: func(done int) {
		last.Store(int64(done))
		if done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := last.Load(); n >= 10 {
		t.Errorf("%d runs finished after the cancel at 3", n)
	}
}

func TestSpreadRefusesSeedless(t *testing.T) {
	e, _ := Lookup("crash-sweep")
	if _, err := e.Spread(context.Background(), e.Defaults(), SpreadOptions{N: 3, Workers: 1}); err == nil {
		t.Fatal("spread of crash-sweep, which has no seed, did not fail")
	}
}

// BenchmarkSpreadWindow100 holds the spread's target: 100 seeds of the window sweep at the
// document's 20,000 jobs in under a second on the 2-core machine.
func BenchmarkSpreadWindow100(b *testing.B) {
	e, _ := Lookup("window")
	p := e.Defaults()
	for b.Loop() {
		if _, err := e.Spread(context.Background(), p, SpreadOptions{N: 100, Workers: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpreadAll100 is 100 seeds of every experiment that has one, at its defaults; the
// target is under 5 s for all of them together.
func BenchmarkSpreadAll100(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		for _, e := range All() {
			if !Spreadable(e) {
				continue
			}
			if _, err := e.Spread(ctx, e.Defaults(), SpreadOptions{N: 100, Workers: 2}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
