package pages

import (
	"strings"
	"testing"

	"effectivelyonce/lab"
)

// TestLabResultRowsPublishRetry checks the page's table for a publish-retry run: stored twice
// beside the model's, and a difference no larger than the retries near the edge is marked as
// within it, not as a disagreement.
func TestLabResultRowsPublishRetry(t *testing.T) {
	r := lab.Result{Design: lab.PublishRetry, Jobs: 300, ExactlyOnce: 292, Duplicated: 8, CrashRate: 0.05, Seed: 13,
		PublishRetry: &lab.PublishRetryResult{DupWindow: 1.05, Retried: 17, StoredTwice: 8, AckDuplicates: 9, ModelStoredTwice: 9, NearEdge: 1}}
	v := NewLabResult(r, Site{})
	if !v.Matches || !v.PublishRetry || len(v.Rows) != 2 || v.Rows[0].Name != "Stored twice" || v.Rows[0].Real != 8 || v.Rows[0].Model != 9 ||
		!v.Rows[0].Within || v.Rows[0].Differs || !strings.Contains(v.Settings, "dedup window 1.05 s") {
		t.Errorf("%+v", v)
	}
	r.PublishRetry.Differs = 1 // a retry away from the edge that went the other way
	if v := NewLabResult(r, Site{}); v.Matches || !v.Rows[0].Differs {
		t.Errorf("a retry away from the edge disagreed, and the table says %+v", v.Rows)
	}
}
