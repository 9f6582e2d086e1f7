package workbench

import (
	"fmt"

	"go.starlark.net/syntax"
)

// The parser's messages about brackets are told in the reader's terms from the source itself:
// which bracket was left open, and whether a nesting that went too deep was one of brackets.
// The scan below knows Starlark's strings and comments well enough for that: brackets inside a
// string or after a # are not brackets.

// bracket is an opening bracket and where it is.
type bracket struct {
	char rune
	pos  syntax.Position
}

// scanBrackets walks src and calls at for every rune outside strings and comments with the
// brackets open before it. It stops early when at returns false.
func scanBrackets(src string, at func(r rune, pos syntax.Position, open []bracket) bool) {
	var open []bracket
	line, col := int32(1), int32(0)
	runes := []rune(src)
	advance := func(r rune) {
		if r == '\n' {
			line, col = line+1, 0
		} else {
			col++
		}
	}
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		advance(r)
		pos := syntax.MakePosition(nil, line, col)
		switch r {
		case '#':
			for i+1 < len(runes) && runes[i+1] != '\n' {
				i++
				advance(runes[i])
			}
			continue
		case '"', '\'':
			// A string: triple-quoted or not, with backslash escapes (a raw string's backslash
			// still keeps the quote after it inside the string).
			triple := i+2 < len(runes) && runes[i+1] == r && runes[i+2] == r
			if triple {
				i += 2
				advance(r)
				advance(r)
			}
			for i+1 < len(runes) {
				i++
				c := runes[i]
				advance(c)
				if c == '\\' && i+1 < len(runes) {
					i++
					advance(runes[i])
					continue
				}
				if c == '\n' && !triple {
					break
				}
				if c == r && (!triple || (i+2 < len(runes) && runes[i+1] == r && runes[i+2] == r)) {
					if triple {
						i += 2
						advance(r)
						advance(r)
					}
					break
				}
			}
			continue
		}
		if !at(r, pos, open) {
			return
		}
		switch r {
		case '(', '[', '{':
			open = append(open, bracket{r, pos})
		case ')', ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	at(0, syntax.MakePosition(nil, line, col+1), open)
}

// before reports whether a is before b.
func before(a, b syntax.Position) bool {
	return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
}

// unclosedBefore finds a bracket that is open at pos, on an earlier line, and never closed in
// the whole source: the mistake a parser reports only at some token after it.
func unclosedBefore(src string, pos syntax.Position) (bracket, bool) {
	var atErr, final []bracket
	scanBrackets(src, func(r rune, p syntax.Position, open []bracket) bool {
		if atErr == nil && !before(p, pos) {
			atErr = append([]bracket{}, open...)
		}
		if r == 0 {
			final = open
		}
		return true
	})
	// A bracket open at the error that is still open at the end never closed: any bracket
	// opened after it closes before it can.
	for i := len(atErr) - 1; i >= 0; i-- {
		b := atErr[i]
		if b.pos.Line >= pos.Line {
			continue
		}
		if i < len(final) && final[i].pos == b.pos {
			return b, true
		}
	}
	return bracket{}, false
}

// nestingMessage says what nested too deeply at pos: brackets, when hundreds of them are open
// there, or otherwise an expression (a long run of - or not, lambdas inside lambdas), which the
// parser counts toward the same limit.
func nestingMessage(src string, pos syntax.Position) string {
	depth := 0
	scanBrackets(src, func(_ rune, p syntax.Position, open []bracket) bool {
		if !before(p, pos) {
			depth = len(open)
			return false
		}
		return true
	})
	// Each bracket costs the parser about thirteen of its 1,000 levels (one per operator
	// precedence on the way down to a primary), so brackets alone stop near 78 open; a -, a not
	// or a lambda costs about one. Where most of the levels are brackets, brackets are named.
	if depth >= 50 {
		return fmt.Sprintf("the brackets nest too deeply: %s are open here, more than Starlark's parser accepts", thousands(int64(depth)))
	}
	return "the expression nests too deeply: Starlark's parser stops at 1,000 levels, and each -, not, lambda or bracket inside another adds to them"
}
