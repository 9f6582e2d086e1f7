package pages

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Chart is one echarts instance: the options are built with go-echarts' typed API and shipped as
// JSON for static/app.js to draw, so no inline script is ever emitted.
type Chart struct {
	// ID is stable (derived from the experiment and the chart's role) so output is reproducible.
	ID    string
	Title string
	// Alt describes the chart in one sentence for screen readers; the table beside it has the data.
	Alt     string
	Options map[string]any
}

// common options every chart shares: a transparent background (the page's theme shows through),
// an axis tooltip and a legend that wraps on a phone.
func common(title string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{BackgroundColor: "transparent"}),
		charts.WithTitleOpts(opts.Title{Title: title, Left: "center", TitleStyle: &opts.TextStyle{FontSize: 14}}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "28", Type: "scroll"}),
		charts.WithGridOpts(opts.Grid{Top: "70", Left: "60", Right: "30", Bottom: "60", ContainLabel: opts.Bool(true)}),
		charts.WithAnimation(false),
	}
}

// barChart draws grouped bars. Categories with long names (design names, orderings) are drawn as
// horizontal bars, so every name stays readable on a phone instead of being hidden by overlap.
func barChart(id, title, alt, xName, yName string, cats []string, series []barSeries) Chart {
	c := charts.NewBar()
	horizontal := false
	for _, cat := range cats {
		if len(cat) > 12 {
			horizontal = true
		}
	}
	g := common(title)
	if horizontal {
		c.XYReversal()
		g = append(g,
			charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: yName, NameLocation: "middle", NameGap: 28, SplitNumber: 3, MinInterval: 1,
				AxisLabel: &opts.AxisLabel{HideOverlap: opts.Bool(true)}}),
			charts.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true), AxisLabel: &opts.AxisLabel{Interval: "0"}}),
			charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		)
	} else {
		g = append(g,
			charts.WithXAxisOpts(opts.XAxis{Name: xName, NameLocation: "middle", NameGap: 30, AxisLabel: &opts.AxisLabel{Interval: "0", HideOverlap: opts.Bool(true)}}),
			charts.WithYAxisOpts(opts.YAxis{Name: yName}),
		)
	}
	c.SetGlobalOptions(g...)
	c.SetXAxis(cats)
	for _, ser := range series {
		data := make([]opts.BarData, len(ser.values))
		for i, v := range ser.values {
			data[i] = opts.BarData{Value: v}
		}
		c.AddSeries(ser.name, data)
	}
	c.Validate()
	return Chart{ID: id, Title: title, Alt: alt, Options: c.JSON()}
}

// barSeries is one named series of a bar chart.
type barSeries struct {
	name   string
	values []int64
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
