package pages

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"effectivelyonce/experiments"
)

// A spread is drawn from its counts alone, the same way for every experiment: a sweep over numbers
// (windows, timeouts) as lines, anything else as bars. Each chart shows the median, a shaded band
// from the 5th to the 95th percentile, and the form's own run; the band's edges and the extremes
// are series with nothing drawn, there only so the axis tooltip lists them.

// The series names a band chart draws; bandHidden are listed by the tooltip only.
const (
	bandFloor  = "band floor"
	bandName   = "5th–95th percentile"
	bandMedian = "median"
	bandRun    = "this run"
)

var bandHidden = []string{"p5", "p95", "min", "max"}

// bandCharts draws a spread: one chart per count for a sweep and for up to three counts, else one
// bar chart of every count.
func bandCharts(domID, experiment string, s experiments.SpreadResult) []Chart {
	var names []string
	var points []string
	numeric := true
	for _, c := range s.Counts {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
		if !slices.Contains(points, c.Point) {
			points = append(points, c.Point)
			if _, err := strconv.ParseFloat(c.Point, 64); err != nil {
				numeric = false
			}
		}
	}
	numeric = numeric && len(points) > 1
	var out []Chart
	if !numeric && len(names) > 3 {
		cs := slices.Clone(s.Counts)
		labels := make([]string, len(cs))
		for i, c := range cs {
			labels[i] = pointLabel(experiment, c.Point) + ": " + countWords(c.Name)
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
		title := fmt.Sprintf("%s over %d seeds: median and middle 90%%", SayCap(countWords(name)), s.N)
		if numeric {
			out = append(out, bandLines(id, title, experiment, name, cs, s.N))
			continue
		}
		labels := make([]string, len(cs))
		for j, c := range cs {
			labels[j] = pointLabel(experiment, c.Point)
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
func bandLines(id, title, experiment, name string, cs []experiments.SpreadCount, n int) Chart {
	build := func(narrow bool) (map[string]any, int) {
		xs := make([]float64, len(cs))
		for i, c := range cs {
			xs[i], _ = strconv.ParseFloat(c.Point, 64)
		}
		xName := pointWords[experiment]
		if xName == "" {
			xName = "point"
		}
		x, ticks := sweepAxis(xName, "{value}", xs, 100)
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
			charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: countWords(name), Min: 0, AxisLabel: &opts.AxisLabel{FontSize: minFont}}),
			charts.WithGridOpts(opts.Grid{Top: itoa(top + 26), Left: "8", Right: "24", Bottom: "64", ContainLabel: opts.Bool(true)}),
		)...)
		series := func(v func(experiments.SpreadCount) float64) []opts.LineData {
			out := make([]opts.LineData, len(cs))
			for i, c := range cs {
				out[i] = opts.LineData{Value: []any{xs[i], v(c)}}
			}
			return out
		}
		c.AddSeries(bandFloor, series(func(c experiments.SpreadCount) float64 { return c.P5 }), charts.WithLineChartOpts(opts.LineChart{Stack: "band", ShowSymbol: opts.Bool(false)}))
		c.AddSeries(bandName, series(func(c experiments.SpreadCount) float64 { return c.P95 - c.P5 }), charts.WithLineChartOpts(opts.LineChart{Stack: "band", ShowSymbol: opts.Bool(false)}),
			charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.3)}))
		c.AddSeries(bandMedian, series(func(c experiments.SpreadCount) float64 { return c.Median }), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 7}))
		c.AddSeries(bandRun, series(func(c experiments.SpreadCount) float64 { return c.Value }), charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 9, Symbol: "diamond"}),
			charts.WithLineStyleOpts(opts.LineStyle{Type: "dashed"}))
		addHidden(c, cs, func(v float64, i int) opts.LineData { return opts.LineData{Value: []any{xs[i], v}} })
		c.Validate()
		return extend(c.JSON(), func(o map[string]any) {
			withTicksAt(o, ticks)
			leftNames(o)
			styleBand(o)
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
			v := map[string]float64{"p5": sc.P5, "p95": sc.P95, "min": sc.Min, "max": sc.Max}[h]
			data[i] = point(v, i)
		}
		c.AddSeries(h, data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}))
	}
}

// styleBand sets what go-echarts has no field for: the floor and the hidden series draw nothing,
// the band and floor stay out of the tooltip (its p5 and p95 rows say the same in numbers), and the
// legend names only what is drawn.
func styleBand(o map[string]any) {
	for _, s := range list(o["series"]) {
		name, _ := s["name"].(string)
		switch {
		case name == bandFloor:
			s["lineStyle"] = map[string]any{"opacity": 0}
			s["itemStyle"] = map[string]any{"color": "transparent"}
			s["tooltip"] = map[string]any{"show": false}
			s["silent"] = true
		case name == bandName:
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
		l["data"] = []string{bandName, bandMedian, bandRun}
	}
}

// bandBars draws counts without a numeric axis as bars of the median, with the band as a second,
// translucent bar laid over each (barGap -100%) that stands from p5 to p95 on a transparent floor,
// and the form's own run as a diamond.
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
		bar.AddSeries(bandMedian, bars(func(c experiments.SpreadCount) float64 { return c.Median }),
			charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.BarMaxWidth = "44" }))
		bar.AddSeries(bandFloor, bars(func(c experiments.SpreadCount) float64 { return c.P5 }),
			charts.WithBarChartOpts(opts.BarChart{Stack: "band"}), charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.BarMaxWidth = "44" }))
		bar.AddSeries(bandName, bars(func(c experiments.SpreadCount) float64 { return c.P95 - c.P5 }),
			charts.WithBarChartOpts(opts.BarChart{Stack: "band", BarGap: "-100%"}), charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.BarMaxWidth = "44" }))
		line := charts.NewLine()
		lineData := func(v float64) opts.LineData { return opts.LineData{Value: v} }
		run := make([]opts.LineData, len(cs))
		for i, c := range cs {
			run[i] = lineData(c.Value)
		}
		line.AddSeries(bandRun, run, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 11, Symbol: "diamond"}))
		addHidden(line, cs, func(v float64, _ int) opts.LineData { return lineData(v) })
		bar.Overlap(line)
		bar.Validate()
		return extend(bar.JSON(), func(o map[string]any) {
			styleBand(o)
			for _, s := range list(o["series"]) {
				switch s["name"] {
				case bandName:
					// Over the median's bar, so the band shows where it covers the bar too.
					s["itemStyle"] = map[string]any{"opacity": 0.35, "borderWidth": 1, "borderType": "dashed"}
					s["z"] = 3
				case bandRun:
					s["lineStyle"] = map[string]any{"opacity": 0}
					s["z"] = 4
				}
			}
		}), height
	}
	wide, h := build(false)
	narrow, nh := build(true)
	return Chart{ID: id, Title: title, Alt: bandAlt("Bars", n), Options: wide, Narrow: narrow, Height: h, NarrowHeight: nh}
}
