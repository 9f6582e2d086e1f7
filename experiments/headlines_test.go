package experiments

import (
	"context"
	"testing"
)

// TestHeadlinesAtTheDefaults pins each experiment's headline at the document's values: the row a
// page asks about and the count the documents print there (window 195 at window 1,000, the lease
// 2,448 at 5 s, the assembly 398 on its own page), so a headline that moved to another row or count
// fails here by name.
func TestHeadlinesAtTheDefaults(t *testing.T) {
	for _, tc := range []struct {
		experiment, row string
		point, name     string
		want            float64
	}{
		{"assembly", "", "dedup-non-transactional", "duplicated", 398},
		{"assembly", "at-most-once", "at-most-once", "lost", 398},
		{"assembly", "at-least-once", "at-least-once", "duplicated", 398},
		{"assembly", "dedup-transactional", "dedup-transactional", "duplicated", 0},
		{"crash-sweep", "", "0.2", "errors", 0},
		{"keys", "", "job-id+attempt", "duplicated", 398},
		{"window", "", "1000", "escaped", 195},
		{"window-grid", "", "5000/2000", "escaped", 231},
		{"window-time", "", "", "window_ids", 30000},
		{"orderings", "", "key-then-effect", "lost", 398},
		{"lease", "", "5", "no_renewal", 2448},
		{"claims", "", "", "passed", 9},
		{"scale", "", "", "duplicates_per_day", 1000},
		{"outbox", "", "outbox", "duplicate_applications", 400},
	} {
		t.Run(tc.experiment+"/"+tc.row, func(t *testing.T) {
			e, ok := Lookup(tc.experiment)
			if !ok {
				t.Fatalf("no experiment %q", tc.experiment)
			}
			p := e.Defaults()
			res, err := e.Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			c, ok := e.Headline(p, res, tc.row)
			if !ok || c.Point != tc.point || c.Name != tc.name || c.Value != tc.want {
				t.Errorf("headline = %+v, %v; want %s at %q = %v", c, ok, tc.name, tc.point, tc.want)
			}
		})
	}
}

// TestHeadlineFollowsTheRun: the headline is asked at the reader's own parameters, so a run at other
// values asks about its own rows (the window nearest half the new maximum delay, the lease's
// shortest timeout tried), and a run with no points has none rather than a count from nowhere.
func TestHeadlineFollowsTheRun(t *testing.T) {
	w, _ := Lookup("window")
	wp := w.Defaults().(WindowParams)
	wp.MaxDelay, wp.Windows = 5000, []int64{500, 2000, 3000}
	res, err := w.Run(context.Background(), wp)
	if err != nil {
		t.Fatal(err)
	}
	// 2,000 and 3,000 are both 500 from half of 5,000: the smaller is asked.
	if c, ok := w.Headline(wp, res, ""); !ok || c.Point != "2000" || c.At.X != 2000 {
		t.Errorf("window at max delay 5,000: headline %+v, %v; want window 2,000", c, ok)
	}
	l, _ := Lookup("lease")
	lp := l.Defaults().(LeaseParams)
	lp.Timeouts = []float64{60, 2.5}
	lres, err := l.Run(context.Background(), lp)
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := l.Headline(lp, lres, ""); !ok || c.Point != "2.5" || c.Name != "no_renewal" {
		t.Errorf("lease at 60 and 2.5 s: headline %+v, %v; want no_renewal at 2.5", c, ok)
	}
	if c, ok := w.Headline(wp, WindowResult{MaxDelay: 5000}, ""); ok {
		t.Errorf("a window run with no windows has headline %+v, want none", c)
	}
	if _, ok := w.Headline(lp, lres, ""); ok {
		t.Error("window gave a headline for a lease run")
	}
}
