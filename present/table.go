package present

import (
	"math"
	"strconv"
	"strings"
)

// Table is a result laid out as rows, in two forms. The form for people (Head, Rows) is the data
// table under every chart and the command line's table output, written by format.go exactly as
// the reading beside it writes its numbers. The form for programs (Keys, Data) is the CSV answer of
// the API and the command line: headers in snake_case that carry the unit (state_bytes,
// timeout_s, escape_rate), cells that carry their number itself in base units beside the text
// people read (fractions rather than percentages, seconds and bytes rather than "86.4 s" and
// "1 KB"), written plain (no separators), and true and false for yes and no. Nothing reads a
// number back out of display text. Tables built with newTable and add keep the two forms in step,
// row for row; a table whose data is better one row wide for a program (scale) sets Keys and Data
// itself.
type Table struct {
	Caption string
	Head    []string
	Rows    [][]string
	// Numeric marks the columns to right-align.
	Numeric []bool
	// Keys and Data are the table for programs; see the type's comment.
	Keys []string
	Data [][]Cell
	// Focus marks the row whose first cell is this, the row the page is about ("" marks none).
	Focus string
}

// col is one column of a table: its heading for people, its key for programs.
type col struct {
	head, key string
	numeric   bool
}

// Cell is one value of a table: the text people read and, for a program, the value itself: a
// number in base units (Number, when IsNumber) or a word (a design's name, true or false).
type Cell struct {
	Text     string
	Number   float64
	IsNumber bool
	Word     string
	// Point is, on a row (or, in a grid, a cell) that stands for a point of the run's counts, the
	// point as the counts name it (experiments.Count.Point), so that a "which jobs?" link on the
	// cell asks for it as it is; RowAlso says, for the link's label, what tells the row from
	// another with the same first cell (the outbox's rows come in pairs of one design: "consumer
	// with dedup").
	Point, RowAlso string
}

// Raw writes the cell for a program: its number as raw does, or its word.
func (c Cell) Raw() string {
	if c.IsNumber {
		return raw(c.Number)
	}
	return c.Word
}

// cell is the package's short name for a table's cell.
type cell = Cell

// NumberCell is a cell showing text for the number v, in base units.
func NumberCell(text string, v float64) Cell { return Cell{Text: text, Number: v, IsNumber: true} }

// WordCell is a cell showing text for a value that is no number; word is the program's form of it.
func WordCell(text, word string) Cell { return Cell{Text: text, Word: word} }

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
	text := make([]string, len(cells))
	for i, c := range cells {
		text[i] = c.Text
	}
	t.Rows = append(t.Rows, text)
	t.Data = append(t.Data, cells)
}

// addAt appends one row that stands for the counts' point, marking each of its cells with it.
func (t *Table) addAt(point string, cells ...cell) {
	for i := range cells {
		cells[i].Point = point
	}
	t.add(cells...)
}

// at marks a cell with the point of the counts it shows (see Cell.Point).
func (c cell) at(point string) cell {
	c.Point = point
	return c
}

// The cells a table is made of, one per kind of value.
func textCell(s string) cell            { return WordCell(s, s) }
func countCell(n int64) cell            { return NumberCell(count(n), float64(n)) }
func yesNoCell(b bool) cell             { return flagCell(yesNo(b), b) }
func flagCell(text string, b bool) cell { return WordCell(text, strconv.FormatBool(b)) }
func shareCell(fraction float64) cell   { return NumberCell(percent(fraction), fraction) }
func rateCell(fraction float64) cell    { return NumberCell(rate(fraction), fraction) }
func secondsCell(s float64) cell        { return NumberCell(seconds(s), s) }
func stateCell(bytes int64) cell        { return NumberCell(stateSize(bytes), float64(bytes)) }

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

// CSV writes the table for programs as RFC 4180 text: the Keys, then the Data, each cell's number
// or word. A table that has no program form yet falls back to the form for people.
func (t Table) CSV() string {
	head, rows := t.Keys, t.Rows
	if len(head) == 0 {
		head = t.Head
	} else {
		rows = make([][]string, len(t.Data))
		for i, r := range t.Data {
			rows[i] = make([]string, len(r))
			for j, c := range r {
				rows[i][j] = c.Raw()
			}
		}
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
