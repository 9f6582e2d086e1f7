// Package pgtest gives tests the throwaway Postgres database that scripts/test-postgres.sh starts
// for make test, under one rule for every package that needs it: without the database a test is
// skipped, loudly, on a developer's machine, and fails in CI, where it must run.
package pgtest

import (
	"fmt"
	"os"
	"testing"
)

// URL returns the database TEST_DATABASE_URL names. Without one it skips t, printing what is not
// tested (what, such as "the Postgres store") where a skip in the middle of a long run is still
// seen, or fails t when CI=true.
func URL(t testing.TB, what string) string {
	t.Helper()
	url := os.Getenv("TEST_DATABASE_URL")
	if url == "" {
		msg := "TEST_DATABASE_URL is not set: " + what + " is NOT tested (run make test)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI must run it")
		}
		fmt.Fprintln(os.Stderr, "!!!", msg)
		t.Skip(msg)
	}
	return url
}
