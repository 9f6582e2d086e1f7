package pages

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"
)

// TestHTMXConfigLetsRefusalsThrough reads the htmx-config meta as htmx does (the first rule whose
// code, a regular expression, matches the status wins) and checks that every answer that refuses a
// run reaches app.js as a swap, not as an error: 422 (wrong values), 429 (rate limit) and 503
// (load) all carry the block with its form and message, and app.js keeps the last good result.
func TestHTMXConfigLetsRefusalsThrough(t *testing.T) {
	var cfg struct {
		ResponseHandling []struct {
			Code  string `json:"code"`
			Swap  bool   `json:"swap"`
			Error bool   `json:"error"`
		} `json:"responseHandling"`
		AllowEval bool `json:"allowEval"`
	}
	if err := json.Unmarshal([]byte(htmxConfig), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.AllowEval {
		t.Error("allowEval must stay off under the strict CSP")
	}
	for _, tc := range []struct {
		status      int
		swap, error bool
	}{
		{200, true, false}, {204, false, false},
		{422, true, false}, {429, true, false}, {503, true, false},
		{404, false, true}, {500, false, true},
	} {
		code := strconv.Itoa(tc.status)
		matched := false
		for _, r := range cfg.ResponseHandling {
			if regexp.MustCompile(r.Code).MatchString(code) {
				if r.Swap != tc.swap || r.Error != tc.error {
					t.Errorf("%d: rule %q swaps %v (error %v), want swap %v (error %v)", tc.status, r.Code, r.Swap, r.Error, tc.swap, tc.error)
				}
				matched = true
				break
			}
		}
		if !matched {
			t.Errorf("%d: no rule matches", tc.status)
		}
	}
}
