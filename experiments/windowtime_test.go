package experiments

import (
	"context"
	"testing"
)

// TestWindowTime holds the conversion of a window in seconds to jobs, and the block 4 run it
// opens, to the cases the systems page states.
func TestWindowTime(t *testing.T) {
	for _, c := range []struct {
		name       string
		p          WindowTimeParams
		ids, delay int64
		safe       bool
		query      string
	}{
		{"SQS FIFO, 30 s later", WindowTimeParams{100, 300, 30}, 30_000, 3_000, true, "jobs=60000&max_delay=3000&windows=30000"},
		{"JetStream, 5 min later", WindowTimeParams{100, 120, 300}, 12_000, 30_000, false, "jobs=60000&max_delay=30000&windows=12000"},
		{"rounds to the nearest job", WindowTimeParams{0.5, 3, 1}, 2, 1, true, "jobs=20000&max_delay=1&windows=2"},
		{"a window under one id opens nothing", WindowTimeParams{0.001, 100, 0}, 0, 0, true, ""},
		{"too large for block 4", WindowTimeParams{1000, 2_592_000, 60}, 2_592_000_000, 60_000, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := WindowTime(context.Background(), c.p)
			if err != nil {
				t.Fatal(err)
			}
			if r.WindowIDs != c.ids || r.DelayJobs != c.delay || r.Safe != c.safe || r.Block4Query != c.query {
				t.Errorf("got %+v, want ids %d, delay %d, safe %v, query %q", r, c.ids, c.delay, c.safe, c.query)
			}
			if (r.Block4 == nil) != (c.query == "") {
				t.Errorf("Block4 = %+v with query %q", r.Block4, r.Block4Query)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := WindowTime(ctx, DefaultWindowTimeParams()); err == nil {
		t.Error("a cancelled run answered")
	}
}
