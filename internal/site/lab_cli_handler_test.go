package site

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCLILabHandler runs "site lab -handler" on a template file: the JSON's one entry is the
// handler's, with the model's counts beside the real ones, equal; a handler the workbench refuses
// is refused in its words (file and line) before any worker starts; the handler's flags belong to
// a handler run only.
func TestCLILabHandler(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and worker processes")
	}
	data := t.TempDir()
	env := func(k string) string { return map[string]string{"DATA_DIR": data}[k] }
	var out, errs bytes.Buffer
	args := []string{"site", "lab", "-handler", "template:ack-after-work", "-crash_point", "1", "-jobs", "150", "-workers", "2", "-format", "json"}
	if err := Run(t.Context(), args, env, &out, &errs); err != nil {
		t.Fatalf("site lab -handler: %v\n%s", err, errs.String())
	}
	var got struct {
		Designs []labDesignJSON `json:"designs"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Designs) != 1 {
		t.Fatalf("json: %v\n%s", err, out.String())
	}
	d := got.Designs[0]
	if d.Design != "handler" || d.CrashPoint == nil || *d.CrashPoint != 1 || d.Model.ExactlyOnce == nil || d.Model.WorkersKilled == nil {
		t.Fatalf("the handler's entry: %s", out.String())
	}
	if d.Lost != d.Model.Lost || d.Duplicated != d.Model.Duplicated || d.ExactlyOnce != *d.Model.ExactlyOnce ||
		d.WorkersKilled != *d.Model.WorkersKilled || d.Duplicated == 0 {
		t.Errorf("real %+v differs from its model %+v", d, d.Model)
	}
	if !strings.Contains(out.String(), `"design": "handler"`) || !strings.Contains(out.String(), `"exactly_once"`) {
		t.Errorf("the entry lacks the issue's names: %s", out.String())
	}

	bad := filepath.Join(t.TempDir(), "bad.star")
	os.WriteFile(bad, []byte("def handle(job, queue, db, bus):\n    db.apply(job.id\n"), 0o600)
	err := Run(t.Context(), []string{"site", "lab", "-handler", bad, "-jobs", "50"}, env, &out, &errs)
	if err == nil || !strings.Contains(err.Error(), bad+":3:1: ") {
		t.Errorf("a syntax error: %v, want it at its file and line", err)
	}
	for flagArgs, want := range map[string]string{
		"-crash_point 2": "-crash_point: only a run of a handler",
		"-handler template:ack-after-work -designs all":   "-designs",
		"-handler template:ack-after-work -crash_point 9": "-crash_point",
		"-handler template:nope":                          "no template",
		"-handler template:ack-after-work -key_window -1": "-key_window",
	} {
		err := Run(t.Context(), append([]string{"site", "lab", "-jobs", "50"}, strings.Fields(flagArgs)...), env, &out, &errs)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("site lab %s: %v, want an error naming %s", flagArgs, err, want)
		}
	}
	if left := dirNames(labScratchDir(data)); len(left) != 0 {
		t.Errorf("site lab left %v in its scratch directory", left)
	}
}

// labProcessEnv marks this test binary started as "site lab" (see TestMain).
const labProcessEnv = "LAB_TEST_SITE_LAB"

// TestSIGKILLMidHandlerRunLeavesNothing kills a real "site lab -handler" process with SIGKILL
// while its workers run the handler: nothing in it gets to clean up, so the workers must die with
// it (the kernel's parent-death signal), and the run's files go with the next run's start-up
// sweep of the same data directory.
func TestSIGKILLMidHandlerRunLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and worker processes")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	cmd := exec.Command(self, "lab", "-handler", "template:dedup-in-tx", "-crash_point", "4", "-jobs", "5000", "-workers", "3", "-data-dir", data)
	cmd.Env = append(os.Environ(), labProcessEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	pids := waitLabWorkers(t, 3)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		alive := runningLabWorkers(t)
		if len(alive) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers %v outlived the killed site lab (the run had %v)", alive, pids)
		}
	}
	if len(dirNames(labScratchDir(data))) == 0 {
		t.Fatal("the killed run left nothing in the lab directory: the test proves nothing")
	}
	env := func(k string) string { return map[string]string{"DATA_DIR": data}[k] }
	var out, errs bytes.Buffer
	if err := Run(t.Context(), []string{"site", "lab", "-handler", "template:ack-after-work", "-jobs", "20"}, env, &out, &errs); err != nil {
		t.Fatalf("the next site lab: %v\n%s", err, errs.String())
	}
	if left := dirNames(labScratchDir(data)); len(left) != 0 {
		t.Errorf("after the next run, %v is still there", left)
	}
}
