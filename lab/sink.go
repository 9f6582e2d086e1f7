package lab

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	_ "modernc.org/sqlite" // the sink is a real SQLite file, without cgo
)

// The sink's schema. effects is the thing being protected: one row per application, so a job
// applied twice shows as two rows, which is how duplicates are counted. dedup_keys is what the
// dedup designs consult. deliveries is a log beside the sink, never read by a worker, that tells
// the page what happened to a crashed job.
const schema = `
CREATE TABLE IF NOT EXISTS effects (
	id      INTEGER PRIMARY KEY,
	job     INTEGER NOT NULL,
	worker  INTEGER NOT NULL,
	attempt INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS effects_job ON effects (job);
CREATE TABLE IF NOT EXISTS dedup_keys (
	job INTEGER PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS deliveries (
	id      INTEGER PRIMARY KEY,
	job     INTEGER NOT NULL,
	worker  INTEGER NOT NULL,
	attempt INTEGER NOT NULL,
	at_ns   INTEGER NOT NULL,
	acked   INTEGER NOT NULL, -- 1: this delivery's ack reached the broker before the row was written
	what    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_job ON deliveries (job);
`

// openSink opens the sink file the way every process does: WAL so that readers never block the
// writer, a busy timeout so that several worker processes queue for the write lock instead of
// failing, and IMMEDIATE transactions so that a dedup check inside a transaction already holds the
// lock it will write under (no two workers can both find the key missing). synchronous=NORMAL
// keeps every commit across a SIGKILL, which is the only crash the lab makes.
func openSink(ctx context.Context, path string) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	// One connection per process: the file's lock serialises writers anyway, and a second
	// connection in the same process would only wait on the first.
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("lab: sink: %w", err)
	}
	return db, nil
}

// createSink makes the sink file and its tables before any worker starts, so that workers never
// race to create them.
func createSink(ctx context.Context, path string) (*sql.DB, error) {
	db, err := openSink(ctx, path)
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("lab: sink schema: %w", err)
	}
	return db, nil
}

// counts reads the sink's verdict: jobs 0..jobs-1 with no effect row are lost, with more than one
// duplicated. Counting every job id, not only those with rows, is what makes a lost job visible.
func counts(ctx context.Context, db *sql.DB, jobs int64) (lost, dup, once int64, err error) {
	rows, err := db.QueryContext(ctx, `SELECT job, COUNT(*) FROM effects GROUP BY job`)
	if err != nil {
		return 0, 0, 0, err
	}
	defer rows.Close()
	applied := make([]int64, jobs)
	for rows.Next() {
		var job, n int64
		if err := rows.Scan(&job, &n); err != nil {
			return 0, 0, 0, err
		}
		if job < 0 || job >= jobs {
			return 0, 0, 0, fmt.Errorf("lab: sink holds job %d, outside 0-%d", job, jobs-1)
		}
		applied[job] = n
	}
	if err := rows.Err(); err != nil {
		return 0, 0, 0, err
	}
	for _, n := range applied {
		switch {
		case n == 0:
			lost++
		case n == 1:
			once++
		default:
			dup++
		}
	}
	return lost, dup, once, nil
}

// logged reads the workers' log: finished is how many jobs have a delivery that was acked and
// then logged, redelivered how many deliveries came after a job's first. The log row is a
// delivery's last write, so a job counts as finished only once its worker is done with it: the
// broker alone would call an ack-before-work job finished before its effect is written.
func logged(ctx context.Context, db *sql.DB) (finished, redelivered int64, err error) {
	err = db.QueryRowContext(ctx, `SELECT COUNT(DISTINCT CASE WHEN acked = 1 THEN job END),
		COALESCE(SUM(attempt > 1), 0) FROM deliveries`).Scan(&finished, &redelivered)
	return finished, redelivered, err
}

// leaseLog reads a lease run's log: how many deliveries reached a worker, and how many of them
// are still being worked on (logged when they began, not yet closed; see worker.begin).
func leaseLog(ctx context.Context, db *sql.DB) (started, working int64, err error) {
	err = db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(acked = 0), 0) FROM deliveries`).Scan(&started, &working)
	return started, working, err
}

// sampleEvents returns every logged delivery of the first few of the given jobs (the crashed
// ones, or the ones that outlive their lease in the model), so that the page can tell one job's
// story from delivery to kill, or to lease expiry, to redelivery.
func sampleEvents(ctx context.Context, db *sql.DB, sample []int64, few int, start time.Time) ([]Event, error) {
	var jobs []any
	for _, j := range sample[:min(few, len(sample))] {
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	marks := "?"
	for range jobs[1:] {
		marks += ",?"
	}
	rows, err := db.QueryContext(ctx, `SELECT job, worker, attempt, at_ns, what FROM deliveries
		WHERE job IN (`+marks+`) ORDER BY job, id`, jobs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var at int64
		if err := rows.Scan(&e.Job, &e.Worker, &e.Attempt, &at, &e.What); err != nil {
			return nil, err
		}
		e.At = time.Unix(0, at).Sub(start)
		out = append(out, e)
	}
	return out, rows.Err()
}
