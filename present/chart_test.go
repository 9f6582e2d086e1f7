package present

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// cssVars reads the custom properties of static/app.css for the light page (:root) and the dark
// one (the :root inside prefers-color-scheme: dark), so the palettes are held to the colours the
// page really has.
func cssVars(t *testing.T) (light, dark map[string]string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "static", "app.css"))
	if err != nil {
		t.Fatal(err)
	}
	css := string(src)
	i := strings.Index(css, "@media (prefers-color-scheme: dark)")
	if i < 0 {
		t.Fatal("app.css has no dark scheme")
	}
	re := regexp.MustCompile(`(--[a-z-]+):\s*(#[0-9a-fA-F]{6})`)
	read := func(s string) map[string]string {
		m := map[string]string{}
		for _, x := range re.FindAllStringSubmatch(s, -1) {
			if _, ok := m[x[1]]; !ok {
				m[x[1]] = strings.ToLower(x[2])
			}
		}
		return m
	}
	end := strings.Index(css[i:], "}\n}")
	return read(css[:i]), read(css[i : i+end])
}

// contrast is the WCAG contrast ratio of two #rrggbb colours.
func contrast(a, b string) float64 {
	lum := func(hex string) float64 {
		v, _ := strconv.ParseUint(hex[1:], 16, 32)
		ch := func(c uint64) float64 {
			x := float64(c) / 255
			if x <= 0.03928 {
				return x / 12.92
			}
			return math.Pow((x+0.055)/1.055, 2.4)
		}
		return 0.2126*ch(v>>16&0xff) + 0.7152*ch(v>>8&0xff) + 0.0722*ch(v&0xff)
	}
	la, lb := lum(a), lum(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestChartPalettes holds both palettes to the page they are drawn on: text at 4.5:1 and series at
// 3:1 against the experiment panel and the page behind it, in the light and the dark scheme.
func TestChartPalettes(t *testing.T) {
	light, dark := cssVars(t)
	for _, c := range []struct {
		scheme string
		p      palette
		vars   map[string]string
	}{{"light", lightPalette, light}, {"dark", darkPalette, dark}} {
		if c.vars["--panel"] != c.p.Panel {
			t.Errorf("%s: the palette's panel %s is not app.css's --panel %s", c.scheme, c.p.Panel, c.vars["--panel"])
		}
		for _, bg := range []string{"--panel", "--bg"} {
			back := c.vars[bg]
			if back == "" {
				t.Fatalf("%s: app.css has no %s", c.scheme, bg)
			}
			for name, fg := range map[string]string{"text": c.p.Text, "muted": c.p.Muted} {
				if r := contrast(fg, back); r < 4.5 {
					t.Errorf("%s: %s %s on %s %s is %.2f:1, want 4.5:1", c.scheme, name, fg, bg, back, r)
				}
			}
			for i, s := range c.p.Series {
				if r := contrast(s, back); r < 3 {
					t.Errorf("%s: series %d %s on %s %s is %.2f:1, want 3:1", c.scheme, i, s, bg, back, r)
				}
			}
		}
	}
	if len(lightPalette.Series) != len(darkPalette.Series) {
		t.Error("the palettes have different numbers of series colours")
	}
}

// chartJSON is a chart's options as the browser receives them.
func chartJSON(t *testing.T, o map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// walk calls f on every object in v, with its path.
func walk(path string, v any, f func(path string, m map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(path, v)
		for k, x := range v {
			walk(path+"."+k, x, f)
		}
	case []any:
		for i, x := range v {
			walk(fmt.Sprintf("%s[%d]", path, i), x, f)
		}
	}
}

// defaultCharts draws every experiment's charts at its defaults.
func defaultCharts(t *testing.T) []Chart {
	t.Helper()
	var out []Chart
	for _, e := range experiments.All() {
		pr, err := PresenterOf(e)
		if err != nil {
			t.Fatal(err)
		}
		p := e.Defaults()
		res, err := e.Run(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := pr.Charts("exp-"+e.Name, p, res)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cs...)
	}
	return out
}

// TestChartsCarryNoColourOrSmallText checks every chart's options in both layouts: no colour of
// their own (the theme gives it, per scheme), no font under 12 px, no title drawn inside (the
// figure's caption holds it), and a height for each layout.
func TestChartsCarryNoColourOrSmallText(t *testing.T) {
	for _, c := range defaultCharts(t) {
		if c.Height < 150 || c.NarrowHeight < 150 {
			t.Errorf("%s: heights %d and %d", c.ID, c.Height, c.NarrowHeight)
		}
		for layout, o := range map[string]map[string]any{"wide": c.Options, "narrow": c.Narrow} {
			j := chartJSON(t, o)
			if _, ok := j["color"]; ok {
				t.Errorf("%s (%s): the options carry a palette; the theme must give it", c.ID, layout)
			}
			if title, _ := j["title"].(map[string]any); title["text"] != nil {
				t.Errorf("%s (%s): a title drawn inside the chart", c.ID, layout)
			}
			walk("", j, func(path string, m map[string]any) {
				if fs, ok := m["fontSize"].(float64); ok && fs < minFont {
					t.Errorf("%s (%s): fontSize %v at %s", c.ID, layout, fs, path)
				}
			})
		}
	}
	for _, theme := range []map[string]any{lightPalette.theme(), darkPalette.theme()} {
		walk("theme", chartJSON(t, theme), func(path string, m map[string]any) {
			if fs, ok := m["fontSize"].(float64); ok && fs < minFont {
				t.Errorf("theme: fontSize %v at %s", fs, path)
			}
		})
	}
}

// TestBarsShowTinyCounts checks that a count of 0.1% of the largest still draws a bar (echarts'
// barMinHeight) with its Exact count as the label, and that a zero draws its "0" but no bar.
func TestBarsShowTinyCounts(t *testing.T) {
	c := barChart("x-bars", "t", "a", "crash rate", "jobs", []string{"0.1%", "100%"},
		[]barSeries{{"lost", []int64{20, 20000}}, {"duplicated", []int64{0, 0}}})
	for layout, o := range map[string]map[string]any{"wide": c.Options, "narrow": c.Narrow} {
		j := chartJSON(t, o)
		for _, s := range Objects(j["series"]) {
			if h, _ := s["barMinHeight"].(float64); h < 3 {
				t.Errorf("%s: series %v has barMinHeight %v, want 3 px or more", layout, s["name"], s["barMinHeight"])
			}
			for _, d := range Objects(s["data"]) {
				v := d["value"].(float64)
				label, _ := d["label"].(map[string]any)
				if label == nil || label["show"] != true || label["formatter"] != count(int64(v)) {
					t.Errorf("%s: %v = %v is labelled %v, want %q", layout, s["name"], v, label, count(int64(v)))
				}
				style, _ := d["itemStyle"].(map[string]any)
				if transparent := style != nil && style["color"] == "transparent"; transparent != (v == 0) {
					t.Errorf("%s: %v = %v drawn transparent: %v", layout, s["name"], v, transparent)
				}
			}
		}
	}
	// On a phone every bar chart lies on its side, its long names broken over lines.
	j := chartJSON(t, barChart("x", "t", "a", "", "events", []string{"dual-write-publish-first / no dedup"}, []barSeries{{"lost", []int64{1}}}).Narrow)
	y := Objects(j["yAxis"])[0]
	if y["type"] != "category" {
		t.Fatalf("narrow bars are not horizontal: y axis %v", y["type"])
	}
	if name := y["data"].([]any)[0].(string); name != "dual-write-\npublish-first /\nno dedup" {
		t.Errorf("narrow category name %q", name)
	}
}

// TestSweepAxes: a sweep goes on a value axis, and on a log axis when its values span the ratio.
func TestSweepAxes(t *testing.T) {
	for _, c := range []struct {
		vals  []float64
		ratio float64
		want  string
	}{
		{[]float64{10, 100, 1000}, 100, "log"},
		{[]float64{100, 500, 1000, 1500, 2000, 5000}, 100, "value"},
		{[]float64{0, 100, 1000}, 100, "value"},
		{[]float64{5, 15, 30, 60, 300}, 10, "log"},
		{[]float64{5}, 10, "value"},
	} {
		ax, ticks := sweepAxis("x", "{value}", c.vals, c.ratio)
		if ax.Type != c.want {
			t.Errorf("%v at ratio %v: %s axis, want %s", c.vals, c.ratio, ax.Type, c.want)
		}
		if len(ticks) != len(c.vals) {
			t.Errorf("%v: ticks %v", c.vals, ticks)
		}
	}
	_, res := windowRun()
	res.Points = []experiments.WindowPoint{{Window: 10, Escaped: 390}, {Window: 100, Escaped: 380}, {Window: 1000, Escaped: 195}}
	j := chartJSON(t, windowChart("exp-window", res).Options)
	x := Objects(j["xAxis"])[0]
	if x["type"] != "log" {
		t.Errorf("windows 10, 100, 1,000 on a %v axis, want log", x["type"])
	}
	if got := x["axisLabel"].(map[string]any)["customValues"]; fmt.Sprint(got) != "[10 100 1000]" {
		t.Errorf("window axis labels at %v, want at the windows", got)
	}
}

// TestLeaseChartPanels (issue 19, item 21): one panel, whose second line is renewal at 2t as a
// real queue does it; the document's 20,000 for that policy is not drawn (it stays in the table and
// the reading); the timeouts are on a log axis.
func TestLeaseChartPanels(t *testing.T) {
	r := experiments.LeaseResult{Jobs: 20000, Points: []experiments.LeasePoint{
		{TimeoutS: 5, NoRenewal: 2448, RenewDouble: 20000, RenewDoubleReal: 2448}, {TimeoutS: 15, NoRenewal: 715, RenewDouble: 20000, RenewDoubleReal: 715},
		{TimeoutS: 300, NoRenewal: 0, RenewDouble: 20000}}}
	c := leaseChart("exp-lease", r)
	for layout, o := range map[string]map[string]any{"wide": c.Options, "narrow": c.Narrow} {
		j := chartJSON(t, o)
		if n := len(Objects(j["grid"])); n != 1 {
			t.Fatalf("%s: %d panels, want 1", layout, n)
		}
		var names []string
		for _, s := range Objects(j["series"]) {
			names = append(names, s["name"].(string))
			if strings.Contains(fmt.Sprint(s["data"]), "20000") {
				t.Errorf("%s: the series %q draws the document's 20,000", layout, s["name"])
			}
		}
		if strings.Join(names, "|") != "no renewal|renew at 2t, real queue|renew at t/3" {
			t.Errorf("%s: series %q, want no renewal, then the real queue's 2t, then t/3", layout, names)
		}
		for _, x := range Objects(j["xAxis"]) {
			if x["type"] != "log" {
				t.Errorf("%s: timeouts on a %v axis, want log", layout, x["type"])
			}
		}
	}
}

// TestWindowChartKeepsTinyRates: a rate of a thousandth of a percent is plotted as itself, not
// rounded to two decimals (zero).
func TestWindowChartKeepsTinyRates(t *testing.T) {
	_, res := windowRun()
	res.Points = []experiments.WindowPoint{{Window: 10, Escaped: 1, EscapeRate: 0.00001}, {Window: 100}}
	j := chartJSON(t, windowChart("exp-window", res).Options)
	data := Objects(j["series"])[0]["data"].([]any)
	first := data[0].(map[string]any)["value"].([]any)
	if y := first[1].(float64); y <= 0 || y > 0.0011 {
		t.Errorf("an escape rate of 0.001%% is plotted at %v", y)
	}
}
