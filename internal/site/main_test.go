package site

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"

	"effectivelyonce/internal/sitetest"
	"effectivelyonce/lab"
	"effectivelyonce/pages"
	"effectivelyonce/workbench"
)

// TestMain lets this test binary stand in for the site's own processes (see sitetest.RunChild):
// the lab page's runs start it as "lab-worker", the server's checks as their sandbox.
func TestMain(m *testing.M) {
	sitetest.RunChild()
	os.Exit(m.Run())
}

// TestCheckChildProcess is not a test of its own: the server's check tests start this test
// binary with -test.run naming it and workbench.ChildCommand as its argument (testChild), and then
// it is a check's child process, as `site workbench-check` is for the real binary.
func TestCheckChildProcess(t *testing.T) {
	if flag.NArg() == 0 || flag.Arg(0) != workbench.ChildCommand {
		t.Skip("the child process of the check tests")
	}
	if err := workbench.ChildMain(context.Background(), os.Stdin, os.Stdout); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

func testChild(ctx context.Context) *exec.Cmd {
	exe, _ := os.Executable()
	return exec.CommandContext(ctx, exe, "-test.run=^TestCheckChildProcess$", workbench.ChildCommand)
}

// TestLabResultRowsFireAndForget checks the page's table for a plain-ack run: the duplicates the
// model lacks are marked as acks lost with their worker, not as a difference.
func TestLabResultRowsFireAndForget(t *testing.T) {
	r := lab.Result{Design: lab.AckAfterWork, Jobs: 100, Crashed: 5, Duplicated: 7, ExactlyOnce: 93, ModelDuplicated: 5, FireAndForgetAcks: true}
	v := pages.NewLabResult(r, pages.Site{})
	if !v.Matches || v.Extra != 2 {
		t.Fatalf("matches %v, extra %d", v.Matches, v.Extra)
	}
	for _, row := range v.Rows {
		if row.Differs || (row.Real != row.Model) != row.Extra {
			t.Errorf("%+v", row)
		}
	}
}

// TestLabLogSaysReplacements checks the log's words for a worker the supervisor started in place
// of a killed one: with 2 workers, "worker 9" is the seventh replacement, not a ninth worker.
func TestLabLogSaysReplacements(t *testing.T) {
	first := pages.LabEventSentence(lab.Event{Job: 4, Worker: 2, Attempt: 1, What: "killed with SIGKILL after the effect, before its ack"})
	again := pages.LabEventSentence(lab.Event{Job: 4, Worker: 9, Replaces: 2, Attempt: 2, What: "applied the effect, then acked"})
	if strings.Contains(first, "replacement") || !strings.Contains(again, "to worker 9 (a replacement, started when worker 2 was killed) at") {
		t.Errorf("the log reads %q, then %q", first, again)
	}
}
