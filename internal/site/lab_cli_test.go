package site

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"effectivelyonce/lab"
	"effectivelyonce/pages"
	"effectivelyonce/workbench"
)

// TestMain lets this test binary stand in for "site lab-worker": the lab starts its workers as
// os.Executable() lab-worker, which in a test is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "lab-worker" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := lab.WorkerMain(ctx, os.Getenv)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// And for "site lab" itself, when a test needs a real process to kill.
	if len(os.Args) > 1 && os.Args[1] == "lab" && os.Getenv(labProcessEnv) != "" {
		if err := Run(context.Background(), append([]string{"site"}, os.Args[1:]...), os.Getenv, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// And for "site workbench-check", the check's child that "site lab -handler" starts.
	if len(os.Args) > 1 && os.Args[1] == workbench.ChildCommand {
		if err := workbench.ChildMain(context.Background(), os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCLILab runs "site lab" on two designs with real worker processes and checks the JSON shape
// the issue names and that the real counts equal the model's; bad flags name themselves.
func TestCLILab(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and worker processes")
	}
	var out, errs bytes.Buffer
	args := []string{"site", "lab", "-designs", "ack-before-work,dedup-outside-tx", "-jobs", "150", "-workers", "2", "-crash_rate", "0.05", "-format", "json"}
	data := t.TempDir()
	env := func(k string) string { return map[string]string{"DATA_DIR": data}[k] }
	if err := Run(t.Context(), args, env, &out, &errs); err != nil {
		t.Fatalf("site lab: %v\n%s", err, errs.String())
	}
	var got struct {
		Designs []labDesignJSON `json:"designs"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Designs) != 2 {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	for _, d := range got.Designs {
		if d.Jobs != 150 || d.Lost != d.Model.Lost || d.Duplicated != d.Model.Duplicated || d.WorkersKilled == 0 ||
			d.Lost+d.Duplicated == 0 {
			t.Errorf("%s: %+v", d.Design, d)
		}
		if d.Workers != 2 || d.Seed != 13 || d.CrashRate == nil || *d.CrashRate != 0.05 {
			t.Errorf("%s does not state the values it ran with: %+v", d.Design, d)
		}
	}
	// Every wrong flag at once, each in the page's words.
	err := Run(t.Context(), []string{"site", "lab", "-jobs", "9000", "-workers", "0", "-designs", "ack-after-work"}, env, &out, &errs)
	if err == nil || !strings.Contains(err.Error(), "lab: -jobs: 9,000 is out of range; it must be a whole number from 1 to 5,000") ||
		!strings.Contains(err.Error(), "lab: -workers: 0 is out of range; it must be a whole number from 1 to 8") {
		t.Errorf("two wrong flags: %v, want both named", err)
	}
	if left := dirNames(labScratchDir(data)); len(left) != 0 {
		t.Errorf("site lab left %v in its scratch directory", left)
	}
	for flagArgs, want := range map[string]string{
		"-designs nope":      "-designs",
		"-jobs 999999":       "-jobs",
		"-workers 0":         "-workers",
		"-format csv":        "-format",
		"-crash_rate 2":      "-crash_rate",
		"-designs all extra": "unexpected argument",
	} {
		err := Run(t.Context(), append([]string{"site", "lab"}, strings.Fields(flagArgs)...), env, &out, &errs)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("site lab %s: %v, want an error naming %s", flagArgs, err, want)
		}
	}
}

// TestCLILabFireAndForget runs "site lab -fire_and_forget": the JSON says the acks were plain,
// the lost count is the model's and the duplicated count is at least the model's.
func TestCLILabFireAndForget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and worker processes")
	}
	var out, errs bytes.Buffer
	args := []string{"site", "lab", "-designs", "ack-after-work", "-jobs", "150", "-workers", "2", "-fire_and_forget", "-format", "json"}
	data := t.TempDir()
	if err := Run(t.Context(), args, func(k string) string { return map[string]string{"DATA_DIR": data}[k] }, &out, &errs); err != nil {
		t.Fatalf("site lab: %v\n%s", err, errs.String())
	}
	var got struct {
		Designs []labDesignJSON `json:"designs"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Designs) != 1 {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	d := got.Designs[0]
	if !d.FireAndForgetAcks || d.Lost != d.Model.Lost || d.Duplicated < d.Model.Duplicated || d.WorkersKilled == 0 {
		t.Errorf("%+v", d)
	}
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
