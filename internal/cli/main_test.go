package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

	"effectivelyonce/lab"
	"effectivelyonce/workbench"
)

// labProcessEnv marks this test binary started as "site lab" (see TestMain).
const labProcessEnv = "LAB_TEST_SITE_LAB"

// TestMain lets this test binary stand in for the processes the command line starts: "site
// lab-worker" (a lab run's workers), "site workbench-check" (a check's child) and, when a test
// needs a real process to kill, "site lab" itself.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "lab-worker":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			err := lab.WorkerMain(ctx, os.Getenv)
			stop()
			exit(err)
		case workbench.ChildCommand:
			exit(workbench.ChildMain(context.Background(), os.Stdin, os.Stdout))
		case "lab":
			if os.Getenv(labProcessEnv) != "" {
				exit(Lab(context.Background(), os.Args[2:], os.Getenv, os.Stdout, os.Stderr, testChildren))
			}
		}
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

// self is this test binary run as the subcommand cmd, which TestMain then runs.
func self(cmd string) func(context.Context) *exec.Cmd {
	return func(ctx context.Context) *exec.Cmd {
		exe, err := os.Executable()
		if err != nil {
			exe = os.Args[0]
		}
		return exec.CommandContext(ctx, exe, cmd)
	}
}

// testChild is a check's child process; testChildren every process the command line starts.
var (
	testChild    = self(workbench.ChildCommand)
	testChildren = Children{LabWorker: self("lab-worker"), Check: testChild}
)

// runLab runs "site lab args..." in this process, with the environment env.
func runLab(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errs bytes.Buffer
	err = Lab(t.Context(), args, func(k string) string { return env[k] }, &out, &errs, testChildren)
	return out.String(), errs.String(), err
}
