package main

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runningLabWorkers lists the PIDs of this test binary's processes running as "lab-worker": the lab's
// workers, whoever their parent is now.
func runningLabWorkers(t *testing.T) []int {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want := []byte(self + "\x00lab-worker")
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || !bytes.HasPrefix(b, want) {
			continue
		}
		if pid, err := strconv.Atoi(strings.Split(d, "/")[2]); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestSIGTERMMidLabRunLeavesNothing stops a real site process with SIGTERM while a lab run has
// its workers busy: the site must kill every worker, remove the run's files and exit, and a new
// site on the same machine must run the lab again.
func TestSIGTERMMidLabRunLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server, a broker and worker processes")
	}
	tmp := t.TempDir()
	k := startKillable(t, "TMPDIR="+tmp, "DATA_DIR="+t.TempDir())
	post := func(k *killable, form url.Values) {
		t.Helper()
		resp, err := k.client.PostForm(k.base+"/lab/runs", form)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST /lab/runs: %s", resp.Status)
		}
	}
	post(k, url.Values{"design": {"ack-after-work"}, "jobs": {"5000"}, "workers": {"4"}, "crash_rate": {"0.05"}, "seed": {"13"}})
	var pids []int
	for deadline := time.Now().Add(30 * time.Second); len(pids) < 4; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the lab's workers never started (found %v)", pids)
		}
		pids = runningLabWorkers(t)
	}
	if err := k.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-k.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the site did not exit within 30 s of SIGTERM during a lab run")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		alive := runningLabWorkers(t)
		if len(alive) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lab workers %v outlived the site (the run had %v)", alive, pids)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("the run left files behind in its temp dir: %v", names)
	}

	// A new site runs the lab again, to the end.
	k2 := startKillable(t, "TMPDIR="+tmp, "DATA_DIR="+t.TempDir())
	post(k2, url.Values{"design": {"ack-before-work"}, "jobs": {"60"}, "workers": {"2"}, "crash_rate": {"0.05"}, "seed": {"13"}})
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := k2.client.Get(k2.base + "/lab")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "The real counts are the model") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the next lab run did not finish with counts equal to the model's")
		}
	}
}
