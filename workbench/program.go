package workbench

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// MaxSource is the largest handler a check accepts, in bytes.
const MaxSource = 16 << 10

// fileName is the name a handler's positions carry; messages print only its line and column.
const fileName = "handler.star"

// CodeError is a mistake in the reader's handler, at a line and column (both 1-based; 0 when the
// mistake is the whole handler, such as its size). Compile errors, runtime errors and every limit
// the handler runs into are CodeErrors, so an editor can mark the line.
type CodeError struct {
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Msg  string `json:"message"`
}

// Error writes the error the way every message of the workbench names a place: "line 3:5: ...".
func (e *CodeError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d:%d: %s", e.Line, e.Col, e.Msg)
}

func codeErrorAt(pos syntax.Position, format string, args ...any) *CodeError {
	return &CodeError{Line: int(pos.Line), Col: int(pos.Col), Msg: fmt.Sprintf(format, args...)}
}

// site is one call in the handler's source: where it is and how it is written, so that a crash
// point is labelled by the operation as the reader wrote it.
type site struct {
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Text string `json:"text"`
}

// program is a compiled handler: its handle function, and the text of every call in it, by the
// position of its opening parenthesis (the position Starlark reports for a call).
type program struct {
	handle    *starlark.Function
	sites     map[[2]int32]int // (line, col of the parenthesis) -> index into siteList
	siteList  []site
	usesWork  bool // the handler names work(), so it lives in lease time
	handleDef syntax.Position
}

// fileOptions are the dialect a handler is written in: no while, no recursion, no top-level
// control flow and no global reassignment, so a handler is a function of its job and its world.
func fileOptions() *syntax.FileOptions { return &syntax.FileOptions{Set: true} }

// compile parses, resolves and runs the handler's top level on thread with the world's
// predeclared names, and finds handle.
func compile(thread *starlark.Thread, src string, predeclared starlark.StringDict) (*program, error) {
	if len(src) > MaxSource {
		return nil, &CodeError{Msg: fmt.Sprintf("the handler is %s bytes long; the limit is %s (16 KB)",
			thousands(int64(len(src))), thousands(MaxSource))}
	}
	if !utf8.ValidString(src) {
		return nil, &CodeError{Msg: "the handler is not valid UTF-8 text"}
	}
	f, err := fileOptions().Parse(fileName, src, 0)
	if err != nil {
		var se syntax.Error
		if errors.As(err, &se) {
			pos := se.Pos
			if strings.HasPrefix(se.Msg, "got newline") && pos.Col == 1 && pos.Line > 1 {
				// The scanner puts a line's end at the start of the next; the mistake is on the
				// line that ended too soon.
				prev := strings.Split(src, "\n")[pos.Line-2]
				pos = syntax.MakePosition(nil, pos.Line-1, int32(utf8.RuneCountInString(prev)+1))
			}
			if strings.Contains(se.Msg, "excessive nesting") {
				return nil, codeErrorAt(pos, "%s", nestingMessage(src, se.Pos))
			}
			if open, ok := unclosedBefore(src, se.Pos); ok {
				// The parser notices a bracket left open only at a token after it, often on a
				// later line; the mistake is where the bracket opened.
				return nil, codeErrorAt(open.pos, "this '%c' is never closed (the parser noticed at line %d, column %d: %s)",
					open.char, se.Pos.Line, se.Pos.Col, syntaxMessage(se.Msg))
			}
			return nil, codeErrorAt(pos, "%s", syntaxMessage(se.Msg))
		}
		return nil, &CodeError{Msg: err.Error()}
	}
	p := &program{sites: map[[2]int32]int{}}
	lines := strings.Split(src, "\n")
	var loadErr *CodeError
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.LoadStmt:
			if loadErr == nil {
				loadErr = codeErrorAt(n.Load, "load is not available: a handler has only the job and the world it is given (queue, db, bus, work, uuid)")
			}
		case *syntax.CallExpr:
			start, end := n.Span()
			p.sites[[2]int32{n.Lparen.Line, n.Lparen.Col}] = len(p.siteList)
			p.siteList = append(p.siteList, site{Line: int(start.Line), Col: int(start.Col), Text: spanText(lines, start, end)})
		}
		return true
	})
	if loadErr != nil {
		return nil, loadErr
	}
	prog, err := starlark.FileProgram(f, predeclared.Has)
	if err != nil {
		var el resolve.ErrorList
		if errors.As(err, &el) && len(el) > 0 {
			return nil, codeErrorAt(el[0].Pos, "%s", resolveMessage(el[0].Msg))
		}
		return nil, &CodeError{Msg: err.Error()}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && id.Name == "work" {
			if b, ok := id.Binding.(*resolve.Binding); ok && b.Scope == resolve.Predeclared {
				p.usesWork = true
			}
		}
		return true
	})
	globals, err := prog.Init(thread, predeclared)
	if err != nil {
		return nil, runtimeError(err, "while running the handler's top level")
	}
	globals.Freeze()
	fn, ok := globals["handle"].(*starlark.Function)
	if !ok {
		if v, found := globals["handle"]; found {
			return nil, &CodeError{Msg: fmt.Sprintf("handle must be a function defined with def handle(job, queue, db, bus):, not a %s", v.Type())}
		}
		return nil, &CodeError{Msg: "the handler defines no function handle: write def handle(job, queue, db, bus):"}
	}
	p.handle, p.handleDef = fn, fn.Position()
	if fn.NumParams() != 4 || fn.HasVarargs() || fn.HasKwargs() {
		return nil, codeErrorAt(fn.Position(), "handle must take exactly four parameters, (job, queue, db, bus); this one takes %d", fn.NumParams())
	}
	return p, nil
}

// siteAt returns the index of the call whose parenthesis is at pos, or -1.
func (p *program) siteAt(pos syntax.Position) int {
	if i, ok := p.sites[[2]int32{pos.Line, pos.Col}]; ok {
		return i
	}
	return -1
}

// spanText is the source between two positions, on one line, clipped for a label.
func spanText(lines []string, start, end syntax.Position) string {
	var b strings.Builder
	for l := start.Line; l <= end.Line && int(l) <= len(lines); l++ {
		line := []rune(lines[l-1])
		from, to := 0, len(line)
		if l == start.Line {
			from = min(int(start.Col)-1, len(line))
		}
		if l == end.Line {
			to = min(int(end.Col)-1, len(line))
		}
		if from < to {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strings.TrimSpace(string(line[from:to])))
		}
	}
	s := strings.Join(strings.Fields(b.String()), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// syntaxMessage says the parser's complaints about Python features the dialect leaves out in the
// reader's terms.
func syntaxMessage(msg string) string {
	switch {
	case strings.Contains(msg, "got '**'"):
		return msg + ": Starlark has no ** operator; write the number out (10000000000) or multiply"
	case strings.Contains(msg, "got try"), strings.Contains(msg, "got except"):
		return msg + ": there is no try here, because a crash is not an exception a handler can catch"
	}
	return msg
}

func resolveMessage(msg string) string {
	if strings.Contains(msg, "while") {
		return msg + ": use a for loop over a range instead (while loops are off, so every loop ends)"
	}
	return msg
}

// runtimeError turns an error from Starlark into a CodeError at the innermost line of the handler
// it happened on.
func runtimeError(err error, context string) error {
	var ce *CodeError
	if errors.As(err, &ce) {
		return ce
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		msg := ee.Msg
		var inner *CodeError
		if errors.As(ee.Unwrap(), &inner) && inner.Line == 0 {
			msg = inner.Msg
		}
		for i := len(ee.CallStack) - 1; i >= 0; i-- {
			if pos := ee.CallStack[i].Pos; pos.Filename() == fileName {
				return codeErrorAt(pos, "%s", msg)
			}
		}
		return &CodeError{Msg: msg + " (" + context + ")"}
	}
	return err
}
