package lab

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"effectivelyonce/internal/pgtest"
	"effectivelyonce/workbench"
)

// TestPostgresSink runs the four crash designs with Postgres as the sink: the same real counts
// as the model, and no schema of the lab's left in the database afterwards.
func TestPostgresSink(t *testing.T) {
	url := pgtest.URL(t, "the lab's Postgres sink")
	bad := Config{Design: AckAfterWork, Jobs: 10, Workers: 1, SinkURL: "mysql://x", Command: (&workers{}).command}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "database_url") {
		t.Errorf("a non-Postgres sink URL: %v, want a refusal naming database_url", err)
	}
	for _, d := range []Design{AckBeforeWork, AckAfterWork, DedupOutsideTx, DedupInTx} {
		var w workers
		cfg := Config{Design: d, Jobs: 300, Workers: 3, CrashRate: 0.05, Seed: 13, SinkURL: url,
			Deadline: time.Minute, ScratchDir: t.TempDir(), Command: w.command}
		res, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if !res.MatchesModel() || res.WorkersKilled != res.Crashed {
			t.Errorf("%s on Postgres: lost %d (model %d), duplicated %d (model %d), killed %d of %d crashed",
				d, res.Lost, res.ModelLost, res.Duplicated, res.ModelDuplicated, res.WorkersKilled, res.Crashed)
		}
		t.Logf("%s on Postgres: %.2f s", d, res.Seconds)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var left int
	if err := db.QueryRow(`SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE 'lab\_%'`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d lab schemas left in the database", left)
	}
}

// TestSweepDropsADeadRunsSchema is a run that died with its sink in Postgres: the sweep that
// finds its directory dead drops the run's schema, and leaves a live run's alone.
func TestSweepDropsADeadRunsSchema(t *testing.T) {
	url := pgtest.URL(t, "the lab's Postgres sink")
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	root := t.TempDir()
	live, err := newScratch(root)
	if err != nil {
		t.Fatal(err)
	}
	defer live.remove()
	dead := "00000000beef"
	if err := os.Mkdir(filepath.Join(root, scratchPrefix+dead), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{dead, live.tag} {
		if _, err := db.Exec(`CREATE SCHEMA ` + schemaName(tag)); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { db.Exec(`DROP SCHEMA IF EXISTS ` + schemaName(live.tag) + ` CASCADE`) })
	if n, err := Sweep(t.Context(), root, "", url); n != 1 || err != nil {
		t.Fatalf("sweep: cleared %d, %v", n, err)
	}
	exists := func(tag string) bool {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM information_schema.schemata WHERE schema_name = $1`, schemaName(tag)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if exists(dead) || !exists(live.tag) {
		t.Errorf("after the sweep: dead run's schema there %v, live run's %v; want false, true", exists(dead), exists(live.tag))
	}
}

// TestPostgresHandler runs a reader's handler with Postgres as the sink: its transaction, keys
// table and outbox are the same SQL on the server, and give the model's counts.
func TestPostgresHandler(t *testing.T) {
	url := pgtest.URL(t, "the lab's Postgres sink")
	for _, name := range []string{"dedup-outside-tx", "outbox"} {
		tp, _ := workbench.LookupTemplate(name)
		var w workers
		cfg := handlerConfig(t, &w, tp.Source, 2)
		cfg.SinkURL = url
		res, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !res.MatchesModel() || res.WorkersKilled == 0 {
			t.Errorf("%s on Postgres: lost %d, duplicated %d, killed %d; the model says %d, %d", name, res.Lost, res.Duplicated,
				res.WorkersKilled, res.ModelLost, res.ModelDuplicated)
		}
		assertGone(t, w.pids())
	}
}
