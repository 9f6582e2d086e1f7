package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// runCLI runs the whole binary's dispatch in-process, as main does, and answers what it printed.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"site"}, args...), func(string) string { return "" }, &out, &errb)
	return out.String() + errb.String(), err
}

// TestCLIDispatch: the dispatch hands each command to internal/cli (the commands' own tests are
// there) and refuses what it does not know; serve's flags are refused before anything starts.
func TestCLIDispatch(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "name an experiment"},
		{[]string{"verify", "-jobs"}, "verify: -jobs needs a value"},
		{[]string{"check"}, "name a handler file"},
		{[]string{"lab", "-format", "csv"}, "lab: -format must be table or json"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"serve", "-client-ip", "forwarded"}, "client-ip"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, err := runCLI(t, tc.args...)
			if err == nil || !strings.Contains(err.Error()+out, tc.want) {
				t.Errorf("err %v out %q, want %q", err, out, tc.want)
			}
		})
	}
	out, err := runCLI(t, "list")
	if err != nil || !strings.Contains(out, "window — ") || !strings.Contains(out, "-max_delay") {
		t.Errorf("site list: err %v\n%.300s", err, out)
	}
}
