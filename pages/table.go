package pages

import (
	"math"
	"strconv"
	"strings"
)

// Table is a result laid out as rows, in two forms. The form for people (Head, Rows) is the data
// table under every chart and the command line's table output, written by format.go exactly as
// the reading beside it writes its numbers. The form for programs (Keys, Data) is the CSV answer of
// the API and the command line: headers in snake_case that carry the unit (state_bytes,
// timeout_s, escape_rate), cells as plain numbers in base units (no separators, fractions rather
// than percentages, seconds and bytes rather than "86.4 s" and "1 KB"), true and false for yes and
// no. Tables built with newTable and add keep the two forms in step, row for row; a table whose
// data is better one row wide for a program (scale) sets Keys and Data itself.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
	// Numeric marks the columns to right-align.
	Numeric []bool
	// Keys and Data are the table for programs; see the type's comment.
	Keys []string
	Data [][]string
	// Focus marks the row whose first cell is this, the row the page is about ("" marks none).
	Focus string
}

// col is one column of a table: its heading for people, its key for programs.
type col struct {
	head, key string
	numeric   bool
}

// cell is one value of a table in both forms.
type cell struct{ text, raw string }

// newTable starts a table with the given columns and no rows.
func newTable(caption string, cols ...col) Table {
	t := Table{Caption: caption}
	for _, c := range cols {
		t.Head = append(t.Head, c.head)
		t.Keys = append(t.Keys, c.key)
		t.Numeric = append(t.Numeric, c.numeric)
	}
	return t
}

// add appends one row to both forms.
func (t *Table) add(cells ...cell) {
	text, data := make([]string, len(cells)), make([]string, len(cells))
	for i, c := range cells {
		text[i], data[i] = c.text, c.raw
	}
	t.Rows = append(t.Rows, text)
	t.Data = append(t.Data, data)
}

// The cells a table is made of, one per kind of value.
func textCell(s string) cell            { return cell{s, s} }
func countCell(n int64) cell            { return cell{count(n), strconv.FormatInt(n, 10)} }
func yesNoCell(b bool) cell             { return flagCell(yesNo(b), b) }
func flagCell(text string, b bool) cell { return cell{text, strconv.FormatBool(b)} }
func shareCell(fraction float64) cell   { return cell{percent(fraction), raw(fraction)} }
func rateCell(fraction float64) cell    { return cell{rate(fraction), raw(fraction)} }
func secondsCell(s float64) cell        { return cell{seconds(s), raw(s)} }
func stateCell(bytes int64) cell        { return cell{stateSize(bytes), strconv.FormatInt(bytes, 10)} }

// raw writes a float for a program: the shortest text that reads back as the same float, in plain
// decimals between a millionth and 10^21 and in e-notation outside, as JSON and JavaScript write
// numbers (spreadsheets and pandas read both). A value that is not a number (an interval that
// never ends) is an empty cell, which pandas reads as missing.
func raw(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return ""
	case v == 0:
		return "0"
	case a < 1e-6 || a >= 1e21:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// CSV writes the table for programs as RFC 4180 text: the Keys, then the Data. A table that has
// no program form yet falls back to the form for people.
func (t Table) CSV() string {
	head, rows := t.Keys, t.Data
	if len(head) == 0 {
		head, rows = t.Head, t.Rows
	}
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteByte(',')
			}
			if strings.ContainsAny(c, ",\"\r\n#") {
				c = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
			}
			b.WriteString(c)
		}
		b.WriteString("\r\n")
	}
	line(head)
	for _, r := range rows {
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
