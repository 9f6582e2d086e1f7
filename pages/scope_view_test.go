package pages

import (
	"context"
	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/present"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestViewCutsAndMarks draws the assembly as block 2 shows it: two rows, the second marked in the
// table and the chart, a reading of those two only; the measures still come from the whole run.
func TestViewCutsAndMarks(t *testing.T) {
	e, _ := experiments.Lookup("assembly")
	p := e.Defaults()
	res, err := e.Run(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	r := Run{Experiment: e, Raw: map[string]string{}, Params: p, Result: res,
		Scope: present.Scope{UpTo: "at-least-once", Focus: "at-least-once"}}
	v, err := NewExperimentView(testSite(), "/blocks/2", r, []Run{r})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Tables) != 1 {
		t.Fatalf("%d tables", len(v.Tables))
	}
	var rows []string
	for _, row := range v.Tables[0].Rows {
		rows = append(rows, row[0])
	}
	if !slices.Equal(rows, []string{"at-most-once", "at-least-once"}) || v.Tables[0].Focus != "at-least-once" {
		t.Errorf("rows %q focus %q", rows, v.Tables[0].Focus)
	}
	if !strings.HasPrefix(v.Tables[0].Caption, "Two designs,") {
		t.Errorf("caption %q counts the wrong designs", v.Tables[0].Caption)
	}
	j := optionsOf(t, v.Charts[0].Options)
	cats := present.Objects(j["yAxis"])[0]["data"].([]any)
	if len(cats) != 2 {
		t.Errorf("chart categories %v, want two", cats)
	}
	if m, _ := cats[1].(map[string]any); m == nil || m["value"] != "at-least-once" || m["textStyle"].(map[string]any)["fontWeight"] != "bold" {
		t.Errorf("the focus category is not marked: %v", cats[1])
	}
	if text := strings.Join(v.Reading, " "); strings.Contains(text, "dedup") || strings.Contains(text, "transaction") {
		t.Errorf("the reading speaks of rows the page has not shown: %s", text)
	}
	html := render(t, Experiment(v))
	if !strings.Contains(html, `<tr class="focus" aria-current="true"><th scope="row" class="">at-least-once <span class="focus-note">this page</span>`) {
		t.Errorf("the focus row is not marked in the table:\n%s", html[strings.Index(html, "<tbody>"):])
	}
}

// render renders c to a string.
func render(t *testing.T, c interface {
	Render(ctx context.Context, w io.Writer) error
}) string {
	t.Helper()
	var b strings.Builder
	if err := c.Render(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// optionsOf is a chart's options as the browser reads them: through JSON.
func optionsOf(t *testing.T, o map[string]any) map[string]any {
	t.Helper()
	var out map[string]any
	b, err := json.Marshal(o)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScopesOfTheBook checks every experiment marker of the notebook against its presenter, and
// that each block shows the assembly's rows it has introduced, marking its own.
func TestScopesOfTheBook(t *testing.T) {
	book, err := content.Load(content.Files)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]present.Scope{}
	for _, e := range content.Contents() {
		page, _ := book.Page(e.Slug)
		for _, part := range page.Parts {
			if part.Marker != content.MarkerExperiment {
				continue
			}
			_, ok := present.PresenterFor(part.Name())
			if !ok {
				t.Fatalf("%s: no presenter for %q", e.Slug, part.Name())
			}
			if err := CheckMarker(part); err != nil {
				t.Errorf("%s: %v", e.Slug, err)
			}
			if part.Name() == "assembly" {
				got[e.Slug], _ = ScopeOf(part)
			}
		}
	}
	want := map[string]present.Scope{
		"blocks/1": {UpTo: "at-most-once", Focus: "at-most-once"},
		"blocks/2": {UpTo: "at-least-once", Focus: "at-least-once"},
		"blocks/3": {Focus: "dedup-transactional"},
		"assembly": {NoTitle: true},
	}
	for slug, w := range want {
		if got[slug] != w {
			t.Errorf("%s: assembly shown with %+v, want %+v", slug, got[slug], w)
		}
	}
}

// TestCheckScopeRejects stops a marker that names a row the experiment does not have.
func TestCheckScopeRejects(t *testing.T) {
	for name, marker := range map[string]string{
		"no such row":      "assembly upto=at-least-twice",
		"focus cut off":    "assembly upto=at-most-once focus=at-least-once",
		"rows of no kind":  "window focus=100",
		"title other than": "assembly title=short",
	} {
		t.Run(name, func(t *testing.T) {
			b, err := content.Load(fstest.MapFS{"x.md": {Data: []byte("# T\n\n::: experiment " + marker + "\n")}})
			if err != nil {
				t.Fatal(err)
			}
			p, _ := b.Page("x")
			if err := CheckMarker(p.Parts[0]); err == nil {
				t.Errorf("CheckScope accepted %q", marker)
			}
		})
	}
}
