package present

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"effectivelyonce/experiments"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// windowShows presents block 4's sweep of window sizes.
var windowShows = shows[experiments.WindowParams, experiments.WindowResult]{
	charts: func(domID string, _ experiments.WindowParams, r experiments.WindowResult) []Chart {
		return []Chart{windowChart(domID, r)}
	},
	tables:  windowTables,
	reading: readWindow,
	opening: func(_ experiments.WindowParams, r experiments.WindowResult) Opening {
		return crashedOpening(r.Crashed)
	},
	point:   func(p experiments.Point) string { return "window " + count(int64(p.X)) },
	rowWord: "at",
	band:    &bandAxis{"window (ids)", "{value}", 100},
	ask: &asking[experiments.WindowParams, experiments.WindowResult]{says: []string{"jobs", "crash_rate", "max_delay", "windows"},
		words: func(p experiments.WindowParams, _ experiments.WindowResult, at experiments.Count) string {
			return askEscaped(int64(at.At.X), p.MaxDelay, p.Jobs, p.CrashRate)
		}},
}

// windowGridShows presents block 4's grid of windows against maximum delays.
var windowGridShows = shows[experiments.WindowGridParams, experiments.WindowGridResult]{
	charts: func(domID string, _ experiments.WindowGridParams, r experiments.WindowGridResult) []Chart {
		return []Chart{gridChart(domID, r)}
	},
	tables:  windowGridTables,
	reading: readWindowGrid,
	point: func(p experiments.Point) string {
		return "max delay " + count(int64(p.Y)) + ", window " + count(int64(p.X))
	},
	rowWord: "at",
	ask: &asking[experiments.WindowGridParams, experiments.WindowGridResult]{says: []string{"jobs", "crash_rate", "windows", "max_delays"},
		words: func(p experiments.WindowGridParams, _ experiments.WindowGridResult, at experiments.Count) string {
			return askEscaped(int64(at.At.X), int64(at.At.Y), p.Jobs, p.CrashRate)
		}},
}

// askEscaped asks block 4's question at a window and a maximum delay: "How many duplicates escape
// a window of 1,000 ids when redeliveries come up to 2,000 jobs late, on 20,000 jobs with 2%
// crashing?"
func askEscaped(window, maxDelay, jobs int64, crashRate float64) string {
	return fmt.Sprintf("How many duplicates escape a window of %s when redeliveries come up to %s late, on %s with %s?",
		Plural(window, "id", "ids"), Plural(maxDelay, "job", "jobs"), ofJobs(jobs), crashing(crashRate))
}

// stateBytesPerID is what the experiment charges an id of the dedup window (its StateKB is
// window*16/1024); the table writes the state from bytes so that a window under 64 ids does not
// read 0 KB. TestStateBytesMatchExperiment holds the two together.
const stateBytesPerID = 16

// windowCaption names the delays the window table was measured against.
func windowCaption(maxDelay int64) string {
	if maxDelay == 1 {
		return "Bounded dedup, every redelivery 1 job late"
	}
	return "Bounded dedup, redeliveries 1 to " + count(maxDelay) + " jobs late"
}

func windowTables(_ experiments.WindowParams, r experiments.WindowResult) []Table {
	t := newTable(windowCaption(r.MaxDelay),
		col{"window", "window_ids", true}, col{"state", "state_bytes", true}, col{"duplicates escaped", "escaped_duplicates", true}, col{"rate", "escape_rate", true})
	for _, p := range r.Points {
		t.addAt(experiments.SweepPoint(float64(p.Window)), countCell(p.Window), stateCell(p.Window*stateBytesPerID), countCell(p.Escaped), shareCell(p.EscapeRate))
	}
	return []Table{t}
}

func windowGridTables(_ experiments.WindowGridParams, r experiments.WindowGridResult) []Table {
	cols := []col{{"max redelivery delay", "max_delay_jobs", true}}
	for _, w := range r.Windows {
		cols = append(cols, col{"window " + count(w), "escaped_duplicates_window_" + strconv.FormatInt(w, 10), true})
	}
	t := newTable("Duplicates escaped, by max redelivery delay (rows) and window (columns)", cols...)
	for di, d := range r.MaxDelays {
		row := []cell{countCell(d)}
		for wi := range r.Windows {
			row = append(row, countCell(gridCell(r, di, wi)).at(experiments.GridPoint(d, r.Windows[wi])))
		}
		t.add(row...)
	}
	return []Table{t}
}

// windowBound is the window that is sure to let nothing through: a redelivery is due at most
// max_delay jobs after its original, and one still pending when the stream ends is applied then, so
// its key has seen at most as many newer ids as the stream has jobs. A window of min(max_delay, jobs)
// therefore still holds every key when its duplicate arrives.
func windowBound(maxDelay, jobs int64) int64 { return min(maxDelay, jobs) }

// sayBound names the bound and what it is.
func sayBound(maxDelay, jobs int64) string {
	if jobs < maxDelay {
		return count(jobs) + ", the length of the stream"
	}
	return count(maxDelay) + ", the maximum redelivery delay"
}

func readWindow(p experiments.WindowParams, r experiments.WindowResult) []string {
	if len(r.Points) == 0 {
		return []string{"No window sizes were given, so there is nothing to read."}
	}
	pts := slices.Clone(r.Points)
	slices.SortStableFunc(pts, func(a, b experiments.WindowPoint) int { return cmp.Compare(a.Window, b.Window) })
	if r.Crashed == 0 {
		return []string{fmt.Sprintf("%s, so nothing was redelivered and every window shows 0 escapes. This run says nothing about sizing the window. %s",
			sayNoneCrashed(r.Jobs), noCrashAdvice(p.CrashRate, r.Jobs, "give it duplicates to catch"))}
	}
	bound := windowBound(r.MaxDelay, r.Jobs)
	intro := fmt.Sprintf("%s. %s due up to %s later, or at the end of the stream if that came sooner.",
		sayCrashed(r.Crashed, r.Jobs, "crashed", "crashed"), verb(r.Crashed, "Its redelivery was", "Each redelivery was"), Plural(r.MaxDelay, "job", "jobs"))
	if r.Jobs < r.MaxDelay {
		intro += fmt.Sprintf(" The stream is shorter than that delay, so a window of %s, which holds every id, already catches every redelivery.", Plural(r.Jobs, "id", "ids"))
	}
	out := []string{intro}
	first := pts[0]
	out = append(out, fmt.Sprintf("The smallest window tried, %s, let %s escape: %s of all jobs, or %s of the redeliveries.",
		Plural(first.Window, "id", "ids"), Plural(first.Escaped, "duplicate", "duplicates"), percent(first.EscapeRate), sayShare(first.Escaped, r.Crashed)))
	zero := -1
	for i, pt := range pts {
		if pt.Escaped == 0 {
			zero = i
			break
		}
	}
	if zero < 0 {
		last := pts[len(pts)-1]
		s := fmt.Sprintf("No window tried reaches zero. The largest, %s, still let %s escape (%s of all jobs).",
			Plural(last.Window, "id", "ids"), count(last.Escaped), percent(last.EscapeRate))
		if last.Window < bound {
			s += fmt.Sprintf(" A window is only sure to stop the leak at %s.", sayBound(r.MaxDelay, r.Jobs))
		} else {
			s += fmt.Sprintf(" That should not happen: a window of %s or more holds every key until its duplicate arrives.", count(bound))
		}
		out = append(out, s)
	} else {
		w := pts[zero]
		size := stateSize(w.Window * stateBytesPerID)
		if w.Window*stateBytesPerID >= 1024 {
			size = "about " + size
		}
		s := fmt.Sprintf("The smallest window tried with zero escapes is %s (%s of ids). ", Plural(w.Window, "id", "ids"), size)
		switch {
		case w.Window >= bound && r.Jobs == 1:
			s += "On a stream of one job any window holds every id, so no window can leak here."
		case w.Window >= bound && bound == 1:
			s += "With a maximum delay of 1 job each redelivery arrives right after its original, so a window of one id or more still holds its key and no window can leak here."
		case w.Window >= bound && zero == 0:
			s += fmt.Sprintf("Every window tried is at least %s, where zero is guaranteed, so this run does not locate the threshold. Add windows below %s to see where the leak stops.",
				sayBound(r.MaxDelay, r.Jobs), count(bound))
		case w.Window == bound:
			s += fmt.Sprintf("That is exactly %s. From there on zero is guaranteed.", sayBound(r.MaxDelay, r.Jobs))
		case w.Window > bound:
			s += fmt.Sprintf("Zero is guaranteed from %s. The next smaller window tried, %s, still leaked %s, so the threshold lies above %s and at most %s; the windows tried do not pin it down.",
				sayBound(r.MaxDelay, r.Jobs), count(pts[zero-1].Window), count(pts[zero-1].Escaped), count(pts[zero-1].Window), count(bound))
		default:
			s += fmt.Sprintf("That is below %s. None of the %s happened to come back late enough to find its key gone; that is luck, not a guarantee. Only a window of %s is safe for every possible delay.",
				sayBound(r.MaxDelay, r.Jobs), Plural(r.Crashed, "redelivery", "redeliveries"), count(bound))
			if zero > 0 {
				s += fmt.Sprintf(" The next smaller window tried, %s, leaked %s.", count(pts[zero-1].Window), count(pts[zero-1].Escaped))
			}
		}
		out = append(out, s)
	}
	for _, pt := range pts {
		if pt.Window*2 == r.MaxDelay && pt.Window < bound {
			if pt.Escaped > 0 {
				out = append(out, fmt.Sprintf("At half the maximum delay (%s) the window still leaked %s, an escape rate of %s of all jobs. Sizing to the average delay instead of the worst one ships this leak.",
					Plural(pt.Window, "id", "ids"), Plural(pt.Escaped, "duplicate", "duplicates"), percent(pt.EscapeRate)))
			} else {
				out = append(out, fmt.Sprintf("At half the maximum delay (%s) nothing escaped on this run, but any redelivery delayed by more than %s would have.",
					Plural(pt.Window, "id", "ids"), Plural(pt.Window, "job", "jobs")))
			}
			break
		}
	}
	return out
}

func readWindowGrid(p experiments.WindowGridParams, r experiments.WindowGridResult) []string {
	if len(r.Cells) == 0 || len(r.Windows) == 0 || len(r.MaxDelays) == 0 {
		return []string{"The grid is empty, so there is nothing to read."}
	}
	windows := slices.Clone(r.Windows)
	slices.Sort(windows)
	cell := func(d, w int64) (int64, bool) {
		for _, c := range r.Cells {
			if c.MaxDelay == d && c.Window == w {
				return c.Escaped, true
			}
		}
		return 0, false
	}
	var rows []string
	var above, leaked, lucky int
	var oddCells []string
	allZero := true
	capped := false
	for _, d := range r.MaxDelays {
		bound := windowBound(d, r.Jobs)
		first := int64(-1)
		var lastLeak int64
		for _, w := range windows {
			e, ok := cell(d, w)
			if !ok {
				continue
			}
			if e > 0 {
				allZero = false
				lastLeak = e
			}
			switch {
			case w >= bound && e == 0:
				above++
			case w < bound && e > 0:
				leaked++
			case w < bound:
				lucky++
			default:
				oddCells = append(oddCells, fmt.Sprintf("window %s at delay %s (%s escaped)", count(w), count(d), count(e)))
			}
			if e == 0 && first < 0 {
				first = w
			}
		}
		name := fmt.Sprintf("delays up to %s", count(d))
		if d > r.Jobs {
			name += fmt.Sprintf(" (capped by the stream's %s)", Plural(r.Jobs, "job", "jobs"))
			capped = true
		}
		if first >= 0 {
			rows = append(rows, fmt.Sprintf("%s reach zero at window %s", name, count(first)))
		} else {
			rows = append(rows, fmt.Sprintf("%s never reach zero (the largest window, %s, still leaks %s)", name, count(windows[len(windows)-1]), count(lastLeak)))
		}
	}
	if allZero {
		if lucky == 0 {
			return []string{fmt.Sprintf("Every cell of the grid is zero, as it must be: every window tried is at least its row's maximum delay or the stream's %s, and such a window holds every key until its duplicate arrives. To see a leak, try a window smaller than both.",
				Plural(r.Jobs, "job", "jobs"))}
		}
		return []string{fmt.Sprintf("Every cell of the grid is zero, including %s below its row's bound. Either nothing crashed on %s, or the few redeliveries all came back soon enough; that is luck, not a guarantee.",
			Plural(int64(lucky), "cell", "cells"), Plural(r.Jobs, "job", "jobs"))}
	}
	out := []string{fmt.Sprintf("Row by row, on %s: %s.", Plural(r.Jobs, "job", "jobs"), strings.Join(rows, "; "))}
	s := "A window is sure to catch everything once it reaches its row's maximum delay"
	if capped {
		s += ", or the stream's length when that is shorter, since redeliveries still pending at the end are applied then and a window that long holds every id"
	}
	s += "."
	switch atOrAbove := int64(above + len(oddCells)); {
	case atOrAbove == 0:
		s += " No window tried reaches its row's bound."
	case len(oddCells) > 0:
		s += fmt.Sprintf(" %s at or above that bound, yet %s leaked (%s), which the mechanism says cannot happen.",
			Plural(atOrAbove, "cell is", "cells are"), count(int64(len(oddCells))), SayList(oddCells))
	case atOrAbove == 1:
		s += " 1 cell is at or above that bound, and it is zero, as it must be."
	default:
		s += fmt.Sprintf(" %s at or above that bound, and all of them are zero, as they must be.", Plural(atOrAbove, "cell is", "cells are"))
	}
	if leaked > 0 {
		s += fmt.Sprintf(" %s below the bound leaked.", Plural(int64(leaked), "cell", "cells"))
	}
	if lucky > 0 {
		s += fmt.Sprintf(" In %s below the bound, the window happened to catch everything: no redelivery came back late enough to outrun it, which is luck rather than a guarantee.",
			Plural(int64(lucky), "cell", "cells"))
	}
	return append(out, s)
}

// gridCell is the cell at row di (max delay) and column wi (window). Cells are laid out row by
// row, so this is an index, not a search: a 50 by 50 grid would otherwise cost millions of
// comparisons per render.
func gridCell(r experiments.WindowGridResult, di, wi int) int64 {
	return r.Cells[di*len(r.Windows)+wi].Escaped
}

// windowChart plots escape rate against window size on a value axis, with a vertical marker at the
// maximum redelivery delay: the point where the curve must reach zero.
func windowChart(domID string, r experiments.WindowResult) Chart {
	title := "Escape rate versus dedup window"
	build := func(narrow bool) (map[string]any, int) {
		c := charts.NewLine()
		windows := make([]float64, len(r.Points))
		for i, p := range r.Points {
			windows[i] = float64(p.Window)
		}
		// Windows that span two decades or more go on a log axis: 10, 100 and 1,000 would
		// otherwise share the first pixels.
		x, ticks := sweepAxis("window (ids)", "{value}", windows, 100)
		// The points at zero sit on the axis: their labels stand clear of the symbols.
		x.AxisLabel.Margin = 12
		width, right, bottom, height := wideWidth, 64, 40, 300
		// The marker's label: on a wide plot, above it and centred on its line (when the line is
		// the rightmost point, half the label would hang past the plot, so the right margin holds
		// it). On a phone's plot the axis name takes the space above it, so the label runs up the
		// line, inside the plot, where nothing but the falling curve's low end can be.
		mark := &opts.Label{Show: opts.Bool(true), Formatter: "max delay " + count(r.MaxDelay)}
		if narrow {
			// A phone has room for every window's label only standing on end, read from below;
			// the axis name goes below them.
			width, right, bottom, height = narrowWidth, 20, 64, 330
			x.AxisLabel.Rotate = 90
			x.AxisLabel.Interval = "0"
			x.NameGap = 52
			mark.Position = "insideEndTop"
		}
		top := legendHeight([]string{"escape rate"}, width)
		c.SetGlobalOptions(append(common(),
			charts.WithXAxisOpts(x),
			charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "escaped (%)", Min: 0, AxisLabel: &opts.AxisLabel{FontSize: minFont}}),
			charts.WithGridOpts(opts.Grid{Top: itoa(top + 26), Left: "8", Right: itoa(right), Bottom: itoa(bottom), ContainLabel: opts.Bool(true)}),
		)...)
		data := make([]opts.LineData, len(r.Points))
		for i, p := range r.Points {
			// Four significant digits, not two decimals: a rate of 0.001% must not plot as zero.
			y, _ := strconv.ParseFloat(strconv.FormatFloat(p.EscapeRate*100, 'g', 4, 64), 64)
			data[i] = opts.LineData{Value: []any{p.Window, y}}
		}
		c.AddSeries("escape rate", data,
			charts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: "max delay " + count(r.MaxDelay), XAxis: r.MaxDelay}),
			charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"}, Label: mark}),
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 7}),
		)
		c.Validate()
		return extend(c.JSON(), func(o map[string]any) {
			withTicksAt(o, ticks)
			leftNames(o)
		}), top + height
	}
	wide, h := build(false)
	narrow, nh := build(true)
	return Chart{ID: domID + "-curve", Title: title,
		Alt:     fmt.Sprintf("Line of the share of duplicates that escape at each window size, with a marker at the maximum redelivery delay of %s jobs.", count(r.MaxDelay)),
		Options: wide, Narrow: narrow, Height: h, NarrowHeight: nh}
}

// gridChart groups bars by maximum delay, one bar per window: the bars vanish exactly where the
// window reaches the delay. (A heatmap would need echarts' full build, three times the bytes.)
func gridChart(domID string, r experiments.WindowGridResult) Chart {
	cats := make([]string, len(r.MaxDelays))
	for i, d := range r.MaxDelays {
		cats[i] = count(d)
	}
	series := make([]barSeries, len(r.Windows))
	for wi, w := range r.Windows {
		series[wi].name = "window " + count(w)
		for di := range r.MaxDelays {
			series[wi].values = append(series[wi].values, gridCell(r, di, wi))
		}
	}
	c := barChart(domID+"-grid", "Escaped duplicates: window against max delay",
		"Grouped bars of escaped duplicates for each maximum redelivery delay, one bar per window size; zero wherever the window reaches the delay.",
		"max redelivery delay (jobs)", "duplicates escaped", cats, series)
	return c
}
