package lab

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"effectivelyonce/experiments"

	_ "github.com/jackc/pgx/v5/stdlib" // or a Postgres database, when the run is given one
	_ "modernc.org/sqlite"             // the sink is a real SQLite file, without cgo
)

// The sink's schema. effects is the thing being protected: one row per application, so a job
// applied twice shows as two rows, which is how duplicates are counted. dedup_keys is what the
// dedup designs consult; handler_keys and outbox are a reader's handler's dedup table and outbox
// rows (the handler design). deliveries is a log beside the sink, never read by a worker, that tells
// the page what happened to a crashed job.
const schema = `
CREATE TABLE IF NOT EXISTS effects (
	id      INTEGER PRIMARY KEY,
	job     BIGINT NOT NULL,
	worker  BIGINT NOT NULL,
	attempt BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS effects_job ON effects (job);
CREATE TABLE IF NOT EXISTS dedup_keys (
	job BIGINT PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS deliveries (
	id      INTEGER PRIMARY KEY,
	job     BIGINT NOT NULL,
	worker  BIGINT NOT NULL,
	attempt BIGINT NOT NULL,
	seq     BIGINT NOT NULL DEFAULT 0, -- the broker's consumer sequence: its hand-out order (handler runs)
	at_ns   BIGINT NOT NULL,
	-- 1: this delivery's ack reached the broker before the row was written (a lease run's: the
	-- delivery is over); 0: not acked (a lease run's: still working); 2: a lease run's delivery
	-- whose worker was killed while it held the job (see diedWithWorker)
	acked   BIGINT NOT NULL,
	what    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_job ON deliveries (job);
CREATE TABLE IF NOT EXISTS handler_keys (
	id      INTEGER PRIMARY KEY, -- the order keys came in: a key window drops the oldest
	k       TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS outbox (
	id      INTEGER PRIMARY KEY,
	job     BIGINT NOT NULL,
	event   TEXT NOT NULL,
	sent    BIGINT NOT NULL DEFAULT 0
);
`

// postgresSchema is the same tables for Postgres, where a row id counts up by itself only when
// it says so. The SQL the workers and the counting run is written once for both.
var postgresSchema = strings.ReplaceAll(schema, "id      INTEGER PRIMARY KEY", "id      BIGSERIAL PRIMARY KEY")

// isPostgres tells a Postgres sink's URL from a SQLite file's path.
func isPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// openSink opens the sink file the way every process does: WAL so that readers never block the
// writer, a busy timeout so that several worker processes queue for the write lock instead of
// failing, and IMMEDIATE transactions so that a dedup check inside a transaction already holds the
// lock it will write under (no two workers can both find the key missing). synchronous=NORMAL
// keeps every commit across a SIGKILL, which is the only crash the lab makes.
//
// A postgres:// target is a Postgres sink instead, its URL naming the run's own schema in
// search_path: the same tables, the same transactions, a server across a socket.
func openSink(ctx context.Context, path string) (*sql.DB, error) {
	if isPostgres(path) {
		db, err := sql.Open("pgx", path)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("lab: sink: %w", err)
		}
		return db, nil
	}
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
	ddl := schema
	if isPostgres(path) {
		ddl = postgresSchema
	}
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		db.Close()
		return nil, fmt.Errorf("lab: sink schema: %w", err)
	}
	return db, nil
}

// counts reads the sink's verdict: jobs 0..jobs-1 with no effect row are lost, with more than one
// duplicated. Counting every job id, not only those with rows, is what makes a lost job visible.
func counts(ctx context.Context, db *sql.DB, jobs int64) (lost, dup, once int64, err error) {
	applied, err := appliedPerJob(ctx, db, jobs)
	if err != nil {
		return 0, 0, 0, err
	}
	lost, once, dup = experiments.Tally(applied)
	return lost, dup, once, nil
}

// appliedPerJob is how many effect rows each of jobs 0..jobs-1 has.
func appliedPerJob(ctx context.Context, db *sql.DB, jobs int64) ([]int64, error) {
	rows, err := db.QueryContext(ctx, `SELECT job, COUNT(*) FROM effects GROUP BY job`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	applied := make([]int64, jobs)
	for rows.Next() {
		var job, n int64
		if err := rows.Scan(&job, &n); err != nil {
			return nil, err
		}
		if job < 0 || job >= jobs {
			return nil, fmt.Errorf("lab: sink holds job %d, outside 0-%d", job, jobs-1)
		}
		applied[job] = n
	}
	return applied, rows.Err()
}

// logged reads the workers' log: finished is how many jobs have a delivery that was acked and
// then logged, redelivered how many deliveries came after a job's first. The log row is a
// delivery's last write, so a job counts as finished only once its worker is done with it: the
// broker alone would call an ack-before-work job finished before its effect is written.
func logged(ctx context.Context, db *sql.DB) (finished, redelivered int64, err error) {
	err = db.QueryRowContext(ctx, `SELECT COUNT(DISTINCT CASE WHEN acked = 1 THEN job END),
		COALESCE(SUM(CASE WHEN attempt > 1 THEN 1 ELSE 0 END), 0) FROM deliveries`).Scan(&finished, &redelivered)
	return finished, redelivered, err
}

// killedPrefix begins the log row of a delivery whose worker then kills itself: the row is written
// first, so a row with it is a SIGKILL already on its way.
const killedPrefix = "killed with SIGKILL "

// killsLogged is how many workers logged that they were about to kill themselves. The run is not
// over until the supervisor has reaped that many: a worker that logged its last job and died a
// moment later would otherwise be stopped by the run's end and not counted as killed. Workers,
// not deliveries: a lease-time worker that held two jobs whose crash points came dies once for
// both (see drain).
func killsLogged(ctx context.Context, db *sql.DB) (n int64, err error) {
	err = db.QueryRowContext(ctx, `SELECT COUNT(DISTINCT worker) FROM deliveries WHERE what LIKE '`+killedPrefix+`%'`).Scan(&n)
	return n, err
}

// logTally is what the log says once the run is over, read in one pass over it.
type logTally struct {
	// killed counts the deliveries that died at their crash point (each followed by its worker's
	// SIGKILL), withWorker those still open when their worker was killed (closeDead's), which the
	// model has no counterpart for.
	killed, withWorker int64
	// lateBeats counts the deliveries whose renewals came further apart than the lease (see
	// lateBeat), slowAcks those acked past their lease by a slow machine (see slowAck): each may
	// have been handed out again for the machine's delay, not the design's, so a run does not
	// claim their jobs' verdicts. A row carries either note only where it can arise.
	lateBeats, slowAcks int64
}

// tallyLog reads the log's tally once the run is over.
func tallyLog(ctx context.Context, db *sql.DB) (t logTally, err error) {
	err = db.QueryRowContext(ctx, `SELECT COALESCE(SUM(CASE WHEN what LIKE '`+killedPrefix+`%' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN acked = 2 THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN what LIKE '%; `+lateBeat+` %' THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN what LIKE '%; `+slowAck+`:%' THEN 1 ELSE 0 END), 0) FROM deliveries`).Scan(&t.killed, &t.withWorker, &t.lateBeats, &t.slowAcks)
	return t, err
}

// diedWithWorker is what closeDead writes in the row of a delivery its worker's death ended.
const diedWithWorker = "died with its worker, whose process ended while this delivery worked"

// closeDead closes the lease log's open rows of worker id, whose process has ended (killed, or
// failed): a delivery that was working when its worker died is over, and the run must not wait
// for it (acked = 2).
func closeDead(ctx context.Context, db *sql.DB, id int) error {
	if _, err := db.ExecContext(ctx, `UPDATE deliveries SET acked = 2, what = $1 WHERE worker = $2 AND acked = 0`, diedWithWorker, id); err != nil {
		return fmt.Errorf("lab: sink: close worker %d's deliveries: %w", id, err)
	}
	return nil
}

// leaseLog reads a lease run's log: how many deliveries reached a worker, and how many of them
// are still being worked on (logged when they began, not yet closed; see worker.begin).
func leaseLog(ctx context.Context, db *sql.DB) (started, working int64, err error) {
	err = db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(CASE WHEN acked = 0 THEN 1 ELSE 0 END), 0) FROM deliveries`).Scan(&started, &working)
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
	marks := "$1"
	for i := range jobs[1:] {
		marks += ",$" + strconv.Itoa(i+2)
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

// postgresSink makes the run's own schema in the Postgres database at base and answers the URL
// that opens it (search_path set), and a drop that removes the schema with everything in it.
func postgresSink(ctx context.Context, base, name string) (target string, drop func(), err error) {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("lab: sink schema %s: %w", name, err)
	}
	drop = func() {
		// Dropped after a cancel too: the request's context may be gone by now.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		admin.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+name+` CASCADE`)
		admin.Close()
	}
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}
