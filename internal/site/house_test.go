package site

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoGoFileOver600Lines keeps every hand-written Go file of the project, tests included, short
// enough to read in one sitting; templ's generated files are exempt.
func TestNoGoFileOver600Lines(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "testdata-artifacts") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_templ.go") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		n := 0
		for sc := bufio.NewScanner(f); sc.Scan(); {
			n++
		}
		if n > 600 {
			t.Errorf("%s has %d lines; split it by what it holds", p, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
