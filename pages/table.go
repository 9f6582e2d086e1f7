package pages

import "strings"

// Table is a result laid out as rows: the data table under every chart, the CSV answer of the API
// and the CLI's table output all come from it, so a number reads the same everywhere.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
	// Numeric marks the columns to right-align.
	Numeric []bool
	// Focus marks the row whose first cell is this, the row the page is about ("" marks none).
	Focus string
}

// CSV writes the table as RFC 4180 text.
func (t Table) CSV() string {
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteByte(',')
			}
			if strings.ContainsAny(c, ",\"\n") {
				c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
			}
			b.WriteString(c)
		}
		b.WriteString("\r\n")
	}
	line(t.Head)
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}

// Text writes the table with aligned columns, for a terminal.
func (t Table) Text() string {
	w := make([]int, len(t.Head))
	for i, h := range t.Head {
		w[i] = len([]rune(h))
	}
	for _, r := range t.Rows {
		for i, c := range r {
			w[i] = max(w[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	if t.Caption != "" {
		b.WriteString(t.Caption + "\n")
	}
	line := func(cells []string) {
		for i, c := range cells {
			pad := strings.Repeat(" ", w[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(t.Numeric) && t.Numeric[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		b.WriteString("\n")
	}
	line(t.Head)
	for _, r := range t.Rows {
		line(r)
	}
	return b.String()
}
