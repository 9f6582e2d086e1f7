package experiments

import (
	"context"
	"strings"
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

// TestCountsStandAtTheirPoints: every count's values (At) say what its label says, in the way its
// definition's PointKind promises, so a chart or a sentence that reads the values writes what a
// link with the label asks for.
func TestCountsStandAtTheirPoints(t *testing.T) {
	var bad []string
	for _, e := range All() {
		res, err := e.Run(context.Background(), e.Defaults())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range e.Counts(res) {
			ok := true
			switch {
			case c.Point == "":
				ok = c.At == Point{}
			case e.PointKind() == Sweep:
				ok = c.Point == SweepPoint(c.At.X) && c.At.Y == 0 && c.At.Name == ""
			case e.PointKind() == Grid:
				ok = c.Point == GridPoint(int64(c.At.Y), int64(c.At.X)) && c.At.Name == ""
			case e.PointKind() == NamedRows:
				ok = c.At.Name != "" && strings.HasPrefix(c.Point, c.At.Name) && c.At.X == 0 && c.At.Y == 0
			default:
				ok = false // a count of the whole run stands at ""
			}
			if !ok {
				bad = append(bad, e.Name+": "+c.Name+" at "+c.Point+" is not at "+e.PointKind().String())
			}
		}
	}
	if len(bad) > 0 {
		t.Fatalf("counts whose values and labels disagree:\n%s", strings.Join(bad, "\n"))
	}
}
