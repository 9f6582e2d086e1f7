package static

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// TestEditorBundle checks the editor's bundle that scripts/assets.sh builds: it is embedded, it is
// one self-contained script (no module syntax a plain <script src> would choke on, no import of
// anything at run time), it holds the editor's own code, and nothing in it compiles code from a
// string, which the CSP (script-src 'self', no 'unsafe-eval') would refuse.
func TestEditorBundle(t *testing.T) {
	b, err := fs.ReadFile(Files, "lib/editor.min.js")
	if err != nil {
		t.Fatalf("the editor's bundle is not embedded (run scripts/assets.sh): %v", err)
	}
	js := string(b)
	// esbuild's IIFE: one arrow function called at once, after the licence banner.
	code := strings.TrimSpace(js)
	if strings.HasPrefix(code, "/*") {
		_, code, _ = strings.Cut(code, "*/")
		code = strings.TrimSpace(code)
	}
	if !strings.HasPrefix(code, "(()=>{") || !strings.HasSuffix(code, "})();") {
		t.Errorf("the bundle is not one IIFE: it starts %q and ends %q", code[:min(len(code), 30)], code[max(0, len(code)-30):])
	}
	if len(js) < 100_000 {
		t.Errorf("the bundle is %d bytes: too small to hold CodeMirror, the Python mode and the lint gutter", len(js))
	}
	for _, want := range []string{"eoEditor", "data-editor-errors", "prefers-color-scheme"} {
		if !strings.Contains(js, want) {
			t.Errorf("the bundle lacks %q: it is not built from static/editor/editor.js", want)
		}
	}
	forbidden := map[string]*regexp.Regexp{
		"eval(":            regexp.MustCompile(`\beval\s*\(`),
		"new Function":     regexp.MustCompile(`\bnew\s+Function\b`),
		"Function(...)":    regexp.MustCompile(`(^|[^.\w$])Function\s*\(`),
		"a string timer":   regexp.MustCompile(`\bset(Timeout|Interval)\s*\(\s*["'\x60]`),
		"a require() call": regexp.MustCompile(`\brequire\s*\(`),
	}
	for what, re := range forbidden {
		if loc := re.FindStringIndex(js); loc != nil {
			t.Errorf("the bundle holds %s: %q", what, js[max(0, loc[0]-40):min(len(js), loc[1]+40)])
		}
	}
}
