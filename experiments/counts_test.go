package experiments

import (
	"context"
	"testing"
)

// TestEveryExperimentHasCounts runs each experiment at its defaults and checks that its Counts
// know its result and name each (point, count) pair once: the spread over seeds and "which jobs?"
// both look numbers up by that pair.
func TestEveryExperimentHasCounts(t *testing.T) {
	for _, e := range All() {
		t.Run(e.Name, func(t *testing.T) {
			res, err := e.Run(context.Background(), e.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			cs := e.Counts(res)
			if len(cs) == 0 {
				t.Fatalf("Counts knows no counts for %T", res)
			}
			if got := e.Counts(42); got != nil {
				t.Errorf("Counts(42) = %v, want none", got)
			}
			seen := map[[2]string]bool{}
			for _, c := range cs {
				k := [2]string{c.Point, c.Name}
				if seen[k] {
					t.Errorf("point %q count %q listed twice", c.Point, c.Name)
				}
				seen[k] = true
			}
		})
	}
}

// TestCountsAtTheDefaults pins a few of the document's numbers as Counts reports them.
func TestCountsAtTheDefaults(t *testing.T) {
	find := func(name, point, count string) float64 {
		e, _ := Lookup(name)
		res, err := e.Run(context.Background(), e.Defaults())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range e.Counts(res) {
			if c.Point == point && c.Name == count {
				return c.Value
			}
		}
		t.Fatalf("%s has no count %q at %q", name, count, point)
		return 0
	}
	for _, tc := range []struct {
		exp, point, count string
		want              float64
	}{
		{"assembly", "at-most-once", "lost", 398},
		{"window", "1000", "escaped", 195},
		{"window-grid", "20000/10000", "escaped", 110},
	} {
		if got := find(tc.exp, tc.point, tc.count); got != tc.want {
			t.Errorf("%s %s %s = %v, want %v", tc.exp, tc.point, tc.count, got, tc.want)
		}
	}
}
