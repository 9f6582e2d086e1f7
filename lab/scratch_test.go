package lab

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// holderEnv marks the test binary re-executed as a process that makes a run's scratch directory
// and then waits to be killed: a site killed mid-run, without the run's own process tree.
const holderEnv = "LAB_TEST_SCRATCH_HOLDER"

// TestScratchHolderMain is not a test: it is the holder process of TestSweep.
func TestScratchHolderMain(t *testing.T) {
	root := os.Getenv(holderEnv)
	if root == "" {
		t.Skip("the scratch holder process of TestSweep")
	}
	sc, err := newScratch(root)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	os.WriteFile(filepath.Join(sc.dir, "sink.db"), []byte("rows"), 0o600)
	fmt.Println(sc.dir)
	select {} // until SIGKILL
}

// TestSweep holds a run's directory in another process, checks that a sweep leaves it alone
// while that process lives and removes it once the process is killed with SIGKILL (no deferred
// call, no clean-up of its own); a directory without its lock goes, a live run of this process
// stays, and names that are not a run's are never touched.
func TestSweep(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestScratchHolderMain$")
	cmd.Env = append(os.Environ(), holderEnv+"="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the holder said nothing: %v", err)
	}
	held := strings.TrimSpace(line)
	if !strings.HasPrefix(held, root) {
		t.Fatalf("the holder said %q", held)
	}

	mine, err := newScratch(root)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.remove()
	orphan := filepath.Join(root, scratchPrefix+"0123456789ab") // a directory whose lock is gone
	foreign := filepath.Join(root, scratchPrefix+"notes")       // not a run's name
	for _, d := range []string{orphan, foreign} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}

	n, err := Sweep(context.Background(), root, "", "")
	if err != nil || n != 1 {
		t.Errorf("first sweep: cleared %d, %v; want the orphan alone", n, err)
	}
	for _, d := range []string{held, mine.dir, foreign} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s went in a sweep: %v", d, err)
		}
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the orphan directory is still there: %v", err)
	}

	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	if _, err := os.Stat(held); err != nil {
		t.Fatalf("the killed holder's directory should still be there before a sweep: %v", err)
	}
	if n, err := Sweep(context.Background(), root, "", ""); err != nil || n != 1 {
		t.Errorf("sweep after the kill: cleared %d, %v; want the killed run's", n, err)
	}
	for _, gone := range []string{held, held + lockSuffix} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s outlived the sweep after its holder was killed: %v", gone, err)
		}
	}
	if _, err := os.Stat(mine.dir); err != nil {
		t.Errorf("this process's live run went: %v", err)
	}
	mine.remove()
	left, _ := os.ReadDir(root)
	if len(left) != 1 || left[0].Name() != filepath.Base(foreign) {
		t.Errorf("left under the root: %v, want only %s", left, filepath.Base(foreign))
	}
}
