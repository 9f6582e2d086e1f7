package site

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

const module = "effectivelyonce/"

// maxFileLines is the longest a hand-written Go file may grow: past it a file holds more than one
// thing, and a newcomer reading the house loses the thread.
const maxFileLines = 600

// tree is what the house rules read of the module: what the non-test files of each package import,
// and everything they depend on however deep (go list's Deps), by package path (relative to the
// module), and how long each hand-written non-test file is.
type tree struct {
	imports map[string][]string
	deps    map[string][]string
	lines   map[string]int
}

// readTree walks the module from its root, skipping node_modules, testdata and dot directories.
func readTree(t *testing.T) tree {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := tree{imports: map[string][]string{}, deps: readDeps(t, root), lines: map[string]int{}}
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

// readDeps asks the go command for every package's transitive dependencies (their non-test
// files'), keyed by the package's path relative to the module: an import's own imports are where
// a library comes in unseen, as templ once came into the command line through pages.
func readDeps(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) > 0 {
			deps[strings.TrimPrefix(f[0], module)] = f[1:]
		}
	}
	return deps
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

// webLibraries are the libraries of the web layer and the templates, each by its module path: a
// package below them must not depend on one, however deep, or it drags the web along.
var webLibraries = []string{"github.com/labstack/echo/v4", "github.com/a-h/templ", "github.com/go-echarts/go-echarts/v2"}

// belowTheWeb reports whether pkg is one of the packages that run work, present it or hold a
// domain, which must not depend on webLibraries: present may depend on go-echarts, whose chart
// options it builds by design, and so may what imports present (the command line's tables).
func belowTheWeb(pkg string) bool {
	for _, root := range []string{"internal/cli", "internal/runs", "present", "experiments", "rooms", "lab", "workbench"} {
		if pkg == root || strings.HasPrefix(pkg, root+"/") {
			return true
		}
	}
	return false
}

// depViolations names every package below the web that depends on a web library it may not
// have, with the import of its own that brings it in, sorted.
func depViolations(tr tree) []string {
	var bad []string
	for pkg, deps := range tr.deps {
		if !belowTheWeb(pkg) {
			continue
		}
		for _, lib := range webLibraries {
			if !dependsOn(deps, lib) {
				continue
			}
			viaPresent := pkg == "present" || slices.Contains(deps, module+"present")
			if lib == "github.com/go-echarts/go-echarts/v2" && viaPresent {
				continue
			}
			bad = append(bad, pkg+" depends on "+lib+through(tr, pkg, lib))
		}
	}
	slices.Sort(bad)
	return bad
}

// dependsOn reports whether deps hold lib's module or one of its packages.
func dependsOn(deps []string, lib string) bool {
	return slices.ContainsFunc(deps, func(d string) bool { return d == lib || strings.HasPrefix(d, lib+"/") })
}

// through names the imports of pkg that bring lib in, for a failure a reader can act on: " (through
// pages)", or "" when pkg imports lib itself.
func through(tr tree, pkg, lib string) string {
	var via []string
	for _, im := range tr.imports[pkg] {
		if im == lib || strings.HasPrefix(im, lib+"/") {
			return ""
		}
		if rel, ours := strings.CutPrefix(im, module); ours && dependsOn(tr.deps[rel], lib) {
			via = append(via, rel)
		}
	}
	if len(via) == 0 {
		return ""
	}
	slices.Sort(via)
	return " (through " + strings.Join(via, ", ") + ")"
}

// TestTheHouse holds the layout README's "What is where" describes: echo stays in the web layer
// and the domains' handler packages; no domain's handlers import another's or the assembly;
// presentation imports no other package of ours than the experiments; templ stays in pages and
// echarts in present; the web layer knows no domain; running work, the command line,
// presentation and the domains depend on no web library however deep (echarts only through
// present); no file outside the experiments' registry keys an experiment by its name; no
// hand-written file outgrows maxFileLines. Each rule names every package that breaks it, in one
// failure.
func TestTheHouse(t *testing.T) {
	tr := readTree(t)
	if len(tr.imports) < 20 || len(tr.deps) < len(tr.imports) {
		t.Fatalf("read only %d packages, and the dependencies of %d", len(tr.imports), len(tr.deps))
	}
	// The rules below read deps: a package they are about that go list did not answer for would
	// pass them unread.
	for _, pkg := range []string{"internal/cli", "internal/runs", "present", "experiments", "rooms", "lab", "workbench"} {
		if len(tr.deps[pkg]) == 0 {
			t.Errorf("no dependencies read for %s", pkg)
		}
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
	if bad := depViolations(tr); len(bad) > 0 {
		out = append(out, "running work, the command line, presentation and the domains depend on no web library, however deep "+
			"(go-echarts only through present); but:\n\t"+strings.Join(bad, "\n\t"))
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

// nameKeyDirs are the directories whose files must not key an experiment by its name: the web
// layer and its domains, the assembly, the command line and the templates. An experiment's facts
// are in its definition (experiments/) and its words in its presenter (present/), which key
// their own by name, as the catalog and the presenters' list do.
var nameKeyDirs = []string{"cmd", "internal", "pages"}

// nameKeysAllowed are the string literals in those files that spell an experiment's name and mean
// something else, by file and literal, each with the reason.
var nameKeysAllowed = map[string]string{
	`internal/web/notebook/articles.go "keys"`:          "a section's keys attribute in the prose, not the keys experiment",
	`internal/web/workbenchweb/workbench.go "assembly"`: "the assembly page's slug in the table of contents, not the experiment",
	`internal/cli/lab.go "lease"`:                       "a handler run's model delays that a lease decides (the lab's word), not the lease experiment",
}

// readSources reads every hand-written non-test Go file and every templ file under dirs, by path
// relative to root.
func readSources(t *testing.T, root string, dirs []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			goFile := strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")
			if d.IsDir() || !goFile && !strings.HasSuffix(path, ".templ") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if goFile && generated(src) {
				return nil // templ's output, whose literals its .templ file holds
			}
			rel, _ := filepath.Rel(root, path)
			out[filepath.ToSlash(rel)] = string(src)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// nameKeys names every string literal in files that spells one of the experiments' names and is
// not in allowed, by file and line, and every entry of allowed that no file holds any more (so the
// list stays short and true), sorted.
func nameKeys(files map[string]string, names []string, allowed map[string]string) []string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(strconv.Quote(n))
	}
	re := regexp.MustCompile(strings.Join(quoted, "|"))
	var bad []string
	used := map[string]bool{}
	for file, src := range files {
		for i, line := range strings.Split(src, "\n") {
			for _, lit := range re.FindAllString(line, -1) {
				key := file + " " + lit
				if _, ok := allowed[key]; ok {
					used[key] = true
					continue
				}
				bad = append(bad, file+":"+strconv.Itoa(i+1)+" keys the experiment "+lit+" by its name")
			}
		}
	}
	for key := range allowed {
		if !used[key] {
			bad = append(bad, "nameKeysAllowed lists "+key+", which no file holds: remove it")
		}
	}
	slices.Sort(bad)
	return bad
}

// TestNoFileKeysAnExperimentByName: an experiment's facts and words are found through its
// definition and its presenter, never by a file that writes its name: such a file is one more
// place a new or renamed experiment must be found in (issue 20's "one definition").
func TestNoFileKeysAnExperimentByName(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := readSources(t, root, nameKeyDirs)
	if len(files) < 50 {
		t.Fatalf("read only %d files", len(files))
	}
	var names []string
	for _, e := range experiments.All() {
		names = append(names, e.Name)
	}
	if bad := nameKeys(files, names, nameKeysAllowed); len(bad) > 0 {
		t.Errorf("no file outside experiments/ and present/ keys an experiment by its name (find it through its definition "+
			"or its presenter; a literal that means something else goes in nameKeysAllowed with why); but:\n\t%s", strings.Join(bad, "\n\t"))
	}
}

// TestNameKeysFindsEveryKey: a name written in a Go file or a template is found with its line, an
// allowed one is not, a name inside a longer literal is not, and an allowance no file needs is
// named too.
func TestNameKeysFindsEveryKey(t *testing.T) {
	files := map[string]string{
		"pages/a.templ":   "x\nif experiment == \"outbox\" {",
		"internal/b.go":   `q.Set("windows", w); return "window", q`,
		"internal/ok.go":  `attrs["keys"]`,
		"internal/far.go": `"window-grid-ish" "lease"`,
	}
	allowed := map[string]string{`internal/ok.go "keys"`: "an attribute", `internal/gone.go "scale"`: "stale"}
	got := strings.Join(nameKeys(files, []string{"outbox", "window", "keys", "lease", "scale"}, allowed), "\n")
	for _, want := range []string{`pages/a.templ:2 keys the experiment "outbox"`, `internal/b.go:1 keys the experiment "window"`,
		`internal/far.go:1 keys the experiment "lease"`, `internal/gone.go "scale", which no file holds`} {
		if !strings.Contains(got, want) {
			t.Errorf("nameKeys does not say %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "internal/ok.go") || strings.Contains(got, `"windows"`) || strings.Contains(got, "window-grid-ish") {
		t.Errorf("nameKeys blamed an allowed literal or a longer one:\n%s", got)
	}
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
			"internal/cli":          {module + "internal/site", module + "pages", module + "present"},
			"pages":                 {"github.com/a-h/templ"},
		},
		// The command line reaches templ through pages, and echarts through present as well,
		// which present may bring; rooms imports echarts itself.
		deps: map[string][]string{
			"internal/cli": {module + "pages", module + "present", "github.com/a-h/templ", "github.com/a-h/templ/runtime", "github.com/go-echarts/go-echarts/v2/charts"},
			"pages":        {"github.com/a-h/templ", module + "present", "github.com/go-echarts/go-echarts/v2/charts"},
			"present":      {module + "experiments", "github.com/go-echarts/go-echarts/v2/charts"},
			"rooms":        {"github.com/go-echarts/go-echarts/v2/charts"},
			"experiments":  {"github.com/labstack/echo/v4", "github.com/a-h/templ"},
		},
		lines: map[string]int{"rooms/service.go": 601, "pages/views.go": 600},
	}
	got := houseViolations(bad)
	if len(got) != len(houseRules)+2 {
		t.Fatalf("%d messages for %d broken rules: %q", len(got), len(houseRules)+2, got)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"experiments imports github.com/labstack/echo/v4", "experiments imports github.com/a-h/templ",
		"internal/web/notebook imports github.com/a-h/templ", "rooms imports github.com/go-echarts/go-echarts/v2/charts",
		"internal/web/notebook imports internal/web/roomsweb", "internal/web imports pages", "internal/web imports rooms",
		"present imports pages", "internal/cli imports internal/site", "rooms/service.go has 601 lines",
		"internal/cli depends on github.com/a-h/templ (through pages)", "rooms depends on github.com/go-echarts/go-echarts/v2\n",
		"experiments depends on github.com/labstack/echo/v4\n",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the violations do not name %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "pages imports") || strings.Contains(all, "pages/views.go") || strings.Contains(all, "pages depends") ||
		strings.Contains(all, "present depends") || strings.Contains(all, "internal/cli depends on github.com/go-echarts") {
		t.Errorf("a tree within the rules was blamed:\n%s", all)
	}
}
