package site

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"effectivelyonce/content"
)

// routeMethods are the methods of *echo.Echo and *echo.Group that add a route: a call of one of
// them outside routes.go is a URL the one list of URLs does not show.
var routeMethods = map[string]bool{
	"GET": true, "POST": true, "PUT": true, "DELETE": true, "PATCH": true, "HEAD": true, "OPTIONS": true,
	"CONNECT": true, "TRACE": true, "Any": true, "Match": true, "Add": true, "AddRoute": true,
	"RouteNotFound": true, "Static": true, "StaticFS": true, "File": true, "FileFS": true,
}

// TestHouseRoutesInOneFile holds README's promise that routes.go lists every URL and that a new
// route is one line there: no other non-test file of the module adds a route to echo (checked by
// type, so a route added through a helper or a loop of any name is found), and every route the
// server's echo knows is written out in routes.go, but the notebook's pages, which routes.go
// mounts from content.Contents().
func TestHouseRoutesInOneFile(t *testing.T) {
	inRoutes := 0
	for _, at := range echoRouteCalls(t) {
		if strings.HasPrefix(at, "internal/site/routes.go:") {
			inRoutes++
		} else {
			t.Errorf("%s adds a route to echo: every URL belongs in internal/site/routes.go", at)
		}
	}
	if inRoutes == 0 {
		t.Error("no call in routes.go adds a route to echo: the check of types finds nothing")
	}

	src, err := os.ReadFile("routes.go")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	if !strings.Contains(text, "range content.Contents()") {
		t.Fatal("routes.go no longer mounts the notebook's pages from content.Contents()")
	}
	pages := map[string]bool{}
	for _, e := range content.Contents() {
		pages[e.Path] = true
	}
	s := newTestServer(t, testConfig())
	routes := s.echo.Routes()
	if len(routes) < 50 {
		t.Fatalf("echo knows only %d routes; the server was not built", len(routes))
	}
	for _, r := range routes {
		if pages[r.Path] {
			continue
		}
		if !strings.Contains(text, strconv.Quote(r.Path)) {
			t.Errorf("%s %s is served but routes.go does not write it out", r.Method, r.Path)
		}
	}
}

// echoRouteCalls type-checks every non-test Go file of the module, its imports read from the
// compiler's export data (`go list -export`), and answers where a route is added to echo: a
// call of a routeMethods method on an *echo.Echo or *echo.Group, as "path/file.go:line".
func echoRouteCalls(t *testing.T) []string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export,Module", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
		Module                  *struct{ Main bool }
	}
	exports := map[string]string{}
	var own []pkg
	for dec := json.NewDecoder(strings.NewReader(string(out))); ; {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Main {
			own = append(own, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if f, ok := exports[path]; ok && f != "" {
			return os.Open(f)
		}
		return nil, fmt.Errorf("no export data for %s", path)
	})
	var found []string
	for _, p := range own {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		if _, err := (&types.Config{Importer: imp}).Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || !routeMethods[sel.Sel.Name] {
					return true
				}
				if s := info.Selections[sel]; s != nil && isEchoRouter(s.Recv()) {
					pos := fset.Position(call.Pos())
					rel, _ := filepath.Rel(root, pos.Filename)
					found = append(found, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), pos.Line))
				}
				return true
			})
		}
	}
	return found
}

// isEchoRouter reports whether t is echo's Echo or Group, or a pointer to one.
func isEchoRouter(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	return n.Obj().Pkg().Path() == "github.com/labstack/echo/v4" && (n.Obj().Name() == "Echo" || n.Obj().Name() == "Group")
}
