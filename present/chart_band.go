package present

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"effectivelyonce/experiments"
)

// A spread is drawn from its counts alone, the same way for every experiment: a sweep over numbers
// (windows, timeouts) as lines, anything else as bars. Each chart shows the median, a shaded band
// from the 5th to the 95th percentile, and the form's own run; the band's edges and the extremes
// are series with nothing drawn, there only so the axis tooltip lists them, in words. Every value
// sent is rounded to a tenth (tenths), so a tooltip never shows 432.65000000000003.

// The series names a band chart draws; bandHidden are listed by the tooltip only.
const (
	bandFloor  = "band floor"
	bandName   = "5th–95th percentile"
	bandMedian = "median"
	bandRun    = "this run"
)

// BandSeriesID marks the band's series in a chart's options: app.js sets its opacity from the
// theme of the page's colour scheme (spreadBand in ChartThemes), so one set of options shows the
// band as clearly on a dark panel as on a light one.
const BandSeriesID = "spread-band"

var bandHidden = []string{"5th percentile", "95th percentile", "lowest", "highest"}

// hiddenValue is the value a bandHidden series shows for c.
func hiddenValue(name string, c experiments.SpreadCount) float64 {
	switch name {
	case "5th percentile":
		return tenths(c.P5)
	case "95th percentile":
		return tenths(c.P95)
	case "lowest":
		return c.Min
	}
	return c.Max
}

// bandWidth is the height of the band stacked on its floor, from the rounded edges, so that the
// floor and the band add up to the 95th percentile the tooltip shows.
func bandWidth(c experiments.SpreadCount) float64 { return tenths(tenths(c.P95) - tenths(c.P5)) }

// BandCharts draws a spread: one chart per count for a sweep and for up to three counts, else one
// bar chart of every count.
func BandCharts(domID, experiment string, s experiments.SpreadResult) []Chart {
	var names []string
	var points []string
	for _, c := range s.Counts {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
		if !slices.Contains(points, c.Point) {
			points = append(points, c.Point)
		}
	}
	// A sweep over more than one number is drawn on its axis (the presenter's band); anything
	// else, and a sweep of one point, as bars.
	var axis *bandAxis
	if pr, ok := PresenterFor(experiment); ok {
		axis = pr.band
	}
	e, _ := experiments.Lookup(experiment)
	numeric := axis != nil && e != nil && e.PointKind() == experiments.Sweep && len(points) > 1
	var out []Chart
	if !numeric && len(names) > 3 {
		cs := slices.Clone(s.Counts)
		labels := make([]string, len(cs))
		for i, c := range cs {
			labels[i] = pointLabel(experiment, c) + ": " + countWords(experiment, c.Name)
		}
		return []Chart{bandBars(domID+"-band", fmt.Sprintf("Every count over %d seeds", s.N), labels, cs, s.N)}
	}
	for i, name := range names {
		var cs []experiments.SpreadCount
		for _, c := range s.Counts {
			if c.Name == name {
				cs = append(cs, c)
			}
		}
		id := domID + "-band-" + strconv.Itoa(i+1)
		title := fmt.Sprintf("%s over %d seeds: median and middle 90%%", countTitle(experiment, name), s.N)
		if numeric {
			out = append(out, bandLines(id, title, *axis, experiment, name, cs, s.N))
			continue
		}
		labels := make([]string, len(cs))
		for j, c := range cs {
			labels[j] = pointLabel(experiment, c)
		}
		out = append(out, bandBars(id, title, labels, cs, s.N))
	}
	return out
}

// bandAlt describes a band chart for a screen reader; the spread table beside it has the numbers.
func bandAlt(kind string, n int) string {
	return fmt.Sprintf("%s of the median over %d seeds, with a shaded band from the 5th to the 95th percentile and a mark for this run's own value; the table below lists every value.", kind, n)
}

// bandLines draws one count of a sweep: the band is a transparent floor at p5 with the band's
// width stacked on it as a filled area, so the fill runs from p5 to p95.
func bandLines(id, title string, ax bandAxis, experiment, name string, cs []experiments.SpreadCount, n int) Chart {
	build := func(narrow bool) (map[string]any, int) {
		xs := make([]float64, len(cs))
		for i, c := range cs {
			xs[i] = c.At.X
		}
		x, ticks := sweepAxis(ax.name, ax.format, xs, ax.ratio)
		width := wideWidth
		if narrow {
			width = narrowWidth
			x.AxisLabel.Rotate = 90
			x.NameGap = 52
		}
		top := legendHeight([]string{bandName, bandMedian, bandRun}, width)
		c := charts.NewLine()
		c.SetGlobalOptions(append(common(),
			charts.WithXAxisOpts(x),
			charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: countWords(experiment, name), Min: 0, AxisLabel: &opts.AxisLabel{FontSize: minFont}}),
			charts.WithGridOpts(opts.Grid{Top: itoa(top + 26), Left: "8", Right: "24", Bottom: "64", ContainLabel: opts.Bool(true)}),
		)...)
		series := func(v func(experiments.SpreadCount) float64) []opts.LineData {
			out := make([]opts.LineData, len(cs))
			for i, c := range cs {
				out[i] = opts.LineData{Value: []any{xs[i], v(c)}}
			}
			return out
		}
		c.AddSeries(bandFloor, series(func(c experiments.SpreadCount) float64 { return tenths(c.P5) }), charts.WithLineChartOpts(opts.LineChart{Stack: "band", ShowSymbol: opts.Bool(false)}))
		c.AddSeries(bandName, series(bandWidth), charts.WithLineChartOpts(opts.LineChart{Stack: "band", ShowSymbol: opts.Bool(false)}),
			charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.3)}))
		c.AddSeries(bandMedian, series(func(c experiments.SpreadCount) float64 { return tenths(c.Median) }), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 7}))
		c.AddSeries(bandRun, series(func(c experiments.SpreadCount) float64 { return c.Value }), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 9, Symbol: "diamond"}),
			charts.WithLineStyleOpts(opts.LineStyle{Type: "dashed"}))
		addHidden(c, cs, func(v float64, i int) opts.LineData { return opts.LineData{Value: []any{xs[i], v}} })
		c.Validate()
		whole := !slices.ContainsFunc(xs, func(x float64) bool { return x != math.Trunc(x) })
		return extend(c.JSON(), func(o map[string]any) {
			withTicksAt(o, ticks)
			leftNames(o)
			styleBand(o)
			if whole { // the tooltip's heading is the point: 1,000, not 1,000.00
				for _, ax := range Objects(o["xAxis"]) {
					ax["axisPointer"] = map[string]any{"label": map[string]any{"precision": 0}}
				}
			}
		}), top + 340
	}
	wide, h := build(false)
	narrow, nh := build(true)
	return Chart{ID: id, Title: title, Alt: bandAlt("Line", n), Options: wide, Narrow: narrow, Height: h, NarrowHeight: nh}
}

// addHidden adds the series only the tooltip shows: the band's edges and the extremes.
func addHidden(c *charts.Line, cs []experiments.SpreadCount, point func(float64, int) opts.LineData) {
	for _, h := range bandHidden {
		data := make([]opts.LineData, len(cs))
		for i, sc := range cs {
			data[i] = point(hiddenValue(h, sc), i)
		}
		c.AddSeries(h, data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	}
}

// styleBand sets what go-echarts has no field for: the floor and the hidden series draw nothing,
// the band and floor stay out of the tooltip (its p5 and p95 rows say the same in numbers), and the
// legend names only what is drawn.
func styleBand(o map[string]any) {
	for _, s := range Objects(o["series"]) {
		name, _ := s["name"].(string)
		switch {
		case name == bandFloor:
			s["lineStyle"] = map[string]any{"opacity": 0}
			s["itemStyle"] = map[string]any{"color": "transparent"}
			s["tooltip"] = map[string]any{"show": false}
			s["silent"] = true
		case name == bandName:
			s["id"] = BandSeriesID
			s["lineStyle"] = map[string]any{"opacity": 0}
			s["tooltip"] = map[string]any{"show": false}
			s["silent"] = true
		case slices.Contains(bandHidden, name):
			s["lineStyle"] = map[string]any{"opacity": 0}
			s["itemStyle"] = map[string]any{"opacity": 0}
			s["symbol"] = "none"
			s["silent"] = true
		}
	}
	if l, ok := o["legend"].(map[string]any); ok {
		// The band's key is a filled swatch, like the band; as a line with no symbol it would
		// show an empty ring.
		l["data"] = []any{map[string]any{"name": bandName, "icon": "roundRect"}, bandMedian, bandRun}
	}
}

// bandBars draws counts without a numeric axis as the band itself: a translucent bar from p5 to
// p95, stacked on a transparent floor, with the median as a short line across it and the form's
// own run as a diamond. (A bar of the median under the band hid the band's lower part, so the
// middle 90% read as starting at the median.)
func bandBars(id, title string, labels []string, cs []experiments.SpreadCount, n int) Chart {
	horizontal := slices.ContainsFunc(labels, func(l string) bool { return len(l) > 12 })
	build := func(narrow bool) (map[string]any, int) {
		flip := horizontal || narrow
		width := wideWidth
		if narrow {
			width = narrowWidth
		}
		top := legendHeight([]string{bandName, bandMedian, bandRun}, width)
		cats := make([]string, len(labels))
		for i, l := range labels {
			cats[i] = l
			if narrow {
				cats[i] = breakName(l, 17)
			}
		}
		bar := charts.NewBar()
		height := max(320, top+280)
		g := common()
		if flip {
			bar.XYReversal()
			height = max(200, top+len(cats)*34+90)
			g = append(g,
				charts.WithXAxisOpts(opts.XAxis{Type: "value", SplitNumber: 3, AxisLabel: &opts.AxisLabel{HideOverlap: opts.Bool(true), FontSize: minFont}}),
				charts.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true), AxisLabel: &opts.AxisLabel{Interval: "0", FontSize: minFont}}),
				charts.WithGridOpts(opts.Grid{Top: itoa(top), Left: "4", Right: "24", Bottom: "30", ContainLabel: opts.Bool(true)}))
		} else {
			g = append(g,
				charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Interval: "0", HideOverlap: opts.Bool(true), FontSize: minFont}}),
				charts.WithYAxisOpts(opts.YAxis{AxisLabel: &opts.AxisLabel{FontSize: minFont}}),
				charts.WithGridOpts(opts.Grid{Top: itoa(top + 10), Left: "8", Right: "16", Bottom: "30", ContainLabel: opts.Bool(true)}))
		}
		bar.SetGlobalOptions(g...)
		bar.SetXAxis(cats)
		bars := func(v func(experiments.SpreadCount) float64) []opts.BarData {
			out := make([]opts.BarData, len(cs))
			for i, c := range cs {
				out[i] = opts.BarData{Value: v(c)}
			}
			return out
		}
		bar.AddSeries(bandFloor, bars(func(c experiments.SpreadCount) float64 { return tenths(c.P5) }),
			charts.WithBarChartOpts(opts.BarChart{Stack: "band"}), charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.BarMaxWidth = "44" }))
		bar.AddSeries(bandName, bars(bandWidth),
			charts.WithBarChartOpts(opts.BarChart{Stack: "band"}), charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.BarMaxWidth = "44" }))
		line := charts.NewLine()
		lineData := func(v float64) opts.LineData { return opts.LineData{Value: v} }
		median, run := make([]opts.LineData, len(cs)), make([]opts.LineData, len(cs))
		for i, c := range cs {
			median[i], run[i] = lineData(tenths(c.Median)), lineData(c.Value)
		}
		line.AddSeries(bandMedian, median, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), Symbol: "rect"}))
		line.AddSeries(bandRun, run, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 11, Symbol: "diamond"}))
		addHidden(line, cs, func(v float64, _ int) opts.LineData { return lineData(v) })
		bar.Overlap(line)
		bar.Validate()
		// The median's mark is a line across the bar: tall and thin on bars that stand, wide and
		// flat on bars that lie.
		mark := []int{26, 3}
		if flip {
			mark = []int{3, 26}
		}
		return extend(bar.JSON(), func(o map[string]any) {
			styleBand(o)
			for _, s := range Objects(o["series"]) {
				switch s["name"] {
				case bandName:
					s["itemStyle"] = map[string]any{"opacity": 0.35, "borderWidth": 1, "borderType": "dashed"}
				case bandMedian:
					s["symbolSize"] = mark
					s["lineStyle"] = map[string]any{"opacity": 0}
					s["z"] = 4
				case bandRun:
					s["lineStyle"] = map[string]any{"opacity": 0}
					s["z"] = 5
				}
			}
		}), height
	}
	wide, h := build(false)
	narrow, nh := build(true)
	return Chart{ID: id, Title: title, Alt: bandAlt("Bars", n), Options: wide, Narrow: narrow, Height: h, NarrowHeight: nh}
}
