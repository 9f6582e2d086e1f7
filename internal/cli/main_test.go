package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"effectivelyonce/internal/sitetest"
	"effectivelyonce/workbench"
)

// labProcessEnv marks this test binary started as "site lab" (see TestMain).
const labProcessEnv = "LAB_TEST_SITE_LAB"

// TestMain lets this test binary stand in for the processes the command line starts: "site
// lab-worker" (a lab run's workers), "site workbench-check" (a check's child) and, when a test
// needs a real process to kill, "site lab" itself.
func TestMain(m *testing.M) {
	sitetest.RunChild()
	if len(os.Args) > 1 && os.Args[1] == "lab" && os.Getenv(labProcessEnv) != "" {
		exit(Lab(context.Background(), os.Args[2:], os.Getenv, os.Stdout, os.Stderr, testChildren))
	}
	os.Exit(m.Run())
}

func exit(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// testChild is a check's child process; testChildren every process the command line starts.
var (
	testChild    = sitetest.Child(workbench.ChildCommand)
	testChildren = Children{LabWorker: sitetest.Child("lab-worker"), Check: testChild}
)

// runLab runs "site lab args..." in this process, with the environment env.
func runLab(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errs bytes.Buffer
	err = Lab(t.Context(), args, func(k string) string { return env[k] }, &out, &errs, testChildren)
	return out.String(), errs.String(), err
}
