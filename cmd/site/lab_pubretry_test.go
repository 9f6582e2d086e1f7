package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"effectivelyonce/lab"
	"effectivelyonce/pages"
)

// TestCLILabPublishRetry runs "site lab -designs publish-retry" on the real broker: its line has
// stored_twice beside the model's, a window near one of the stream's retry delays reports that
// retry as near the edge, and a window out of range is refused by name.
func TestCLILabPublishRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker")
	}
	data := t.TempDir()
	env := func(k string) string { return map[string]string{"DATA_DIR": data}[k] }
	// At 300 jobs, seed 13 and crash rate 0.05, job 16 retries 1,070 ms later: a 1.05 s window
	// ends 20 ms before it, inside the broker's purge lag.
	for _, w := range []string{"1", "1.05"} {
		var out, errs bytes.Buffer
		args := []string{"site", "lab", "-designs", "publish-retry", "-dup_window", w, "-jobs", "300", "-format", "json"}
		if err := run(t.Context(), args, env, &out, &errs); err != nil {
			t.Fatalf("site lab -dup_window %s: %v\n%s", w, err, errs.String())
		}
		var got struct {
			Designs []map[string]any `json:"designs"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Designs) != 1 {
			t.Fatalf("json: %v\n%s", err, out.String())
		}
		d := got.Designs[0]
		model, _ := d["model"].(map[string]any)
		real, ok1 := d["stored_twice"].(float64)
		predicted, ok2 := model["stored_twice"].(float64)
		edge, ok3 := d["near_edge"].(float64)
		t.Logf("dup_window %s s: stored twice %v, model %v, near edge %v, %v s", w, real, predicted, edge, d["seconds"])
		if d["design"] != "publish-retry" || !ok1 || !ok2 || !ok3 || d["dup_window_s"] == nil || d["retried"] == nil {
			t.Fatalf("the line lacks the publish-retry fields: %s", out.String())
		}
		if real == 0 || predicted == 0 || real > predicted+edge || real < predicted-edge {
			t.Errorf("dup_window %s: stored twice %v, model %v, %v near the edge", w, real, predicted, edge)
		}
		if wantEdge := w == "1.05"; (edge > 0) != wantEdge {
			t.Errorf("dup_window %s: %v retries near the edge", w, edge)
		}
	}
	for _, w := range []string{"0", "0.05", "11", "soon"} {
		var out, errs bytes.Buffer
		err := run(t.Context(), []string{"site", "lab", "-designs", "publish-retry", "-dup_window", w}, env, &out, &errs)
		if err == nil || !strings.Contains(err.Error(), "lab: -dup_window: ") {
			t.Errorf("-dup_window %s: %v, want an error naming -dup_window", w, err)
		}
	}
}

// TestLabResultRowsPublishRetry checks the page's table for a publish-retry run: stored twice
// beside the model's, and a difference no larger than the retries near the edge is marked as
// within it, not as a disagreement.
func TestLabResultRowsPublishRetry(t *testing.T) {
	r := lab.Result{Design: lab.PublishRetry, Jobs: 300, ExactlyOnce: 292, Duplicated: 8, CrashRate: 0.05, Seed: 13,
		PublishRetry: &lab.PublishRetryResult{DupWindow: 1.05, Retried: 17, StoredTwice: 8, AckDuplicates: 9, ModelStoredTwice: 9, NearEdge: 1}}
	v := pages.NewLabResult(r, pages.Site{})
	if !v.Matches || !v.PublishRetry || len(v.Rows) != 2 || v.Rows[0].Name != "Stored twice" || v.Rows[0].Real != 8 || v.Rows[0].Model != 9 ||
		!v.Rows[0].Within || v.Rows[0].Differs || !strings.Contains(v.Settings, "dedup window 1.05 s") {
		t.Errorf("%+v", v)
	}
	r.PublishRetry.Differs = 1 // a retry away from the edge that went the other way
	if v := pages.NewLabResult(r, pages.Site{}); v.Matches || !v.Rows[0].Differs {
		t.Errorf("a retry away from the edge disagreed, and the table says %+v", v.Rows)
	}
}
