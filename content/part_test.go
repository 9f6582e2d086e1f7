package content

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestPartOptions reads an experiment marker's name and options, and keeps Arg whole for the code
// that still reads it.
func TestPartOptions(t *testing.T) {
	src := "# T\n\n::: experiment assembly upto=at-least-once focus=at-least-once\n\n::: experiment window\n\n::: source Window deliveries.escaped\n"
	b, err := Load(fstest.MapFS{"p.md": {Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := b.Page("p")
	if len(p.Parts) != 3 {
		t.Fatalf("%d parts, want 3", len(p.Parts))
	}
	a, w, s := p.Parts[0], p.Parts[1], p.Parts[2]
	if a.Name() != "assembly" || a.Arg != "assembly upto=at-least-once focus=at-least-once" {
		t.Errorf("name %q arg %q", a.Name(), a.Arg)
	}
	if v, ok := a.Option(OptionUpTo); !ok || v != "at-least-once" {
		t.Errorf("upto = %q, %v", v, ok)
	}
	if v, ok := a.Option(OptionFocus); !ok || v != "at-least-once" {
		t.Errorf("focus = %q, %v", v, ok)
	}
	if _, ok := a.Option(OptionTitle); ok {
		t.Error("title option found on a marker without one")
	}
	if w.Name() != "window" {
		t.Errorf("name %q", w.Name())
	}
	if _, ok := w.Option(OptionFocus); ok {
		t.Error("focus option found on a marker without options")
	}
	if s.Name() != "Window" || strings.Fields(s.Arg)[1] != "deliveries.escaped" {
		t.Errorf("source marker name %q arg %q", s.Name(), s.Arg)
	}
}

// TestLoadRejectsBadOptions stops a typo in a marker's options at start-up.
func TestLoadRejectsBadOptions(t *testing.T) {
	for name, src := range map[string]string{
		"not key=value": "# T\n\n::: experiment assembly at-least-once\n",
		"unknown key":   "# T\n\n::: experiment assembly uptoo=at-least-once\n",
		"empty value":   "# T\n\n::: experiment assembly focus=\n",
		"twice":         "# T\n\n::: experiment assembly focus=a focus=b\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Load(fstest.MapFS{"x.md": {Data: []byte(src)}}); err == nil {
				t.Errorf("Load accepted %q", src)
			}
		})
	}
}

// TestContentsAgreeWithTitles holds every name in the contents (and so in the sidebar and the
// previous/next links) to the page's own title: a block's "4 · X" is its "Block 4: X", any other
// page's name is its title. The home page, whose title is the site's name, is "Start here".
func TestContentsAgreeWithTitles(t *testing.T) {
	b, err := Load(Files)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range Contents() {
		p, ok := b.Page(e.Slug)
		if !ok {
			t.Errorf("%s: no page", e.Slug)
			continue
		}
		if e.Slug == "index" {
			continue
		}
		want := p.Title
		if n := e.Block(); n > 0 {
			rest, ok := strings.CutPrefix(p.Title, "Block "+string(rune('0'+n))+": ")
			if !ok {
				t.Errorf("%s: title %q does not start with %q", e.Slug, p.Title, "Block "+string(rune('0'+n))+": ")
				continue
			}
			want = string(rune('0'+n)) + " · " + rest
		}
		if e.Nav != want {
			t.Errorf("%s: contents name %q, page title %q: want the name %q", e.Slug, e.Nav, p.Title, want)
		}
	}
}
