package experiments

import (
	"context"
	"math"
	"slices"
)

// WindowParams describe block 4: a dedup set bounded to the last Window ids, and redeliveries that
// arrive 1..MaxDelay jobs after the original, drawn from Random(DelaySeed).
type WindowParams struct {
	Jobs      int64   `json:"jobs"`
	CrashRate float64 `json:"crash_rate"`
	Seed      int64   `json:"seed"`
	MaxDelay  int64   `json:"max_delay"`
	DelaySeed int64   `json:"delay_seed"`
	Windows   []int64 `json:"windows"`
}

// DefaultWindowParams are the document's: windows 100..5,000 against delays of up to 2,000 jobs.
func DefaultWindowParams() WindowParams {
	return WindowParams{Jobs: 20_000, CrashRate: 0.02, Seed: 13, MaxDelay: 2000, DelaySeed: 17,
		Windows: []int64{100, 500, 1000, 1500, 2000, 5000}}
}

var (
	fieldMaxDelay = Field{Name: "max_delay", Label: "Max redelivery delay", Unit: "jobs",
		Help: "A redelivery arrives between 1 and this many jobs after the original.", Kind: KindInt, MinInt: 1, MaxInt: 10_000_000}
	fieldWindows = Field{Name: "windows", Label: "Dedup windows", Unit: "ids",
		Help: "Sizes of the dedup set to try: it remembers only the most recent ids.", Kind: KindIntList, MinInt: 1, MaxInt: 10_000_000}
)

// WindowPoint is the outcome at one window size.
type WindowPoint struct {
	Window     int64   `json:"window"`
	Escaped    int64   `json:"escaped"`
	EscapeRate float64 `json:"escape_rate"`
	// StateKB is window*16/1024 rounded down: 16 bytes an id, as the document prints it.
	StateKB int64 `json:"state_kb"`
}

// WindowResult is the escape curve for one maximum delay.
type WindowResult struct {
	Jobs     int64         `json:"jobs"`
	Crashed  int64         `json:"crashed"`
	MaxDelay int64         `json:"max_delay"`
	Points   []WindowPoint `json:"points"`
}

// deliveries is the order in which the document's loop calls apply, which does not depend on the
// window: at iteration t, job t itself, then the redeliveries due at t in the order they were
// queued; after the last job, the redeliveries still queued, in queue order (late). Computing it
// once per delay draw turns each window into one pass over an array.
//
// The document's loop decrements every queued delay once per iteration, the just-queued one
// included, and fires an entry as soon as it reaches 0; so a redelivery queued at iteration t with
// delay d fires at iteration t+d-1, after that iteration's own job. Sorting the redeliveries by that
// iteration, stably, gives the same order in O(jobs + crashes) instead of the document's
// O(jobs x queue length).
type deliveries struct {
	jobs  int
	early []uint64 // due<<32 | job for every redelivery due before the last job, sorted stably by due
	late  []int32  // the rest, in queue order, which is job order
}

// blockBits sets the coarse pass of the sort: redeliveries are first grouped by due>>blockBits,
// then counted out within a block. Two passes with few, local write streams each, where one
// counting sort over the whole stream scatters its writes over tens of megabytes and spends its
// time on cache misses once max_delay is large.
const blockBits = 16

// drawDeliveries draws one delay per crashed job, in job order, from a fresh Random(delaySeed).
func drawDeliveries(ctx context.Context, s jobStream, maxDelay, delaySeed int64) (deliveries, error) {
	n := len(s.crashed)
	rng := newPyRandom(delaySeed)
	d := deliveries{jobs: n}
	raw := make([]uint64, 0, s.count)
	blocks := make([]int, n>>blockBits+2) // entry b+1 counts block b, then becomes its start
	for t, crashed := range s.crashed {
		if t%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return deliveries{}, err
			}
		}
		if !crashed {
			continue
		}
		at := int64(t) + rng.randint(1, maxDelay) - 1
		if at >= int64(n) {
			d.late = append(d.late, int32(t))
			continue
		}
		// at < jobs <= 10^7 and t < 2^31, so both halves fit
		raw = append(raw, uint64(at)<<32|uint64(t))
		blocks[at>>blockBits+1]++
	}
	for b := 1; b < len(blocks); b++ {
		blocks[b] += blocks[b-1]
	}
	// Coarse pass: stable scatter into blocks.
	tmp := make([]uint64, len(raw))
	next := slices.Clone(blocks)
	for _, e := range raw {
		b := e >> (32 + blockBits)
		tmp[next[b]] = e
		next[b]++
	}
	// Fine pass: a counting sort on the low bits of due within each block, back into raw. A block
	// spans at most min(2^blockBits, jobs) iterations, so a short stream clears a short array.
	count := make([]int32, min(1<<blockBits, n)+1)
	for b := 0; b+1 < len(blocks); b++ {
		if err := ctx.Err(); err != nil {
			return deliveries{}, err
		}
		lo, hi := blocks[b], blocks[b+1]
		if hi-lo < 2 {
			copy(raw[lo:hi], tmp[lo:hi])
			continue
		}
		clear(count)
		for _, e := range tmp[lo:hi] {
			count[(e>>32)&(1<<blockBits-1)+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, e := range tmp[lo:hi] {
			k := (e >> 32) & (1<<blockBits - 1)
			raw[lo+int(count[k])] = e
			count[k]++
		}
	}
	d.early = raw
	return d, nil
}

// escaped replays the deliveries through the document's WindowedSink, win emptied to the given
// size, and returns how many applications there were beyond each job's first. A job's own
// delivery is never in the set yet; a redelivery that is not found escapes and is inserted again
// like any new id.
func (d deliveries) escaped(ctx context.Context, window int64, win *DedupWindow) (int64, error) {
	win.Reset(window)
	var escaped int64
	// The jobs up to the next iteration a redelivery is due at enter as one run; the context is
	// looked at once every ctxEvery jobs, as elsewhere.
	early := d.early
	check := 0
	for t := 0; t < d.jobs; {
		if t >= check {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			check = t + ctxEvery
		}
		next := min(check, d.jobs) // the first job after this run
		if len(early) > 0 && int(early[0]>>32) < next {
			next = int(early[0]>>32) + 1
		}
		win.InsertRange(int32(t), int32(next))
		t = next
		for len(early) > 0 && early[0]>>32 == uint64(t-1) {
			if win.Remember(int32(uint32(early[0]))) {
				escaped++
			}
			early = early[1:]
		}
	}
	for _, id := range d.late {
		if win.Remember(id) {
			escaped++
		}
	}
	return escaped, nil
}

// sweep runs every window over one delay draw, sharing one DedupWindow between them.
func (d deliveries) sweep(ctx context.Context, windows []int64) ([]int64, error) {
	var widest int64
	for _, w := range windows {
		widest = max(widest, w)
	}
	win := NewDedupWindow(widest, d.jobs)
	out := make([]int64, len(windows))
	for i, w := range windows {
		e, err := d.escaped(ctx, w, win)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// Window measures how many duplicates escape a bounded dedup window at each size.
func Window(ctx context.Context, p WindowParams) (WindowResult, error) {
	s, err := drawStream(ctx, p.Jobs, p.CrashRate, p.Seed)
	if err != nil {
		return WindowResult{}, err
	}
	d, err := drawDeliveries(ctx, s, p.MaxDelay, p.DelaySeed)
	if err != nil {
		return WindowResult{}, err
	}
	esc, err := d.sweep(ctx, p.Windows)
	if err != nil {
		return WindowResult{}, err
	}
	res := WindowResult{Jobs: p.Jobs, Crashed: s.count, MaxDelay: p.MaxDelay}
	for i, w := range p.Windows {
		res.Points = append(res.Points, WindowPoint{Window: w, Escaped: esc[i],
			EscapeRate: float64(esc[i]) / float64(p.Jobs), StateKB: w * 16 / 1024})
	}
	return res, nil
}

func windowExperiment() *Experiment {
	return define("window", "Escape rate versus dedup window",
		"Duplicates that escape a bounded dedup set when redeliveries arrive up to max_delay jobs late.",
		[]Field{fieldJobs, fieldCrashRate, fieldSeed, fieldMaxDelay, fieldDelaySeed, fieldWindows},
		DefaultWindowParams, Window, windowCost, lower("jobs"), fewer("windows"), lower("crash_rate"), lower("max_delay")).
		memory(windowMemory).counts(Sweep, windowCounts).traced(windowTracer()).answers(Question{"q4", "/blocks/4", "duplicates escaped"}, answerEscaped).
		headline(headlineWindow).build()
}

// windowRow is the cost of one delay draw and its window passes, in units of about 4 ns (see
// MaxCost), from measurements on the 2-core machine: per job and window a pass costs up to 8 ns;
// per redelivery, the draw and the sort about 20 ns, and per window a lookup and an insertion from
// 30 ns when redeliveries land near their job up to 100 ns when max_delay scatters them over the
// whole bitmap and the ring evicts ids from all over it.
func windowRow(jobs, crashRate float64, maxDelay int64, windows int) float64 {
	w := float64(windows)
	scatter := min(1, float64(maxDelay)/(1<<20))
	return jobs*w*2 + jobs*crashRate*(5+w*(8+17*scatter))
}

func windowCost(p WindowParams) int64 {
	jobs := float64(p.Jobs)
	return clampCost(jobs*6 + windowRow(jobs, p.CrashRate, p.MaxDelay, len(p.Windows)))
}

// WindowGridParams sweep window sizes against maximum delays (block 4's "try it yourself").
type WindowGridParams struct {
	Jobs      int64   `json:"jobs"`
	CrashRate float64 `json:"crash_rate"`
	Seed      int64   `json:"seed"`
	DelaySeed int64   `json:"delay_seed"`
	Windows   []int64 `json:"windows"`
	MaxDelays []int64 `json:"max_delays"`
}

// DefaultWindowGridParams are the document's table: windows 500, 2k, 10k by delays 200..20,000.
func DefaultWindowGridParams() WindowGridParams {
	return WindowGridParams{Jobs: 20_000, CrashRate: 0.02, Seed: 13, DelaySeed: 17,
		Windows: []int64{500, 2000, 10_000}, MaxDelays: []int64{200, 1000, 5000, 20_000}}
}

var fieldMaxDelays = Field{Name: "max_delays", Label: "Max redelivery delays", Unit: "jobs",
	Help: "Each row draws its redelivery delays from 1 to this many jobs.", Kind: KindIntList, MinInt: 1, MaxInt: 10_000_000}

// GridCell is the escaped count for one (max delay, window) pair.
type GridCell struct {
	MaxDelay int64 `json:"max_delay"`
	Window   int64 `json:"window"`
	Escaped  int64 `json:"escaped"`
}

// WindowGridResult holds cells row by row: max delays outer, windows inner.
type WindowGridResult struct {
	Jobs      int64      `json:"jobs"`
	Windows   []int64    `json:"windows"`
	MaxDelays []int64    `json:"max_delays"`
	Cells     []GridCell `json:"cells"`
}

// WindowGrid runs Window for every pair; zero appears where the window reaches the max delay.
// Each row draws its delays from a fresh Random(delay_seed), as the document's escapes() does on
// every call, so a row's numbers do not depend on which other rows were asked for.
func WindowGrid(ctx context.Context, p WindowGridParams) (WindowGridResult, error) {
	s, err := drawStream(ctx, p.Jobs, p.CrashRate, p.Seed)
	if err != nil {
		return WindowGridResult{}, err
	}
	res := WindowGridResult{Jobs: p.Jobs, Windows: p.Windows, MaxDelays: p.MaxDelays}
	for _, md := range p.MaxDelays {
		d, err := drawDeliveries(ctx, s, md, p.DelaySeed)
		if err != nil {
			return WindowGridResult{}, err
		}
		esc, err := d.sweep(ctx, p.Windows)
		if err != nil {
			return WindowGridResult{}, err
		}
		for i, w := range p.Windows {
			res.Cells = append(res.Cells, GridCell{MaxDelay: md, Window: w, Escaped: esc[i]})
		}
	}
	return res, nil
}

func windowGridExperiment() *Experiment {
	return define("window-grid", "Window against max delay",
		"Escaped duplicates for every pair of dedup window and maximum redelivery delay.",
		[]Field{fieldJobs, fieldCrashRate, fieldSeed, fieldDelaySeed, fieldWindows, fieldMaxDelays},
		DefaultWindowGridParams, WindowGrid, windowGridCost,
		lower("jobs"), fewer("windows"), fewer("max_delays"), lower("crash_rate")).
		memory(windowGridMemory).counts(Grid, windowGridCounts).traced(windowGridTracer()).
		headline(headlineWindowGrid).build()
}

func windowGridCost(p WindowGridParams) int64 {
	jobs := float64(p.Jobs)
	c := jobs * 6
	for _, md := range p.MaxDelays {
		c += windowRow(jobs, p.CrashRate, md, len(p.Windows))
	}
	return clampCost(c)
}

// clampCost turns a float estimate into work units without overflow: anything past MaxInt64 is
// refused anyway, so saturating loses nothing.
func clampCost(c float64) int64 {
	if math.IsNaN(c) || c >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(math.Ceil(c))
}
