package lab

import (
	"testing"

	"effectivelyonce/present"
)

// TestWordsAgreeWithPresent: the lab's own list and plural say what present's do, which the page
// uses everywhere else, so the progress box reads in one voice though the lab may not import
// present.
func TestWordsAgreeWithPresent(t *testing.T) {
	for _, items := range [][]string{nil, {"a"}, {"a", "b"}, {"a", "b", "c"}} {
		if got, want := sayList(items), present.SayList(items); got != want {
			t.Errorf("sayList(%q) = %q, present says %q", items, got, want)
		}
	}
	for _, n := range []int64{0, 1, 2, 1234, 20_000} {
		if got, want := plural(n, "worker", "workers"), present.Plural(n, "worker", "workers"); got != want {
			t.Errorf("plural(%d) = %q, present says %q", n, got, want)
		}
	}
}
