package experiments

import (
	"context"
	"errors"
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

// Window measures how many duplicates escape a bounded dedup window at each size.
func Window(ctx context.Context, p WindowParams) (WindowResult, error) {
	return WindowResult{}, errors.New("not implemented")
}

func windowExperiment() *Experiment {
	return define("window", "Escape rate versus dedup window",
		"Duplicates that escape a bounded dedup set when redeliveries arrive up to max_delay jobs late.",
		[]Field{fieldJobs, fieldCrashRate, fieldSeed, fieldMaxDelay, fieldDelaySeed, fieldWindows},
		DefaultWindowParams, Window, windowCost)
}

func windowCost(p WindowParams) (int64, string) {
	return p.Jobs * int64(len(p.Windows)) * 4, "jobs"
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
func WindowGrid(ctx context.Context, p WindowGridParams) (WindowGridResult, error) {
	return WindowGridResult{}, errors.New("not implemented")
}

func windowGridExperiment() *Experiment {
	return define("window-grid", "Window against max delay",
		"Escaped duplicates for every pair of dedup window and maximum redelivery delay.",
		[]Field{fieldJobs, fieldCrashRate, fieldSeed, fieldDelaySeed, fieldWindows, fieldMaxDelays},
		DefaultWindowGridParams, WindowGrid, windowGridCost)
}

func windowGridCost(p WindowGridParams) (int64, string) {
	return p.Jobs * int64(len(p.Windows)*len(p.MaxDelays)) * 4, "jobs"
}
