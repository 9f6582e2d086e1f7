package present

// palette is every colour a chart is drawn in, for one colour scheme of the page. Charts stand on
// an experiment's panel (--panel in static/app.css), so text must reach 4.5:1 against it and the
// series 3:1 (WCAG 1.4.3 and 1.4.11); TestChartPalettes checks both against the stylesheet.
type palette struct {
	// Series colours in the order series take them: a blue and an orange first, which stay apart
	// for the common colour-vision deficiencies.
	Series []string
	Text   string // legend, value labels, the focus row's name
	Muted  string // axis labels and axis names
	Axis   string // axis lines and ticks
	Split  string // grid lines
	Panel  string // tooltip background
	// BandOpacity is how opaque a spread's band is drawn (app.js reads it as spreadBand): a light
	// colour at low opacity on a dark panel all but vanishes, so the dark scheme draws it denser.
	BandOpacity float64
}

var lightPalette = palette{
	Series: []string{"#1f5fbf", "#b85000", "#2b7a3a", "#8a3ea8", "#c0392b", "#0b7285"},
	Text:   "#1d1f23",
	Muted:  "#4f5560",
	Axis:   "#767c86",
	Split:  "#e4e1da",
	Panel:  "#ffffff",

	BandOpacity: 0.3,
}

var darkPalette = palette{
	Series: []string{"#7db4ff", "#ffb74d", "#7fd19b", "#d7a6ff", "#ff8a80", "#66d9e8"},
	Text:   "#e6e4df",
	Muted:  "#b4b8bf",
	Axis:   "#8b9099",
	Split:  "#343840",
	Panel:  "#1d2026",

	BandOpacity: 0.55,
}

// ChartThemes are the echarts themes app.js registers, by colour scheme ("light", "dark"); it
// draws every chart with the one the page's scheme asks for and again when the scheme changes.
func ChartThemes() map[string]any {
	return map[string]any{"name": chartTheme, "light": lightPalette.theme(), "dark": darkPalette.theme()}
}

// theme writes the palette as an echarts theme: every text and line of a chart takes its colour
// from here, so the options built per chart carry none.
func (p palette) theme() map[string]any {
	text := func(c string) map[string]any { return map[string]any{"color": c, "fontSize": minFont} }
	axis := map[string]any{
		"axisLine":      map[string]any{"lineStyle": map[string]any{"color": p.Axis}},
		"axisTick":      map[string]any{"lineStyle": map[string]any{"color": p.Axis}},
		"axisLabel":     text(p.Muted),
		"nameTextStyle": text(p.Muted),
		"splitLine":     map[string]any{"lineStyle": map[string]any{"color": []string{p.Split}}},
	}
	label := map[string]any{"label": text(p.Text)}
	return map[string]any{
		"color":           p.Series,
		"backgroundColor": "transparent",
		"textStyle":       map[string]any{"color": p.Text, "fontSize": minFont},
		"legend":          map[string]any{"textStyle": text(p.Text), "pageTextStyle": text(p.Text)},
		"tooltip": map[string]any{
			"backgroundColor": p.Panel, "borderColor": p.Axis,
			"textStyle": map[string]any{"color": p.Text, "fontSize": 14},
		},
		"categoryAxis": axis,
		"valueAxis":    axis,
		"logAxis":      axis,
		"bar":          label,
		"line":         label,
		// Not an echarts key: app.js gives it to the series with id BandSeriesID.
		"spreadBand": map[string]any{"opacity": p.BandOpacity},
		"markLine": map[string]any{
			"label":     text(p.Text),
			"lineStyle": map[string]any{"color": p.Muted},
		},
	}
}
