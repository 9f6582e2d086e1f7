package present

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// Chart is one echarts instance: the options are built with go-echarts' typed API and shipped as
// JSON for static/app.js to draw, so no inline script is ever emitted.
//
// A chart comes in two layouts, because a phone's column is too narrow for the desktop one: Options
// for a column of NarrowBelow pixels or more, Narrow below that (horizontal bars, category names
// broken over lines, a legend that wraps). app.js picks one by the width of the chart's own box and
// draws again when a resize crosses the line. Height and NarrowHeight are the heights, in pixels,
// that each layout was laid out for: a horizontal bar chart grows with its bars.
type Chart struct {
	// ID is stable (derived from the experiment and the chart's role) so output is reproducible.
	ID string
	// Title is shown above the chart as its caption, in HTML: it wraps on a phone and takes the
	// page's colours, which text drawn inside the chart cannot.
	Title string
	// Alt describes the chart in one sentence for screen readers; the table beside it has the data.
	Alt          string
	Options      map[string]any
	Narrow       map[string]any
	Height       int
	NarrowHeight int
}

// NarrowBelow is the width of a chart's box, in CSS pixels, below which app.js draws the Narrow
// layout.
const NarrowBelow = 500

// Text sizes inside a chart, in pixels: nothing is drawn smaller than minFont.
const (
	minFont   = 12
	labelFont = 12
)

// chartTheme names the echarts theme app.js registers from ChartThemes; the options carry no
// colours of their own, so one set of options serves the light and the dark page.
const chartTheme = "eo"

// common options every chart shares: a transparent background (the page's theme shows through),
// an axis tooltip, a legend that wraps, and no title (the figure's caption holds it). go-echarts
// only writes its default palette into the options for its "white" theme, so naming ours leaves the
// palette to the theme.
func common() []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{BackgroundColor: "transparent", Theme: chartTheme}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "0", Left: "center", Type: "plain",
			TextStyle: &opts.TextStyle{FontSize: minFont}}),
		charts.WithAnimation(false),
	}
}

// legendRows estimates how many rows the legend needs at width px: each item is its symbol, a gap
// and its name at about 7 px a character.
func legendRows(names []string, width int) int {
	rows, used := 1, 0
	for _, n := range names {
		w := 25 + 5 + 7*len([]rune(n)) + 10
		if used > 0 && used+w > width {
			rows++
			used = 0
		}
		used += w
	}
	return rows
}

// legendHeight is the space, in pixels, the legend takes above the plot.
func legendHeight(names []string, width int) int { return legendRows(names, width)*22 + 10 }

// layoutWidths are the widths charts are laid out for: the narrowest desktop column and a phone.
const (
	wideWidth   = 520
	narrowWidth = 300
)

// barSeries is one named series of a bar chart.
type barSeries struct {
	name   string
	values []int64
}

// barOption changes how barChart draws.
type barOption func(*barConf)

type barConf struct{ focus string }

// withFocus marks the category a page is about: its name is drawn bold. "" marks none.
func withFocus(cat string) barOption { return func(c *barConf) { c.focus = cat } }

// minBarPx is the least length of a bar that is not zero: a count of 20 beside one of 20,000 is
// still a bar a reader can see, and its label says exactly how long it is.
const minBarPx = 3

// barChart draws grouped bars with the Exact count at the end of every bar. On a wide column,
// categories with long names (design names, orderings) are drawn as horizontal bars, so every name
// stays readable; on a phone every bar chart is horizontal, its names broken over lines.
func barChart(id, title, alt, xName, yName string, cats []string, series []barSeries, options ...barOption) Chart {
	var conf barConf
	for _, o := range options {
		o(&conf)
	}
	horizontal := slices.ContainsFunc(cats, func(c string) bool { return len(c) > 12 })
	wide, wideH := buildBars(conf, xName, yName, cats, series, horizontal, false)
	narrow, narrowH := buildBars(conf, xName, yName, cats, series, true, true)
	return Chart{ID: id, Title: title, Alt: alt, Options: wide, Narrow: narrow, Height: wideH, NarrowHeight: narrowH}
}

// buildBars lays one layout of a bar chart out and returns its options and height.
func buildBars(conf barConf, xName, yName string, cats []string, series []barSeries, horizontal, narrow bool) (map[string]any, int) {
	c := charts.NewBar()
	names := make([]string, len(series))
	for i, s := range series {
		names[i] = s.name
	}
	width := wideWidth
	if narrow {
		width = narrowWidth
	}
	top := legendHeight(names, width)
	g := common()
	axisCats := make([]any, len(cats))
	lines := 1
	for i, cat := range cats {
		name := cat
		if narrow {
			// Broken over lines by hand, at spaces and hyphens: echarts only breaks at spaces,
			// and "dual-write-publish-first" would otherwise take the bars' room.
			name = breakName(cat, 17)
			lines = max(lines, strings.Count(name, "\n")+1)
		}
		if cat == conf.focus && conf.focus != "" {
			axisCats[i] = map[string]any{"value": name, "textStyle": map[string]any{"fontWeight": "bold"}}
		} else {
			axisCats[i] = name
		}
	}
	height := 320
	labelPos := "top"
	if horizontal {
		labelPos = "right"
		c.XYReversal()
		catLabel := &opts.AxisLabel{Interval: "0", FontSize: minFont}
		cat := opts.YAxis{Type: "category", Inverse: opts.Bool(true), AxisLabel: catLabel}
		if xName != "" {
			// Named at the top of the axis (the start of an inverted one), above the first bars.
			cat.Name, cat.NameLocation, cat.NameGap = xName, "start", 10
			top += 22
		}
		g = append(g,
			charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: yName, NameLocation: "middle", NameGap: 26, SplitNumber: 3, MinInterval: 1,
				AxisLabel: &opts.AxisLabel{HideOverlap: opts.Bool(true), FontSize: minFont}}),
			charts.WithYAxisOpts(cat),
			// The value labels stand right of the bars: the right margin keeps the longest inside.
			charts.WithGridOpts(opts.Grid{Top: itoa(top), Left: "4", Right: "48", Bottom: "44", ContainLabel: opts.Bool(true)}),
		)
		rowPx := max(len(series)*16, lines*15) + 18
		height = top + len(cats)*rowPx + 56
		height = max(height, 200)
	} else {
		g = append(g,
			charts.WithXAxisOpts(opts.XAxis{Name: xName, NameLocation: "middle", NameGap: 30,
				AxisLabel: &opts.AxisLabel{Interval: "0", HideOverlap: opts.Bool(true), FontSize: minFont}}),
			charts.WithYAxisOpts(opts.YAxis{Name: yName, AxisLabel: &opts.AxisLabel{FontSize: minFont}}),
			charts.WithGridOpts(opts.Grid{Top: itoa(top + 24), Left: "8", Right: "16", Bottom: "40", ContainLabel: opts.Bool(true)}),
		)
		height = max(height, top+280)
	}
	c.SetGlobalOptions(g...)
	c.SetXAxis(axisCats)
	for _, ser := range series {
		data := make([]opts.BarData, len(ser.values))
		for i, v := range ser.values {
			d := opts.BarData{Value: v, Label: &opts.Label{Show: opts.Bool(true), Position: labelPos, Formatter: count(v)}}
			if v == 0 {
				// A zero keeps its label "0" but no bar: the minimum length is for counts above zero.
				d.ItemStyle = &opts.ItemStyle{Color: "transparent"}
			}
			data[i] = d
		}
		c.AddSeries(ser.name, data, charts.WithLabelLayoutOpts(opts.LabelLayout{HideOverlap: opts.Bool(true)}),
			charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.BarMaxWidth = "44" }))
	}
	c.Validate()
	out := extend(c.JSON(), func(o map[string]any) {
		for _, s := range Objects(o["series"]) {
			s["barMinHeight"] = minBarPx
		}
		leftNames(o)
		// A name broken over lines needs its line height as a number (go-echarts writes a string).
		for _, ax := range append(Objects(o["xAxis"]), Objects(o["yAxis"])...) {
			if l, ok := ax["axisLabel"].(map[string]any); ok {
				l["lineHeight"] = 15
			}
		}
	})
	return out, height
}

// breakName breaks a category name into lines of at most width characters where it can: after a
// space or a hyphen. A word longer than width stays whole on its own line.
func breakName(name string, width int) string {
	if a, b, ok := strings.Cut(name, " / "); ok {
		return breakName(a+" /", width) + "\n" + breakName(b, width)
	}
	var lines []string
	line := ""
	for name != "" {
		i := strings.IndexAny(name, " -")
		word := name
		if i >= 0 {
			word = name[:i+1]
		}
		name = name[len(word):]
		if line != "" && len(strings.TrimSpace(line+word)) > width {
			lines = append(lines, strings.TrimSpace(line))
			line = ""
		}
		line += word
	}
	if strings.TrimSpace(line) != "" {
		lines = append(lines, strings.TrimSpace(line))
	}
	return strings.Join(lines, "\n")
}

// column reads one series' value from a result row.
type column[T any] struct {
	name  string
	value func(T) int64
}

// rowBars lays result rows out as bar categories (one per row) and one series per column.
func rowBars[T any](rows []T, label func(T) string, cols ...column[T]) ([]string, []barSeries) {
	cats := make([]string, len(rows))
	series := make([]barSeries, len(cols))
	for i, c := range cols {
		series[i].name = c.name
	}
	for r, row := range rows {
		cats[r] = label(row)
		for i, c := range cols {
			series[i].values = append(series[i].values, c.value(row))
		}
	}
	return cats, series
}

// sweepAxis is the x axis of a sweep over vals (window sizes, timeouts): a value axis, so the
// points stand at their true distances, and a log axis when the values are all above zero and the
// largest is at least minRatio times the smallest, so that 10, 100 and 1,000 do not pile up at
// zero. Its labels and ticks are the swept values themselves.
func sweepAxis(name, format string, vals []float64, minRatio float64) (opts.XAxis, []float64) {
	ax := opts.XAxis{Type: "value", Name: name, NameLocation: "middle", NameGap: 28,
		AxisLabel: &opts.AxisLabel{HideOverlap: opts.Bool(true), FontSize: minFont, Formatter: types.FuncStr(format)}}
	if isLogSpan(vals, minRatio) {
		ax.Type = "log"
		lo, hi := slices.Min(vals), slices.Max(vals)
		// A little room either side so the first and last points are not on the frame.
		ax.Min = lo / math.Pow(hi/lo, 0.06)
		ax.Max = hi * math.Pow(hi/lo, 0.06)
		if lo == hi {
			ax.Min, ax.Max = lo/2, hi*2
		}
	} else {
		ax.Min = 0
	}
	ticks := slices.Clone(vals)
	slices.Sort(ticks)
	return ax, slices.Compact(ticks)
}

// isLogSpan reports whether vals belong on a log axis: all above zero, spanning minRatio or more.
func isLogSpan(vals []float64, minRatio float64) bool {
	if len(vals) == 0 || slices.Min(vals) <= 0 {
		return false
	}
	return slices.Max(vals)/slices.Min(vals) >= minRatio
}

// withTicksAt puts the labels and ticks of the x axes at the swept values (customValues is an
// echarts option go-echarts has no field for).
func withTicksAt(o map[string]any, ticks []float64) {
	for _, ax := range Objects(o["xAxis"]) {
		label, _ := ax["axisLabel"].(map[string]any)
		if label == nil {
			label = map[string]any{}
			ax["axisLabel"] = label
		}
		label["customValues"] = ticks
		ax["axisTick"] = map[string]any{"customValues": ticks}
	}
}

// leftNames starts the name of each y axis at the axis and runs it right, over the plot: echarts
// centres it on the axis, which puts its first half outside the chart.
func leftNames(o map[string]any) {
	for _, y := range Objects(o["yAxis"]) {
		if _, ok := y["name"]; ok && y["nameTextStyle"] == nil {
			y["nameTextStyle"] = map[string]any{"align": "left"}
		}
	}
}

// withCountLabels writes each point's count, with thousands separators, as the label of every
// point of the named series (go-echarts' line data has no label of its own).
func withCountLabels(o map[string]any, names ...string) {
	for _, s := range Objects(o["series"]) {
		if name, _ := s["name"].(string); !slices.Contains(names, name) {
			continue
		}
		for _, d := range Objects(s["data"]) {
			v, _ := d["value"].([]any)
			if len(v) < 2 {
				continue
			}
			if y, ok := v[len(v)-1].(float64); ok {
				d["label"] = map[string]any{"formatter": count(int64(math.Round(y)))}
			}
		}
	}
}

// extend adds options go-echarts' typed API has no field for, on the JSON form of the options
// (so the result is exactly what the browser receives). Everything else is built with the typed
// API; this is only for the few echarts options it lacks (barMinHeight, customValues).
func extend(o map[string]any, f func(map[string]any)) map[string]any {
	b, err := json.Marshal(o)
	if err != nil {
		panic("chart options do not marshal: " + err.Error()) // built from our own types: a bug
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		panic("chart options do not unmarshal: " + err.Error())
	}
	f(out)
	return out
}

// Objects reads an options entry that is a list of objects (series, axes), or one object.
func Objects(v any) []map[string]any {
	var out []map[string]any
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			if m, ok := x.(map[string]any); ok {
				out = append(out, m)
			}
		}
	case map[string]any:
		out = append(out, v)
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }
