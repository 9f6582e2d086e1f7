package pages

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"

	"github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
)

// LoadSources finds every function and method of the package in fsys (test files skipped) and
// highlights it, with its doc comment; methods are keyed "type.method". It runs once at start-up; a page that names a function that
// does not exist is caught by the caller.
func LoadSources(fsys fs.FS) (map[string]Source, error) {
	out := map[string]Source{}
	files, err := fs.Glob(fsys, "*.go")
	if err != nil {
		return nil, err
	}
	lexer := lexers.Get("go")
	formatter := html.New(html.WithClasses(true), html.TabWidth(4))
	style := styles.Get("github")
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", file, err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				// Methods are named "type.method", as a writer would cite them.
				t := fn.Recv.List[0].Type
				if star, ok := t.(*ast.StarExpr); ok {
					t = star.X
				}
				if id, ok := t.(*ast.Ident); ok {
					name = id.Name + "." + name
				}
			}
			start := fn.Pos()
			if fn.Doc != nil {
				start = fn.Doc.Pos()
			}
			code := string(src[fset.Position(start).Offset:fset.Position(fn.End()).Offset])
			it, err := lexer.Tokenise(nil, code)
			if err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			if err := formatter.Format(&buf, style, it); err != nil {
				return nil, err
			}
			// A code block scrolls sideways on a narrow screen; tabindex lets a keyboard reach and
			// scroll it (axe: scrollable-region-focusable).
			html := strings.Replace(buf.String(), "<pre ", `<pre tabindex="0" `, 1)
			out[name] = Source{Name: name, File: file, HTML: html, Lines: strings.Count(strings.TrimRight(code, "\n"), "\n") + 1}
		}
	}
	return out, nil
}
