package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"effectivelyonce/internal/sitetest"
	"effectivelyonce/lab"
	"effectivelyonce/lab/labtest"
)

// TestSIGTERMMidLabRunLeavesNothing stops a real site process with SIGTERM while a lab run has
// its workers busy: the site must kill every worker, remove the run's files and exit, and a new
// site on the same machine must run the lab again.
func TestSIGTERMMidLabRunLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server, a broker and worker processes")
	}
	tmp, data := t.TempDir(), t.TempDir()
	k := startKillable(t, "TMPDIR="+tmp, "DATA_DIR="+data)
	postLabRun(t, k, url.Values{"design": {"ack-after-work"}, "jobs": {"5000"}, "workers": {"4"}, "crash_rate": {"0.05"}, "seed": {"13"}})
	pids := labtest.WaitWorkers(t, 4)
	if err := k.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-k.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the site did not exit within 30 s of SIGTERM during a lab run")
	}
	var alive []int
	if !sitetest.WaitFor(sitetest.Patience, func() bool { alive = labtest.RunningWorkers(t); return len(alive) == 0 }) {
		t.Fatalf("lab workers %v outlived the site (the run had %v)", alive, pids)
	}
	for _, dir := range []string{tmp, lab.ScratchDir(data)} {
		if left := labtest.DirNames(dir); len(left) != 0 {
			t.Errorf("the run left files behind in %s: %v", dir, left)
		}
	}

	// A new site runs the lab again, to the end.
	k2 := startKillable(t, "TMPDIR="+tmp, "DATA_DIR="+t.TempDir())
	postLabRun(t, k2, url.Values{"design": {"ack-before-work"}, "jobs": {"60"}, "workers": {"2"}, "crash_rate": {"0.05"}, "seed": {"13"}})
	var getErr error
	finished := sitetest.WaitFor(2*sitetest.Patience, func() bool {
		resp, err := k2.client.Get(k2.base + "/lab")
		if err != nil {
			getErr = err
			return true
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return strings.Contains(string(body), "The real counts are the model")
	})
	if getErr != nil {
		t.Fatal(getErr)
	}
	if !finished {
		t.Fatal("the next lab run did not finish with counts equal to the model's")
	}
}

// TestSIGKILLMidLabRunLeavesNothingForever kills a real site process with SIGKILL while a lab
// run has its workers busy: nothing in the site gets to clean up, so the workers must die with it
// (the kernel's parent-death signal) and the run's files, left in the site's lab directory, must
// go when the next site starts on the same data directory. Nothing lands in the temporary
// directory meanwhile.
func TestSIGKILLMidLabRunLeavesNothingForever(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server, a broker and worker processes")
	}
	tmp, data := t.TempDir(), t.TempDir()
	k := startKillable(t, "TMPDIR="+tmp, "DATA_DIR="+data)
	postLabRun(t, k, url.Values{"design": {"ack-after-work"}, "jobs": {"5000"}, "workers": {"3"}, "crash_rate": {"0.05"}, "seed": {"13"}})
	pids := labtest.WaitWorkers(t, 3)
	if err := k.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-k.exited
	var alive []int
	if !sitetest.WaitFor(sitetest.Patience, func() bool { alive = labtest.RunningWorkers(t); return len(alive) == 0 }) {
		t.Fatalf("lab workers %v outlived the killed site (the run had %v)", alive, pids)
	}
	left := labtest.DirNames(lab.ScratchDir(data))
	if len(left) == 0 {
		t.Fatal("the killed run left nothing in the lab directory: the test proves nothing")
	}
	t.Logf("the killed site left %v", left)
	if names := labtest.DirNames(tmp); len(names) != 0 {
		t.Errorf("the run wrote to the temporary directory, outside the site's own: %v", names)
	}

	startKillable(t, "TMPDIR="+tmp, "DATA_DIR="+data) // healthy: the start-up sweep is done
	if names := labtest.DirNames(lab.ScratchDir(data)); len(names) != 0 {
		t.Errorf("after a new site started on the same data directory, %v is still there", names)
	}
}

// postLabRun presses Run on a real site process.
func postLabRun(t *testing.T, k *killable, form url.Values) {
	t.Helper()
	req, err := http.NewRequest("POST", k.base+"/lab/runs", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	// Not followed: the redirect's page is not needed, and the run has started by then.
	resp, err := (&http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /lab/runs: %s", resp.Status)
	}
}
