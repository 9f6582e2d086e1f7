package experiments

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The bounds of a spread: two runs are the least that can differ, and two hundred already put the
// 5th and 95th percentiles ten runs in from either end, more than a chart's band needs.
const (
	MinSpread = 2
	MaxSpread = 200
)

// SpreadField is the query key of the spread's size, beside the experiment's own fields.
const SpreadField = "spread"

// seedFields are the parameters that only pick random numbers: a spread varies these and nothing
// else, so every run of it asks the same question of a different draw.
var seedFields = []string{"seed", "delay_seed", "loss_seed", "lease_seed"}

// SeedFields names e's seed parameters, in the order of its form.
func SeedFields(e *Experiment) []string {
	var out []string
	for _, f := range e.Fields {
		if f.Kind == KindInt && slices.Contains(seedFields, f.Name) {
			out = append(out, f.Name)
		}
	}
	return out
}

// Spreadable reports whether e draws anything at random, and so has a spread over seeds at all.
func Spreadable(e *Experiment) bool { return len(SeedFields(e)) > 0 }

// SpreadParams returns the parameters of run k of a spread from p: every seed field moved on by k,
// wrapping within the field's range, so run 0 is p itself and the N runs use N different seeds of
// each kind. Consecutive seeds are as unrelated as any others: the generator hashes its seed
// (init_by_array), so 13 and 14 start streams that have nothing in common.
func (e *Experiment) SpreadParams(p any, k int) any {
	for _, name := range SeedFields(e) {
		f, _ := e.Field(name)
		m, _ := member(reflect.ValueOf(p), name)
		p = with(p, name, wrapAdd(m.Int(), int64(k), f.MinInt, f.MaxInt))
	}
	return p
}

// wrapAdd returns v+k wrapped into [lo, hi], in unsigned arithmetic so that a range as wide as
// 0..2^63-1 cannot overflow.
func wrapAdd(v, k, lo, hi int64) int64 {
	span := uint64(hi-lo) + 1 // 2^63 at most, which fits
	off := (uint64(v-lo) + uint64(k)) % span
	return lo + int64(off)
}

// SpreadParamsHash is the fingerprint of a spread of n seeds on p, as ParamsHash is of one run:
// the first 12 hex digits of the SHA-256 of Key(p)+"&spread=n". A spread is another answer than the
// run on p alone, so it must not carry that run's fingerprint.
func (e *Experiment) SpreadParamsHash(p any, n int) string {
	return fingerprint(e.Key(p) + "&" + SpreadField + "=" + strconv.Itoa(n))
}

// SpreadCost is the work of a spread of n runs: n single runs, since seeds change the numbers
// drawn but not how many.
func (e *Experiment) SpreadCost(p any, n int) int64 {
	c := e.Cost(p)
	if c > 0 && int64(n) > math.MaxInt64/c {
		return math.MaxInt64
	}
	return c * int64(n)
}

// SpreadQuery reads the spread of a query (the API's, or the command line's flags read into one),
// given at most once, for parameters p: 0 when absent, or the field error that refuses it.
func (e *Experiment) SpreadQuery(p any, q map[string][]string) (int, *FieldError) {
	v, ok := q[SpreadField]
	if !ok {
		return 0, nil
	}
	if len(v) != 1 {
		return 0, &FieldError{Field: SpreadField, Message: "give it once"}
	}
	if v[0] == "" {
		return 0, &FieldError{Field: SpreadField, Message: fmt.Sprintf("the field is empty; it must be a whole number of seeds from %d to %d", MinSpread, MaxSpread)}
	}
	return e.ParseSpread(p, v[0])
}

// ParseSpread reads the spread's size for parameters p from raw, as a form or the API sends it:
// blank means no spread (0). A value the experiment cannot take comes back as a FieldError on
// SpreadField whose message says what would be taken, like the experiment's own fields.
func (e *Experiment) ParseSpread(p any, raw string) (int, *FieldError) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return 0, nil
	}
	if !Spreadable(e) {
		return 0, &FieldError{SpreadField, fmt.Sprintf("%s draws nothing at random, so every seed would give the same numbers; leave it empty", e.Name)}
	}
	rng := fmt.Sprintf("a whole number of seeds from %d to %d, or empty for one run", MinSpread, MaxSpread)
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, &FieldError{SpreadField, fmt.Sprintf("%q is not a whole number; it must be %s", Clip(raw, 24), rng)}
	}
	if n < MinSpread || n > MaxSpread {
		return 0, &FieldError{SpreadField, fmt.Sprintf("%s is out of range; it must be %s", Thousands(int64(n)), rng)}
	}
	if e.SpreadCost(p, n) > MaxCost {
		most := MaxCost / max(e.Cost(p), 1)
		if most < MinSpread {
			return 0, &FieldError{SpreadField, "one run at these values already takes most of the time a request may use, so it cannot be repeated over seeds; make the run smaller first"}
		}
		return 0, &FieldError{SpreadField, fmt.Sprintf("%d runs at these values would take too long; at most %d fit", n, most)}
	}
	return n, nil
}

// SpreadCount is one Count summarised over the runs of a spread. The quantiles are those of
// numpy's default ("linear", Hyndman and Fan's type 7): the q quantile of n sorted values v is
// v[h] interpolated linearly at h = (n-1)q, so the median of two runs is their mean and p5 and p95
// stay within min and max. Percentile is where run 0, the form's own seeds, sits among all n by
// mid-rank: the share of runs below it plus half the share equal to it, times 100, so a value
// every run shares is at the 50th.
type SpreadCount struct {
	Point      string  `json:"point"`
	At         Point   `json:"-"` // the point's values, as Count.At
	Name       string  `json:"name"`
	Value      float64 `json:"value"`
	Median     float64 `json:"median"`
	P5         float64 `json:"p5"`
	P95        float64 `json:"p95"`
	Min        float64 `json:"min"`
	Max        float64 `json:"max"`
	Percentile float64 `json:"percentile"`
}

// Typical reports whether run 0's value lies within the 5th to 95th percentile band.
func (c SpreadCount) Typical() bool { return c.Value >= c.P5 && c.Value <= c.P95 }

// SpreadResult is a spread over seeds: the seeds of every run, in run order, and every Count of the
// result summarised, in Counts' order.
type SpreadResult struct {
	N      int                `json:"n"`
	Seeds  []map[string]int64 `json:"seeds"`
	Counts []SpreadCount      `json:"counts"`
}

// SpreadOptions says how to run a spread: n runs on a number of workers (at least one), and
// Progress, when set, is called after each run with the number done so far; it is called from the
// workers, so it must be safe for concurrent use, and it may block to pace the runs.
type SpreadOptions struct {
	N        int
	Workers  int
	Progress func(done int)
}

// Spread runs e on p and n-1 other seeds (see SpreadParams) on the given workers and summarises
// every Count. Cancelling ctx stops it within one run per worker and returns ctx's error. p must
// have come from Parse or Defaults, and the caller checks the spread's size (ParseSpread).
func (e *Experiment) Spread(ctx context.Context, p any, o SpreadOptions) (SpreadResult, error) {
	if !Spreadable(e) {
		return SpreadResult{}, fmt.Errorf("experiment %q has no seed to spread over", e.Name)
	}
	if o.N < 1 {
		return SpreadResult{}, fmt.Errorf("spread of %d runs", o.N)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	names := SeedFields(e)
	out := SpreadResult{N: o.N, Seeds: make([]map[string]int64, o.N)}
	runs := make([][]Count, o.N)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(o.Workers, o.N)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1) - 1)
				if k >= o.N || ctx.Err() != nil {
					return
				}
				pk := e.SpreadParams(p, k)
				res, err := e.Run(ctx, pk)
				if err != nil {
					cancel(fmt.Errorf("run %d of the spread: %w", k, err))
					return
				}
				runs[k] = e.Counts(res)
				seeds := make(map[string]int64, len(names))
				v := reflect.ValueOf(pk)
				for _, n := range names {
					m, _ := member(v, n)
					seeds[n] = m.Int()
				}
				out.Seeds[k] = seeds
				if o.Progress != nil {
					o.Progress(int(done.Add(1)))
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return SpreadResult{}, err
	}
	var err error
	out.Counts, err = summarise(runs)
	return out, err
}

// summarise turns the runs' counts into one SpreadCount per (point, count); every run must report
// the same counts in the same order, which holds because seeds change values, not points.
func summarise(runs [][]Count) ([]SpreadCount, error) {
	first := runs[0]
	out := make([]SpreadCount, len(first))
	vals := make([]float64, len(runs))
	for i, c := range first {
		for k, r := range runs {
			if len(r) != len(first) || r[i].Point != c.Point || r[i].Name != c.Name {
				return nil, fmt.Errorf("run %d of the spread reports other counts than run 0", k)
			}
			vals[k] = r[i].Value
		}
		slices.Sort(vals)
		out[i] = SpreadCount{Point: c.Point, At: c.At, Name: c.Name, Value: c.Value,
			Median: Quantile(vals, 0.5), P5: Quantile(vals, 0.05), P95: Quantile(vals, 0.95),
			Min: vals[0], Max: vals[len(vals)-1], Percentile: midRank(vals, c.Value)}
	}
	return out, nil
}

// Quantile is the q quantile of sorted, by linear interpolation between order statistics (see
// SpreadCount). sorted must not be empty.
func Quantile(sorted []float64, q float64) float64 {
	h := float64(len(sorted)-1) * q
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// midRank is the percentile of v among sorted: below counts whole, equal counts half.
func midRank(sorted []float64, v float64) float64 {
	below, equal := 0, 0
	for _, x := range sorted {
		switch {
		case x < v:
			below++
		case x == v:
			equal++
		}
	}
	return 100 * (float64(below) + float64(equal)/2) / float64(len(sorted))
}
