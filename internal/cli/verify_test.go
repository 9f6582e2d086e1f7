package cli

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestCLIVerifyShrinks checks that site verify prints a failed claim's smallest case as a verify
// permalink, and that verify on that permalink's values fails the same claim.
func TestCLIVerifyShrinks(t *testing.T) {
	out, err := runCLI(t, "verify", "-crash_rate", "0")
	if err == nil {
		t.Fatal("verify passed with no crashes")
	}
	m := regexp.MustCompile(`smallest failing case of B4 small-window-leaks: .*\n\s+/verify\?(\S+)\n`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "culprit jobs:") {
		t.Fatalf("no smallest case in:\n%s", out)
	}
	q, err := url.ParseQuery(m[1])
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for k, v := range q {
		args = append(args, "-"+k, v[0])
	}
	out, err = runCLI(t, append([]string{"verify"}, args...)...)
	if err == nil || !regexp.MustCompile(`\[FAIL\] B4  a dedup window below`).MatchString(out) {
		t.Errorf("verify %v does not fail the small window claim:\n%s", args, out)
	}
}
