package pages

import (
	"context"
	"errors"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// blockHTML renders the block of experiment name on the page at path, parsed from raw as the
// page's first form; a second experiment, when given, takes the page's stream from it.
func blockHTML(t *testing.T, path string, raw map[string]string, names ...string) []string {
	t.Helper()
	var runs []Run
	for i, name := range names {
		e, ok := experiments.Lookup(name)
		if !ok {
			t.Fatalf("no experiment %s", name)
		}
		r := Run{Experiment: e, Raw: map[string]string{}}
		sub := map[string][]string{}
		if i > 0 {
			r.Prefix, r.Inherited = name+".", map[string]bool{}
		}
		for _, f := range e.Fields {
			if i > 0 && f.Shared {
				if ff, ok := runs[0].Experiment.Field(f.Name); ok && ff == f {
					r.Inherited[f.Name] = true // as the handler's readRun marks them
				}
			}
			if v, ok := raw[f.Name]; ok {
				sub[f.Name], r.Raw[f.Name] = []string{v}, v
			}
		}
		p, err := e.Parse(sub)
		var fe experiments.FieldErrors
		switch {
		case errors.As(err, &fe):
			r.Errors = fe
		case err != nil:
			t.Fatal(err)
		default:
			r.Params = p
			if r.Result, err = e.Run(context.Background(), p); err != nil {
				t.Fatal(err)
			}
		}
		runs = append(runs, r)
	}
	var out []string
	for _, r := range runs {
		v, err := NewExperimentView(testSite(), path, r, runs)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, render(t, Experiment(v)))
	}
	return out
}

// TestFieldMessagesReadAsSentences: a refusal follows the field's label ("Dedup windows: ..."), so
// it must not open with a bare verb ("Dedup windows: is empty"), and a value refused for the run's
// size is written as the site writes numbers, with a space before the reason (issue 19, item 18).
func TestFieldMessagesReadAsSentences(t *testing.T) {
	html := blockHTML(t, "/blocks/4", map[string]string{"windows": ""}, "window")[0]
	if !strings.Contains(html, "Dedup windows: the field is empty; it must be") {
		t.Errorf("an empty list reads without a subject:\n%s", between(html, `class="error"`, "</p>"))
	}
	if html := blockHTML(t, "/blocks/4", map[string]string{"crash_rate": "1", "jobs": "6000000"}, "window")[0]; !strings.Contains(html, "Jobs: 6,000,000 makes this run too large to compute here; with the other values as they are, jobs can be at most") {
		t.Errorf("the window's own refusal:\n%s", between(html, `class="error"`, "</p>"))
	}
	big := blockHTML(t, "/blocks/4", map[string]string{"crash_rate": "1", "jobs": "3000000"}, "window", "window-grid")
	if !strings.Contains(big[1], "Jobs <strong>3,000,000</strong> <span class=\"error\">(3,000,000 makes this run too large") {
		t.Errorf("the grid's stream line:\n%s", between(big[1], `class="stream"`, "</p>"))
	}
}

// TestJobsHelpStatesTheRealBound: at a crash rate of 1 the budget of one run refuses far fewer jobs
// than the field's range; the help says so, for the values in the form, taking in the later forms
// that run on the same stream (issue 19, item 18).
func TestJobsHelpStatesTheRealBound(t *testing.T) {
	at := func(html string) string { return between(html, `id="exp-window-jobs-help">`, "</p>") }
	def := blockHTML(t, "/blocks/4", nil, "window", "window-grid")[0]
	if h := at(def); strings.Contains(h, "at most") {
		t.Errorf("at the document's values the range is the bound, yet the help says %q", h)
	}
	e, _ := experiments.Lookup("window-grid")
	p := e.Defaults().(experiments.WindowGridParams)
	p.CrashRate = 1
	want, ok := e.MaxFitting(p, "jobs")
	if !ok || want >= 10_000_000 {
		t.Fatalf("the grid at crash rate 1 should fit fewer than 10,000,000 jobs, got %d, %v", want, ok)
	}
	hot := blockHTML(t, "/blocks/4", map[string]string{"crash_rate": "1"}, "window", "window-grid")[0]
	if h := at(hot); !strings.Contains(h, "Accepts a whole number from 1 to 10,000,000; with the other values in this form, at most "+experiments.Thousands(want)+".") {
		t.Errorf("help at crash rate 1 = %q, want the grid's bound %s", h, experiments.Thousands(want))
	}
	// The bound is the budget's: one more job is refused, the bound itself is not.
	for n, refused := range map[int64]bool{want: false, want + 1: true} {
		if _, err := e.Parse(map[string][]string{"jobs": {experiments.Thousands(n)}, "crash_rate": {"1"}}); (err != nil) != refused {
			t.Errorf("jobs %d: refused %v, want %v (%v)", n, err != nil, refused, err)
		}
	}
}

// between is the text of s from the first from up to the next to, for a failure message.
func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return "(no " + from + ")"
	}
	s = s[i+len(from):]
	if j := strings.Index(s, to); j >= 0 {
		return s[:j]
	}
	return s
}

// TestDocumentTitleNamesTheSiteOnce (issue 19, item 19): the home page's title is the notebook's
// name, and the tab read "Effectively Once · Effectively Once".
func TestDocumentTitleNamesTheSiteOnce(t *testing.T) {
	for title, want := range map[string]string{
		SiteName:                    "<title>Effectively Once</title>",
		"Block 4: The dedup window": "<title>Block 4: The dedup window · Effectively Once</title>",
	} {
		if html := render(t, Layout(testSite(), title, Contents(nil))); !strings.Contains(html, want) {
			t.Errorf("title %q: page lacks %s", title, want)
		}
	}
}
