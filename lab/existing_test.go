package lab

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestExistingNATS points the lab at a NATS server it did not start, as LAB_NATS_URL does: the run
// must work there and leave no stream behind on a server that outlives it.
func TestExistingNATS(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the test's NATS server did not start")
	}

	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	streams := func() []string {
		var out []string
		names := js.StreamNames(context.Background())
		for name := range names.Name() {
			out = append(out, name)
		}
		if err := names.Err(); err != nil {
			t.Error(err)
		}
		return out
	}

	var w workers
	var during []string
	res, err := Run(context.Background(), Config{Design: DedupOutsideTx, Jobs: 150, Workers: 2, CrashRate: 0.05,
		Seed: 13, NATSURL: srv.ClientURL(), ScratchDir: t.TempDir(), Deadline: time.Minute, Command: w.command},
		func(Progress) {
			if during == nil {
				during = streams()
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if res.Crashed == 0 || !res.MatchesModel() || res.WorkersKilled != res.Crashed {
		t.Errorf("on an existing server: %+v", res)
	}
	assertGone(t, w.pids())
	if len(during) != 1 {
		t.Errorf("streams during the run: %v, want the run's own", during)
	}
	if left := streams(); len(left) != 0 {
		t.Errorf("streams left on the server: %v", left)
	}
}

// TestSweepDeletesADeadRunsStream is a run that died on a shared NATS server without deleting its
// stream: the sweep that finds its directory dead deletes the stream there, and no other.
func TestSweepDeletesADeadRunsStream(t *testing.T) {
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the test's NATS server did not start")
	}
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	live, err := newScratch(root)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	dead := "00000000dead"
	if err := os.Mkdir(filepath.Join(root, scratchPrefix+dead), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{dead, live.tag} {
		if _, err := js.CreateStream(t.Context(), jetstream.StreamConfig{Name: streamName(tag), Subjects: []string{"lab." + tag + ".jobs"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := Sweep(t.Context(), root, srv.ClientURL(), ""); n != 1 || err != nil {
		t.Fatalf("sweep: cleared %d, %v", n, err)
	}
	if _, err := js.Stream(t.Context(), streamName(dead)); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("the dead run's stream: %v, want it deleted", err)
	}
	if _, err := js.Stream(t.Context(), streamName(live.tag)); err != nil {
		t.Errorf("the live run's stream: %v, want it kept", err)
	}
}
