package lab

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"effectivelyonce/internal/pgtest"
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
			Deadline: time.Minute, TempDir: t.TempDir(), Command: w.command}
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
