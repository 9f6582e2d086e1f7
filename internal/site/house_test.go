package site

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "effectivelyonce/"

// maxFileLines is the longest a hand-written Go file may grow: past it a file holds more than one
// thing, and a newcomer reading the house loses the thread.
const maxFileLines = 600

// tree is what the house rules read of the module: what the non-test files of each package import,
// by package path (relative to the module), and how long each hand-written non-test file is.
type tree struct {
	imports map[string][]string
	lines   map[string]int
}

// readTree walks the module from its root, skipping node_modules, testdata and dot directories.
func readTree(t *testing.T) tree {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := tree{imports: map[string][]string{}, lines: map[string]int{}}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if !generated(src) {
			out.lines[filepath.ToSlash(rel)] = bytes.Count(src, []byte("\n"))
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !slices.Contains(out.imports[pkg], p) {
				out.imports[pkg] = append(out.imports[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// generated reports whether src says it is generated code (templ's *_templ.go), by Go's convention.
func generated(src []byte) bool {
	head, _, _ := bytes.Cut(src, []byte("\npackage "))
	return bytes.Contains(head, []byte("// Code generated ")) && bytes.Contains(head, []byte("DO NOT EDIT."))
}

// rule is one rule of the house: a name for its failure, and the test of one import of a package
// (both relative to the module for the module's own packages, full paths for the others).
type rule struct {
	says   string
	breaks func(pkg, im string) bool
}

// underWeb reports whether pkg is the web layer or one of its domains' handler packages, or the
// assembly and its test helpers, which wire them.
func underWeb(pkg string) bool {
	return pkg == "internal/web" || strings.HasPrefix(pkg, "internal/web/") || pkg == "internal/site" || pkg == "internal/sitetest"
}

// domains are the handler packages, one per domain.
var domains = []string{"internal/web/notebook", "internal/web/roomsweb", "internal/web/labweb", "internal/web/workbenchweb"}

// houseRules are the rules README's "What is where" states, each about one import.
var houseRules = []rule{
	{"echo is imported only by the web layer, the domains' handlers and the assembly", func(pkg, im string) bool {
		return strings.HasPrefix(im, "github.com/labstack/echo") && !underWeb(pkg)
	}},
	{"a domain's handlers import no other domain's, nor the assembly", func(pkg, im string) bool {
		target := strings.TrimPrefix(im, module)
		return slices.Contains(domains, pkg) && target != pkg && (slices.Contains(domains, target) || target == "internal/site")
	}},
	{"present imports no package of ours but experiments", func(pkg, im string) bool {
		return pkg == "present" && strings.HasPrefix(im, module) && im != module+"experiments"
	}},
	{"running work and the command line import neither the web layer, the assembly nor templ", func(pkg, im string) bool {
		target := strings.TrimPrefix(im, module)
		return (pkg == "internal/runs" || pkg == "internal/cli") &&
			(strings.HasPrefix(target, "internal/web") || target == "internal/site" || strings.HasPrefix(im, "github.com/a-h/templ"))
	}},
	// The web layer names templ.Component in Render and in the error page it is handed; nothing
	// else outside pages needs the type.
	{"templ is imported only by pages (and by the web layer, for Render)", func(pkg, im string) bool {
		return strings.HasPrefix(im, "github.com/a-h/templ") && pkg != "pages" && pkg != "internal/web"
	}},
	{"go-echarts is imported only by present", func(pkg, im string) bool {
		return strings.HasPrefix(im, "github.com/go-echarts/") && pkg != "present"
	}},
	// What the web layer needs of a domain (an error's field, an API body, an error page) the
	// assembly hands it as a function.
	{"the web layer itself imports no package of ours", func(pkg, im string) bool {
		return pkg == "internal/web" && strings.HasPrefix(im, module)
	}},
}

// TestTheHouse holds the layout README's "What is where" describes: echo stays in the web layer
// and the domains' handler packages; no domain's handlers import another's or the assembly;
// presentation imports no other package of ours than the experiments; templ stays in pages and
// echarts in present; the web layer knows no domain; no hand-written file outgrows maxFileLines.
// Each rule names every package that breaks it, in one failure.
func TestTheHouse(t *testing.T) {
	tr := readTree(t)
	if len(tr.imports) < 20 {
		t.Fatalf("read only %d packages", len(tr.imports))
	}
	for _, msg := range houseViolations(tr) {
		t.Error(msg)
	}
	for _, d := range domains {
		if _, ok := tr.imports[d]; !ok {
			t.Errorf("no package %s", d)
		}
	}
}

// houseViolations is one message per rule that tr breaks, naming every import and file that
// breaks it, sorted so that a failure reads the same on every run.
func houseViolations(tr tree) []string {
	var out []string
	for _, r := range houseRules {
		var bad []string
		for pkg, ims := range tr.imports {
			for _, im := range ims {
				if r.breaks(pkg, im) {
					bad = append(bad, pkg+" imports "+strings.TrimPrefix(im, module))
				}
			}
		}
		if len(bad) > 0 {
			slices.Sort(bad)
			out = append(out, r.says+"; but:\n\t"+strings.Join(bad, "\n\t"))
		}
	}
	var long []string
	for file, n := range tr.lines {
		if n > maxFileLines {
			long = append(long, file+" has "+strconv.Itoa(n)+" lines")
		}
	}
	if len(long) > 0 {
		slices.Sort(long)
		out = append(out, "no hand-written Go file is over "+strconv.Itoa(maxFileLines)+" lines (split it by what its parts do); but:\n\t"+strings.Join(long, "\n\t"))
	}
	return out
}

// TestHouseNamesEveryViolation: a tree that breaks the rules is told every break, each rule in
// one message, so a change that breaks several learns all of them at once.
func TestHouseNamesEveryViolation(t *testing.T) {
	bad := tree{
		imports: map[string][]string{
			"experiments":           {"github.com/labstack/echo/v4", "github.com/a-h/templ"},
			"rooms":                 {"github.com/go-echarts/go-echarts/v2/charts"},
			"internal/web/notebook": {module + "internal/web/roomsweb", "github.com/a-h/templ"},
			"internal/web":          {module + "rooms", module + "pages"},
			"present":               {module + "pages"},
			"internal/cli":          {module + "internal/site"},
			"pages":                 {"github.com/a-h/templ"},
		},
		lines: map[string]int{"rooms/service.go": 601, "pages/views.go": 600},
	}
	got := houseViolations(bad)
	if len(got) != len(houseRules)+1 {
		t.Fatalf("%d messages for %d broken rules: %q", len(got), len(houseRules)+1, got)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"experiments imports github.com/labstack/echo/v4", "experiments imports github.com/a-h/templ",
		"internal/web/notebook imports github.com/a-h/templ", "rooms imports github.com/go-echarts/go-echarts/v2/charts",
		"internal/web/notebook imports internal/web/roomsweb", "internal/web imports pages", "internal/web imports rooms",
		"present imports pages", "internal/cli imports internal/site", "rooms/service.go has 601 lines",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the violations do not name %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "pages imports") || strings.Contains(all, "pages/views.go") {
		t.Errorf("a tree within the rules was blamed:\n%s", all)
	}
}
