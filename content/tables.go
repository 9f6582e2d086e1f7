package content

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// StackClass is the class of a table whose rows become cards on a phone (app.css): one too wide
// for a phone's column would otherwise show its first columns and hide the rest behind a scroll,
// cut mid-word. Each body cell then carries its column's name in data-label, which the card shows.
const StackClass = "stack"

// phoneChars is about how many characters of a table's small type fit across a phone's column
// (a 390 px screen, less the page's margins and the cells' padding).
const phoneChars = 42

// StacksOnPhone reports whether a table of these rows (the head first) is too wide for a phone's
// column: each column needs at least its longest word (its longest cell, where a cell must not
// wrap: a number, or a row's name when firstWhole), and a cell's padding.
func StacksOnPhone(rows [][]string, firstWhole bool, whole func(col int, cell string) bool) bool {
	var widths []int
	for ri, row := range rows {
		for i, cell := range row {
			w := 0
			if (ri > 0 && i == 0 && firstWhole) || (ri > 0 && whole != nil && whole(i, cell)) {
				w = utf8.RuneCountInString(cell)
			} else {
				for _, word := range strings.Fields(cell) {
					w = max(w, utf8.RuneCountInString(word))
				}
			}
			for len(widths) <= i {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], w)
		}
	}
	total := 0
	for _, w := range widths {
		total += w + 2
	}
	return total > phoneChars
}

// tableCards gives the prose's tables what a phone needs to show them as cards: every body cell
// its column's name (data-label), and the stack class on a table too wide for a phone. A body row
// whose first cell ends in "{#some-id}" gets that id, so prose elsewhere can link one row of a
// table (the systems page's /systems#sqs-visibility-timeout); goldmark's attribute syntax reaches
// headings only, and the prose may hold no HTML of its own.
type tableCards struct{}

// rowAnchorRE is a row's anchor at the end of its first cell's last text: " {#id}".
var rowAnchorRE = regexp.MustCompile(`\s*\{#([a-z0-9]+(?:-[a-z0-9]+)*)\}$`)

// cutRowAnchor removes a trailing "{#id}" from a row's first cell and returns the id.
func cutRowAnchor(cell ast.Node, src []byte) (string, bool) {
	t, ok := cell.LastChild().(*ast.Text)
	if !ok {
		return "", false
	}
	value := t.Segment.Value(src)
	m := rowAnchorRE.FindSubmatchIndex(value)
	if m == nil {
		return "", false
	}
	id := string(value[m[2]:m[3]])
	if m[0] == 0 {
		cell.RemoveChild(cell, t)
	} else {
		t.Segment = t.Segment.WithStop(t.Segment.Start + m[0])
	}
	return id, true
}

// Transform implements parser.ASTTransformer.
func (tableCards) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		t, ok := n.(*east.Table)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		var head []string
		var rows [][]string
		for r := t.FirstChild(); r != nil; r = r.NextSibling() {
			var cells []string
			if c := r.FirstChild(); r.Kind() == east.KindTableRow && c != nil {
				if id, ok := cutRowAnchor(c, src); ok {
					r.SetAttributeString("id", id)
				}
			}
			i := 0
			for c := r.FirstChild(); c != nil; c = c.NextSibling() {
				txt := plainText(c, src)
				cells = append(cells, txt)
				if r.Kind() == east.KindTableHeader {
					head = append(head, txt)
				} else if i < len(head) {
					c.SetAttributeString("data-label", head[i])
				}
				i++
			}
			rows = append(rows, cells)
		}
		if StacksOnPhone(rows, false, nil) {
			t.SetAttributeString("class", StackClass)
		}
		return ast.WalkSkipChildren, nil
	})
}

// plainText is the text a reader sees in a node, markup left out.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Segment.Value(src))
				if t.SoftLineBreak() {
					b.WriteByte(' ')
				}
			} else if s, ok := c.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}
