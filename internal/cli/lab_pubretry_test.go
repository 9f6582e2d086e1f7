package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCLILabPublishRetry runs "site lab -designs publish-retry" on the real broker: its line has
// stored_twice beside the model's, a window near one of the stream's retry delays reports that
// retry as near the edge, and a window out of range is refused by name.
func TestCLILabPublishRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker")
	}
	env := map[string]string{"DATA_DIR": t.TempDir()}
	// At 300 jobs, seed 13 and crash rate 0.05, job 16 retries 1,070 ms later: a 1.05 s window
	// ends 20 ms before it, inside the broker's purge lag.
	for _, w := range []string{"1", "1.05"} {
		out, errs, err := runLab(t, env, "-designs", "publish-retry", "-dup_window", w, "-jobs", "300", "-format", "json")
		if err != nil {
			t.Fatalf("site lab -dup_window %s: %v\n%s", w, err, errs)
		}
		var got struct {
			Designs []map[string]any `json:"designs"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Designs) != 1 {
			t.Fatalf("json: %v\n%s", err, out)
		}
		d := got.Designs[0]
		model, _ := d["model"].(map[string]any)
		real, ok1 := d["stored_twice"].(float64)
		predicted, ok2 := model["stored_twice"].(float64)
		edge, ok3 := d["near_edge"].(float64)
		t.Logf("dup_window %s s: stored twice %v, model %v, near edge %v, %v s", w, real, predicted, edge, d["seconds"])
		if d["design"] != "publish-retry" || !ok1 || !ok2 || !ok3 || d["dup_window_s"] == nil || d["retried"] == nil {
			t.Fatalf("the line lacks the publish-retry fields: %s", out)
		}
		if real == 0 || predicted == 0 || real > predicted+edge || real < predicted-edge {
			t.Errorf("dup_window %s: stored twice %v, model %v, %v near the edge", w, real, predicted, edge)
		}
		if wantEdge := w == "1.05"; (edge > 0) != wantEdge {
			t.Errorf("dup_window %s: %v retries near the edge", w, edge)
		}
	}
	// The table's first line and the start's line say what runs: one producer, no workers, and
	// the rate is the share of publish acks lost.
	out, errs, err := runLab(t, env, "-designs", "publish-retry", "-jobs", "100")
	if err != nil {
		t.Fatalf("site lab -designs publish-retry: %v\n%s", err, errs)
	}
	if first, _, _ := strings.Cut(out, "\n"); !strings.Contains(first, "publish acks lost at rate 0.05") || strings.Contains(first, "worker") ||
		strings.Contains(first, "crash rate") || strings.Contains(first, "acks;") || strings.Contains(first, "confirmed") ||
		!strings.Contains(errs, "no workers; publish acks lost at rate 0.05") {
		t.Errorf("the run says:\n%s\n%s", out, errs)
	}
	// A window for designs that have none is refused by name, not ignored.
	if _, _, err := runLab(t, env, "-designs", "ack-after-work", "-dup_window", "2"); err == nil || !strings.Contains(err.Error(), "lab: -dup_window: only the publish-retry design") {
		t.Errorf("-dup_window with ack-after-work: %v", err)
	}
	for _, w := range []string{"0", "0.05", "11", "soon"} {
		_, _, err := runLab(t, env, "-designs", "publish-retry", "-dup_window", w)
		if err == nil || !strings.Contains(err.Error(), "lab: -dup_window: ") {
			t.Errorf("-dup_window %s: %v, want an error naming -dup_window", w, err)
		}
	}
}
