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

// LoadSources finds every top-level function of the package in fsys (test files skipped) and
// highlights it, with its doc comment. It runs once at start-up; a page that names a function that
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
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", name, err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
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
			out[fn.Name.Name] = Source{Name: fn.Name.Name, File: name, HTML: buf.String()}
		}
	}
	return out, nil
}
