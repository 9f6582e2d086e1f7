package cli

import (
	"strconv"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestCLITrace: "site run window -trace ID -point 1000" prints the job's events, and -outcome
// prints the ids.
func TestCLITrace(t *testing.T) {
	w, _ := experiments.Lookup("window")
	want, err := w.Jobs(t.Context(), w.Defaults(), "escaped", "1000")
	if err != nil || want.Total == 0 {
		t.Fatalf("no escaped jobs at window 1000: %v", err)
	}
	id := strconv.FormatInt(want.IDs[0], 10)
	out, err := runCLI(t, "run", "window", "-trace", id, "-point", "1000")
	if err != nil || !strings.Contains(out, "job "+id+" at 1000: escaped") || !strings.Contains(out, "evicted") || !strings.Contains(out, "redelivered") {
		t.Fatalf("trace: %v\n%s", err, out)
	}
	out, err = runCLI(t, "run", "window", "-outcome", "escaped", "-point", "1000")
	if err != nil || !strings.HasPrefix(out, experiments.Thousands(want.Total)+" ") || len(strings.Fields(strings.SplitN(out, "\n", 2)[1])) != int(want.Total) {
		t.Fatalf("list: %v\n%.300s", err, out)
	}
	if _, err := runCLI(t, "run", "window", "-outcome", "vanished"); err == nil || !strings.Contains(err.Error(), "-outcome") {
		t.Errorf("a bad outcome: %v", err)
	}
}
