// Package labtest helps the tests that run the lab's real worker processes: it finds them by
// their command line, waits for them, and lists what a run left in its scratch directory. The
// workers are the test binary itself run as "lab-worker" (the binary's TestMain runs
// lab.WorkerMain for it), so every test package that starts them looks for the same thing.
package labtest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RunningWorkers lists the PIDs of this test binary's processes running as "lab-worker": the
// lab's workers, whoever their parent is now.
func RunningWorkers(tb testing.TB) []int {
	tb.Helper()
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
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

// WaitWorkers waits until n of the lab's worker processes run, and answers their pids.
func WaitWorkers(tb testing.TB, n int) []int {
	tb.Helper()
	var pids []int
	for deadline := time.Now().Add(30 * time.Second); len(pids) < n; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("the lab's workers never started (found %v)", pids)
		}
		pids = RunningWorkers(tb)
	}
	return pids
}

// DirNames lists a directory's entries by name; a directory that is not there has none.
func DirNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
