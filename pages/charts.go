package pages

import (
	"fmt"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"effectivelyonce/experiments"
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

// Charts draws an experiment's result; domID prefixes chart ids so two experiments on one page never
// collide. Results that are best read as a table alone (claims, scale) give nil.
func Charts(domID string, params, result any) []Chart {
	switch r := result.(type) {
	case experiments.AssemblyResult:
		cats, series := rowBars(r.Rows, func(x experiments.AssemblyRow) string { return string(x.Design) },
			column[experiments.AssemblyRow]{"lost", func(x experiments.AssemblyRow) int64 { return x.Lost }},
			column[experiments.AssemblyRow]{"duplicated", func(x experiments.AssemblyRow) int64 { return x.Duplicated }})
		return []Chart{barChart(domID+"-bars", "Lost and duplicated jobs per design",
			"Grouped bars of lost and duplicated jobs for each of the four designs; the table below holds the numbers.",
			"", "jobs", cats, series)}
	case experiments.CrashSweepResult:
		cats, series := rowBars(r.Points, func(x experiments.CrashSweepPoint) string { return rate(x.CrashRate) },
			column[experiments.CrashSweepPoint]{"lost", func(x experiments.CrashSweepPoint) int64 { return x.Lost }},
			column[experiments.CrashSweepPoint]{"duplicated", func(x experiments.CrashSweepPoint) int64 { return x.Duplicated }},
			column[experiments.CrashSweepPoint]{"errors raised", func(x experiments.CrashSweepPoint) int64 { return x.Errors }})
		return []Chart{barChart(domID+"-bars", "Ack before work: lost, duplicated, errors",
			"Bars of jobs lost per crash rate, beside duplicated jobs and errors raised, both zero.",
			"crash rate", "jobs", cats, series)}
	case experiments.KeysResult:
		cats, series := rowBars(r.Rows, func(x experiments.KeyRow) string { return string(x.Key) },
			column[experiments.KeyRow]{"duplicates", func(x experiments.KeyRow) int64 { return x.Duplicated }})
		return []Chart{barChart(domID+"-bars", "Duplicates that get through, per dedup key",
			"Bars of duplicates per choice of dedup key.", "dedup key", "duplicates", cats, series)}
	case experiments.OrderingsResult:
		cats, series := rowBars(r.Rows, func(x experiments.OrderingRow) string { return string(x.Order) },
			column[experiments.OrderingRow]{"lost", func(x experiments.OrderingRow) int64 { return x.Lost }},
			column[experiments.OrderingRow]{"duplicated", func(x experiments.OrderingRow) int64 { return x.Duplicated }})
		return []Chart{barChart(domID+"-bars", "Lost and duplicated, per write order",
			"Grouped bars of lost and duplicated jobs for each ordering of key and effect.", "", "jobs", cats, series)}
	case experiments.OutboxResult:
		cats, series := rowBars(r.Rows, func(x experiments.OutboxRow) string {
			if x.ConsumerDedup {
				return string(x.Design) + " / dedup"
			}
			return string(x.Design) + " / no dedup"
		},
			column[experiments.OutboxRow]{"lost", func(x experiments.OutboxRow) int64 { return x.Lost }},
			column[experiments.OutboxRow]{"phantom", func(x experiments.OutboxRow) int64 { return x.Phantom }},
			column[experiments.OutboxRow]{"duplicate applications", func(x experiments.OutboxRow) int64 { return x.DuplicateApplications }})
		return []Chart{barChart(domID+"-bars", "Lost, phantom and duplicated events",
			"Grouped bars of lost events, phantom events and duplicate applications for each producer design and consumer.",
			"", "events", cats, series)}
	case experiments.WindowResult:
		return []Chart{windowChart(domID, r)}
	case experiments.WindowGridResult:
		return []Chart{gridChart(domID, r)}
	case experiments.LeaseResult:
		return []Chart{leaseChart(domID, r)}
	}
	return nil
}

// windowChart plots escape rate against window size on a value axis, with a vertical marker at the
// maximum redelivery delay: the point where the curve must reach zero.
func windowChart(domID string, r experiments.WindowResult) Chart {
	c := charts.NewLine()
	title := "Escape rate versus dedup window"
	c.SetGlobalOptions(append(common(title),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "window (ids)", NameLocation: "middle", NameGap: 30, Min: 0}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "escaped (%)", Min: 0}),
	)...)
	data := make([]opts.LineData, len(r.Points))
	for i, p := range r.Points {
		y, _ := strconv.ParseFloat(strconv.FormatFloat(p.EscapeRate*100, 'f', 2, 64), 64)
		data[i] = opts.LineData{Value: []any{p.Window, y}}
	}
	c.AddSeries("escape rate", data,
		charts.WithMarkLineNameXAxisItemOpts(opts.MarkLineNameXAxisItem{Name: "max delay " + count(r.MaxDelay), XAxis: r.MaxDelay}),
		charts.WithMarkLineStyleOpts(opts.MarkLineStyle{Symbol: []string{"none", "none"}, Label: &opts.Label{Show: opts.Bool(true), Formatter: "max delay " + count(r.MaxDelay)}}),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}),
	)
	c.Validate()
	return Chart{ID: domID + "-curve", Title: title,
		Alt:     fmt.Sprintf("Line of the share of duplicates that escape at each window size, with a marker at the maximum redelivery delay of %s jobs.", count(r.MaxDelay)),
		Options: c.JSON()}
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

func leaseChart(domID string, r experiments.LeaseResult) Chart {
	c := charts.NewLine()
	title := "Double executions versus visibility timeout"
	var cats []string
	no, third, double := []opts.LineData{}, []opts.LineData{}, []opts.LineData{}
	for _, p := range r.Points {
		cats = append(cats, seconds(p.TimeoutS))
		no = append(no, opts.LineData{Value: p.NoRenewal})
		third = append(third, opts.LineData{Value: p.RenewThird})
		double = append(double, opts.LineData{Value: p.RenewDouble})
	}
	c.SetGlobalOptions(append(common(title),
		charts.WithXAxisOpts(opts.XAxis{Name: "visibility timeout", NameLocation: "middle", NameGap: 30}),
		charts.WithYAxisOpts(opts.YAxis{Name: "jobs run twice", Min: 0}),
	)...)
	c.SetXAxis(cats)
	c.AddSeries("no renewal", no, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}))
	// At the document's values this line is flat at zero, on top of the axis: a thick dashed line with
	// large symbols keeps it visible there.
	c.AddSeries("renew at t/3", third, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 9}),
		charts.WithLineStyleOpts(opts.LineStyle{Width: 3, Type: "dashed"}))
	c.AddSeries("renew at 2t", double, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}))
	c.Validate()
	return Chart{ID: domID + "-curve", Title: title,
		Alt:     "Lines of jobs executed twice at each visibility timeout with no renewal, renewal at a third of the timeout, and renewal at twice the timeout.",
		Options: c.JSON()}
}
