package site

import (
	"encoding/json"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestAPIErrors: every kind of bad query (not a number, out of range, too many values, a repeated
// or unknown parameter, too much work) is a 400 whose first error names the field at fault.
func TestAPIErrors(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, tc := range []struct{ query, field string }{
		{"jobs=abc", "jobs"},
		{"jobs=0", "jobs"},
		{"crash_rate=NaN", "crash_rate"},
		{"windows=" + strings.Repeat("1,", 60) + "1", "windows"},
		{"jobs=1&jobs=2", "jobs"},
		{"window=5", "window"},
		{"format=xml", "format"},
		{"jobs=10000000&windows=" + manyWindows(50), "jobs"},
	} {
		t.Run(tc.query[:min(len(tc.query), 30)], func(t *testing.T) {
			r := do(t, s, "GET", "/api/experiments/window?"+tc.query, nil)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %s", r.status, r.body)
			}
			var body struct {
				Errors []experiments.FieldError `json:"errors"`
			}
			if err := json.Unmarshal([]byte(r.body), &body); err != nil || len(body.Errors) == 0 {
				t.Fatalf("body %s", r.body)
			}
			if body.Errors[0].Field != tc.field || body.Errors[0].Message == "" {
				t.Errorf("errors %+v, want field %s", body.Errors, tc.field)
			}
		})
	}
}
