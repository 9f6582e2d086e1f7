package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"effectivelyonce/lab"
	"effectivelyonce/lab/labtest"
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
	env := map[string]string{"DATA_DIR": data}
	out, errs, err := runLab(t, env, "-handler", "template:ack-after-work", "-crash_point", "1", "-jobs", "150", "-workers", "2", "-format", "json")
	if err != nil {
		t.Fatalf("site lab -handler: %v\n%s", err, errs)
	}
	var got struct {
		Designs []labDesignJSON `json:"designs"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Designs) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	d := got.Designs[0]
	if d.Design != "handler" || d.CrashPoint == nil || *d.CrashPoint != 1 || d.Model.ExactlyOnce == nil || d.Model.WorkersKilled == nil {
		t.Fatalf("the handler's entry: %s", out)
	}
	if d.Lost != d.Model.Lost || d.Duplicated != d.Model.Duplicated || d.ExactlyOnce != *d.Model.ExactlyOnce ||
		d.WorkersKilled != *d.Model.WorkersKilled || d.Duplicated == 0 {
		t.Errorf("real %+v differs from its model %+v", d, d.Model)
	}
	if !strings.Contains(out, `"design": "handler"`) || !strings.Contains(out, `"exactly_once"`) {
		t.Errorf("the entry lacks the issue's names: %s", out)
	}

	// A key window: the model is replayed, in the check's child, at the redeliveries the broker
	// made; at a window their gaps outlast, real and model both leak.
	out, errs, err = runLab(t, env, "-handler", "template:window", "-crash_point", "4", "-key_window", "10", "-jobs", "400", "-workers", "2", "-format", "json")
	if err != nil {
		t.Fatalf("site lab -handler template:window: %v\n%s", err, errs)
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Designs) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if d := got.Designs[0]; d.ModelDelays != "measured" || d.DrawnModel == nil || !d.MatchesModel || d.Duplicated == 0 || d.NearEdge == nil ||
		d.Duplicated < d.Model.Duplicated-*d.NearEdge || d.Duplicated > d.Model.Duplicated+*d.NearEdge {
		t.Errorf("the key window's entry: %s", out)
	}

	bad := filepath.Join(t.TempDir(), "bad.star")
	os.WriteFile(bad, []byte("def handle(job, queue, db, bus):\n    db.apply(job.id\n"), 0o600)
	_, _, err = runLab(t, env, "-handler", bad, "-jobs", "50")
	if err == nil || !strings.Contains(err.Error(), bad+":2:13: ") {
		t.Errorf("a syntax error: %v, want it at its file and line", err)
	}
	for flagArgs, want := range map[string]string{
		"-crash_point 2": "-crash_point: only a run of a handler",
		"-handler template:ack-after-work -designs all":   "-designs",
		"-handler template:ack-after-work -crash_point 9": "-crash_point",
		"-handler template:nope":                          "no template",
		"-handler template:ack-after-work -key_window -1": "-key_window",
		"-handler template:ack-after-work -dup_window 2":  "-dup_window: only the publish-retry design",
	} {
		_, _, err := runLab(t, env, append([]string{"-jobs", "50"}, strings.Fields(flagArgs)...)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("site lab %s: %v, want an error naming %s", flagArgs, err, want)
		}
	}
	if left := labtest.DirNames(lab.ScratchDir(data)); len(left) != 0 {
		t.Errorf("site lab left %v in its scratch directory", left)
	}
}

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
	pids := labtest.WaitWorkers(t, 3)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		alive := labtest.RunningWorkers(t)
		if len(alive) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers %v outlived the killed site lab (the run had %v)", alive, pids)
		}
	}
	if len(labtest.DirNames(lab.ScratchDir(data))) == 0 {
		t.Fatal("the killed run left nothing in the lab directory: the test proves nothing")
	}
	env := map[string]string{"DATA_DIR": data}
	if _, errs, err := runLab(t, env, "-handler", "template:ack-after-work", "-jobs", "20"); err != nil {
		t.Fatalf("the next site lab: %v\n%s", err, errs)
	}
	if left := labtest.DirNames(lab.ScratchDir(data)); len(left) != 0 {
		t.Errorf("after the next run, %v is still there", left)
	}
}
