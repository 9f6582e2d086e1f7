package pages

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/a-h/templ"

	"effectivelyonce/content"
)

func renderString(t *testing.T, c templ.Component) string {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// TestAfterHiddenWithItsResult: the prose after ::: after window is drawn in a wrapper that the
// pending state hides, marked pending exactly while the window block waits for a guess, marked
// sealed while a study room holds the result, and plain for a reader who hides nothing; the
// prose outside the wrapper is never marked.
func TestAfterHiddenWithItsResult(t *testing.T) {
	src := "# Block\n\nLede.\n\n## Run it\n\n::: experiment window\n\n::: after window\nAt these values **198** escape.\n::: end\n\nTry another window.\n"
	book, err := content.Load(fstest.MapFS{"b.md": {Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ := book.Page("b")
	r := windowRun()
	draw := func(g Guessing, sealed bool) string {
		site := testSite()
		site.Guessing = g
		v, err := NewExperimentView(site, "/blocks/4", r, []Run{r})
		if err != nil {
			t.Fatal(err)
		}
		if sealed {
			v.Sealed = &Sealed{Round: 1, Question: "How many?"}
		}
		return renderString(t, Article(ArticleView{Site: site, Page: page, Runs: map[string]ExperimentView{"window": v}}))
	}
	wrapper := func(html string) string { return between(html, `<div class="prose after-result`, `</div></div>`) }
	pending := draw(ReadGuessing("on", ""), false)
	if w := wrapper(pending); !strings.HasPrefix(w, ` predict-pending" data-result-of="exp-window">`) ||
		!strings.Contains(w, `<p class="after-note">The discussion of this result is hidden until it shows.</p>`) ||
		!strings.Contains(w, `<div class="after-body"><p>At these values <strong>198</strong> escape.</p>`) {
		t.Errorf("pending: the wrapper is %q", w)
	}
	if strings.Count(pending, "predict-pending") != 2 { // the block and the wrapper, not the prose after it
		t.Errorf("pending: %d elements marked, want the block and the wrapper", strings.Count(pending, "predict-pending"))
	}
	if !strings.Contains(between(pending, "</div></div>", "</article>"), "Try another window.") {
		t.Error("the prose after ::: end is not drawn outside the wrapper")
	}
	key := between(pending, `data-predict-key="`, `"`)
	for name, html := range map[string]string{
		"hides nothing": draw(Guessing{}, false),
		"guessed":       draw(ReadGuessing("on", key+":150"), false),
	} {
		if w := wrapper(html); !strings.HasPrefix(w, `" data-result-of="exp-window">`) {
			t.Errorf("%s: the wrapper is marked: %q", name, w)
		}
	}
	if w := wrapper(draw(Guessing{}, true)); !strings.HasPrefix(w, ` result-sealed" data-result-of="exp-window">`) {
		t.Errorf("sealed: the wrapper is %q", w)
	}
}
