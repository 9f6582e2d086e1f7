package pages

import (
	"context"
	"strings"
	"testing"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// TestJobsWordsSayTheRow: the "which jobs?" list and a job's timeline place their count in its row
// with the presenter's words ("with design at-most-once", not "at at-most-once"), the outbox's
// counts are of events, and the run's parameters read as the form labels them.
func TestJobsWordsSayTheRow(t *testing.T) {
	list := renderString(t, JobsList(JobsView{Experiment: "assembly", Outcome: "lost", Point: "at-most-once",
		At: experiments.Point{Name: "at-most-once"}, Total: 398, Page: true}))
	if !strings.Contains(list, ">398 jobs lost with design at-most-once</h2>") {
		t.Errorf("list heading: %s", between(list, "<h2", "</h2>"))
	}
	events := renderString(t, JobsList(JobsView{Experiment: "outbox", Outcome: "lost", Point: "dual-write-db-first",
		At: experiments.Point{Name: "dual-write-db-first"}, Total: 381}))
	if !strings.Contains(events, ">381 events lost with dual-write-db-first, consumer without dedup</h4>") {
		t.Errorf("outbox heading: %s", between(events, "<h4", "</h4>"))
	}
	window, _ := experiments.Lookup("window")
	p := window.Defaults().(experiments.WindowParams)
	p.Jobs, p.Windows = 5000, []int64{300, 4000}
	if got, want := ParamsText(window, p), "Jobs 5,000 · Crash rate 0.02 · Stream seed 13 · Max redelivery delay 2,000 jobs · Delay seed 17 · Dedup windows 300, 4,000 ids"; got != want {
		t.Errorf("ParamsText = %q\n          want %q", got, want)
	}
	// The links on the outbox's counts ask for events, on the assembly's for jobs.
	for name, want := range map[string]string{"outbox": "which events?", "assembly": "which jobs?"} {
		e, _ := experiments.Lookup(name)
		p := e.Defaults()
		res, err := e.Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		pr, _ := present.PresenterOf(e)
		_, tables, _, err := pr.View("exp-"+name, present.Scope{}, p, res)
		if err != nil {
			t.Fatal(err)
		}
		links := NewJobLinks(testSite(), e, p, "exp-"+name)
		var texts []string
		for r := range tables[0].Rows {
			for c := range tables[0].Rows[r] {
				if l, ok := links.For(tables[0], r, c); ok {
					texts = append(texts, l.Text)
					if !strings.HasPrefix(l.Label, want+" ") {
						t.Errorf("%s: label %q", name, l.Label)
					}
				}
			}
		}
		if len(texts) == 0 || strings.Join(texts, "") != strings.Repeat(want, len(texts)) {
			t.Errorf("%s: links read %q, want each %q", name, texts, want)
		}
	}
}
