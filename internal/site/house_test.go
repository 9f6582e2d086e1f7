package site

import (
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

// imports lists what the non-test files of each package under the module's root import, by
// package path.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
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
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := module + filepath.ToSlash(rel)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !slices.Contains(out[pkg], p) {
				out[pkg] = append(out[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTheHouse holds the layout README's "What is where" describes: echo stays in the web layer
// and the domains' handler packages; no domain's handlers import another's or the assembly;
// presentation imports no other package of ours than the experiments.
func TestTheHouse(t *testing.T) {
	all := imports(t)
	if len(all) < 20 {
		t.Fatalf("read only %d packages", len(all))
	}
	domains := []string{"internal/web/notebook", "internal/web/roomsweb", "internal/web/labweb", "internal/web/workbenchweb"}
	for pkg, ims := range all {
		rel := strings.TrimPrefix(pkg, module)
		web := rel == "internal/web" || strings.HasPrefix(rel, "internal/web/") || rel == "internal/site" || rel == "internal/sitetest"
		for _, im := range ims {
			if strings.HasPrefix(im, "github.com/labstack/echo") && !web {
				t.Errorf("%s imports echo; only the web layer and the domains' handlers may", rel)
			}
			target := strings.TrimPrefix(im, module)
			if slices.Contains(domains, rel) && target != rel && (slices.Contains(domains, target) || target == "internal/site") {
				t.Errorf("%s imports %s: a domain's handlers import no other's, nor the assembly", rel, target)
			}
			if rel == "present" && strings.HasPrefix(im, module) && target != "experiments" {
				t.Errorf("present imports %s; it may import only experiments", target)
			}
			if (rel == "internal/runs" || rel == "internal/cli") && (strings.HasPrefix(target, "internal/web") || target == "internal/site" || strings.HasPrefix(im, "github.com/a-h/templ")) {
				t.Errorf("%s imports %s", rel, im)
			}
		}
	}
	for _, d := range domains {
		if _, ok := all[module+d]; !ok {
			t.Errorf("no package %s", d)
		}
	}
}
