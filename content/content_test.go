package content

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestParsePage(t *testing.T) {
	src := "# Title here\n\nThe lede, in one paragraph.\n\n## The problem\n\nSome *prose*.\n\n::: experiment window\n\n## Run it\n\n```\n::: experiment not-a-marker\n```\n\n::: cards\n### Why?\nBecause.\n### How?\nLike this.\n::: end\n\n::: source Window\n"
	b, err := Load(fstest.MapFS{"p.md": {Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	p, ok := b.Page("p")
	if !ok {
		t.Fatal("page p not loaded")
	}
	if p.Title != "Title here" || !strings.Contains(p.Lede, "The lede") {
		t.Errorf("title %q lede %q", p.Title, p.Lede)
	}
	var kinds []string
	for _, part := range p.Parts {
		if part.Marker == "" {
			kinds = append(kinds, "html")
		} else {
			kinds = append(kinds, part.Marker+":"+part.Arg)
		}
	}
	want := "html experiment:window html cards: source:Window"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("parts = %q, want %q", got, want)
	}
	if !strings.Contains(p.Parts[2].HTML, "not-a-marker") {
		t.Errorf("a marker inside a code fence must stay prose: %q", p.Parts[2].HTML)
	}
	if len(p.Parts[3].Cards) != 2 || p.Parts[3].Cards[1].Question != "How?" || !strings.Contains(p.Parts[3].Cards[1].Answer, "Like this.") {
		t.Errorf("cards = %+v", p.Parts[3].Cards)
	}
	if len(p.Headings) != 2 || p.Headings[0].ID != "the-problem" || p.Headings[1].ID != "run-it" {
		t.Errorf("headings = %+v", p.Headings)
	}
	if !strings.Contains(p.Parts[0].HTML, `id="the-problem"`) {
		t.Errorf("heading id not rendered: %s", p.Parts[0].HTML)
	}
	if len(p.Sections) != 2 || p.Sections[0].Title != "The problem" {
		t.Errorf("sections = %+v", p.Sections)
	}
}

func TestLoadRejectsBadMarkers(t *testing.T) {
	for name, src := range map[string]string{
		"unknown marker":    "# T\n\n::: chart window\n",
		"experiment no arg": "# T\n\n::: experiment\n",
		"unclosed cards":    "# T\n\n::: cards\n### Q\nA\n",
		"stray end":         "# T\n\n::: end\n",
		"no title":          "Just text\n",
		"text before card":  "# T\n\n::: cards\nloose text\n::: end\n",
		"after no arg":      "# T\n\n::: experiment window\n\n::: after\nText.\n::: end\n",
		"after unclosed":    "# T\n\n::: experiment window\n\n::: after window\nText.\n",
		"after of nothing":  "# T\n\n::: experiment window\n\n::: after lease\nText.\n::: end\n",
		"heading in after":  "# T\n\n::: experiment window\n\n::: after window\n## Run it\n::: end\n",
		"marker in after":   "# T\n\n::: experiment window\n\n::: after window\n::: source Window\n::: end\n",
		"after in cards":    "# T\n\n::: experiment window\n\n::: cards\n### Q\n::: after window\n::: end\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Load(fstest.MapFS{"x.md": {Data: []byte(src)}}); err == nil {
				t.Errorf("Load accepted %q", src)
			}
		})
	}
}

// TestAfterPart: the prose between ::: after and ::: end is one part of its own, rendered, naming
// the experiments whose results it discusses; a code fence inside it keeps its marker-like lines,
// and its words count as the page's.
func TestAfterPart(t *testing.T) {
	src := "# T\n\nLede.\n\n::: experiment window\n\n::: experiment lease\n\n::: after window lease\nAt the defaults **195** escape.\n\n```\n::: end\n```\n::: end\n\nInstructions stay.\n"
	b, err := Load(fstest.MapFS{"p.md": {Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := b.Page("p")
	if len(p.Parts) != 4 {
		t.Fatalf("parts = %+v", p.Parts)
	}
	a := p.Parts[2]
	if a.Marker != MarkerAfter || strings.Join(a.Names(), ",") != "window,lease" {
		t.Errorf("after part %q %q", a.Marker, a.Arg)
	}
	if !strings.Contains(a.HTML, "<strong>195</strong>") || !strings.Contains(a.HTML, "::: end") || strings.Contains(a.HTML, "Instructions") {
		t.Errorf("after part's HTML: %s", a.HTML)
	}
	if p.Parts[3].Marker != "" || !strings.Contains(p.Parts[3].HTML, "Instructions stay.") {
		t.Errorf("the prose after ::: end is a part of its own: %+v", p.Parts[3])
	}
	if p.Words < 8 {
		t.Errorf("words = %d: the after part's prose is not counted", p.Words)
	}
}

func TestNoRawHTML(t *testing.T) {
	b, err := Load(fstest.MapFS{"x.md": {Data: []byte("# T\n\n<script>alert(1)</script>\n\nok\n")}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := b.Page("x")
	for _, part := range p.Parts {
		if strings.Contains(part.HTML, "<script>") {
			t.Errorf("raw HTML passed through: %s", part.HTML)
		}
	}
}

// TestEmbeddedBook loads the real prose: every page parses and carries substantial prose of its
// own (block pages at least 500 words, the concept page at least 1,500).
func TestEmbeddedBook(t *testing.T) {
	b, err := Load(Files)
	if err != nil {
		t.Fatal(err)
	}
	min := map[string]int{"semantics": 1000, "boundaries": 1500}
	for _, e := range Contents() {
		want := min[e.Slug]
		if want == 0 {
			want = 300
		}
		if e.Block() > 0 {
			want = 500
		}
		p, ok := b.Page(e.Slug)
		if !ok {
			t.Errorf("page %s is missing", e.Slug)
			continue
		}
		if p.Words < want {
			t.Errorf("%s: %d words, want at least %d", e.Slug, p.Words, want)
		}
	}
	for _, slug := range b.Slugs() {
		p, _ := b.Page(slug)
		if p.Title == "" || p.Words < 20 {
			t.Errorf("%s: title %q, %d words", slug, p.Title, p.Words)
		}
	}
	if p, _ := b.Page("predictions"); p == nil || len(p.Sections) != 5 {
		t.Error("predictions.md must ask exactly five questions")
	}
	tl, _ := b.Page("timeline")
	if tl == nil || len(tl.Sections) < 6 {
		t.Fatal("timeline.md needs its steps")
	}
	for _, s := range tl.Sections {
		if tr := s.Attrs["track"]; tr != "crash" && tr != "fix" {
			t.Errorf("timeline step %q has no Track line", s.Title)
		}
		if strings.Contains(s.HTML, "Track:") {
			t.Errorf("timeline step %q renders its Track line", s.Title)
		}
	}
}

// TestContents checks the table of pages: unique slugs and paths, blocks numbered 1 to Blocks()
// in order, and a markdown file for every entry.
func TestContents(t *testing.T) {
	b, err := Load(Files)
	if err != nil {
		t.Fatal(err)
	}
	slugs, paths := map[string]bool{}, map[string]bool{}
	next := 1
	for _, e := range Contents() {
		if slugs[e.Slug] || paths[e.Path] {
			t.Errorf("entry %+v repeats a slug or a path", e)
		}
		slugs[e.Slug], paths[e.Path] = true, true
		if !strings.HasPrefix(e.Path, "/") || e.Nav == "" {
			t.Errorf("entry %+v needs a rooted path and a contents title", e)
		}
		if _, ok := b.Page(e.Slug); !ok {
			t.Errorf("entry %s has no markdown file", e.Slug)
		}
		if n := e.Block(); n > 0 {
			if n != next {
				t.Errorf("block %d comes where block %d should", n, next)
			}
			next++
		}
	}
	if Blocks() != 6 || next != 7 {
		t.Errorf("Blocks() = %d, want the six blocks of the document", Blocks())
	}
}

// loadBook loads the embedded prose or stops the test.
func loadBook(t *testing.T) *Book {
	t.Helper()
	b, err := Load(Files)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// source returns a page's markdown as written.
func source(t *testing.T, slug string) string {
	t.Helper()
	src, err := Files.ReadFile(slug + ".md")
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}
