package labweb

import (
	"io"
	"log/slog"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"effectivelyonce/internal/sitetest"
	"effectivelyonce/lab"
)

// TestMain lets this test binary stand in for "site lab-worker", the lab's worker process.
func TestMain(m *testing.M) {
	sitetest.RunChild()
	os.Exit(m.Run())
}

// TestRunNobodyWatchesIsCancelled checks the lab's answer to a reader who closes the tab: a run
// whose progress nobody asks for is cancelled, its workers killed, instead of running on.
func TestRunNobodyWatchesIsCancelled(t *testing.T) {
	w := &sitetest.Workers{}
	r := &Runner{Command: w.Command, ScratchDir: t.TempDir(), Deadline: lab.DefaultDeadline,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	r.SetUnwatched(400 * time.Millisecond)
	t.Cleanup(r.Stop)
	p := lab.DefaultParams()
	p.Designs, p.Jobs, p.Workers = []lab.Design{lab.AckAfterWork}, 5000, 2
	run, err := r.Start(p, NewOwner(), netip.Addr{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-run.Finished():
	case <-time.After(30 * time.Second):
		t.Fatal("an unwatched run was not cancelled")
	}
	_, ended, _ := r.Outcome(run)
	_, _, abandoned := run.State()
	if !abandoned || !strings.Contains(ended, "nobody had watched") {
		t.Errorf("ended %q (abandoned %v), want it cancelled for want of a reader", ended, abandoned)
	}
	if alive := w.Alive(); len(alive) > 0 {
		t.Errorf("workers %v outlived the cancelled run", alive)
	}
	if r.Current() != run {
		t.Error("the runner does not keep the run it ended as its last")
	}
}
