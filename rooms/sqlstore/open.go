// Package sqlstore keeps the study rooms in SQL: one implementation of rooms.Store whose queries
// run on two databases. SQLite (modernc.org/sqlite, pure Go) is the embedded default, a single
// file under the data directory; Postgres (pgx through database/sql) is the option for several
// replicas. The schema for each lives in migrations/<dialect> as plain SQL files embedded in the
// binary and applied with goose when a store opens.
//
// The SQL itself is shared: $N placeholders, ON CONFLICT and RETURNING read the same on both. The
// differences are gathered in a dialect value: how a transaction claims the rows it is about to
// check (Postgres row locks; SQLite has one writer, so BEGIN IMMEDIATE is the lock) and how a
// unique violation is recognised.
package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"effectivelyonce/rooms"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

// FileName is the SQLite file a data directory holds the rooms in.
const FileName = "rooms.db"

// versionTable is where goose records which migrations ran; named for this package so that other
// stores sharing a Postgres database keep their own history.
const versionTable = "rooms_schema_version"

// readers is the size of the SQLite read pool. Readers never wait for the writer under WAL, so a
// few connections cover many concurrent page loads.
const readers = 4

// Store is a rooms.Store backed by a SQL database. Its methods are safe for concurrent use.
type Store struct {
	write *sql.DB // every transaction that writes; one connection on SQLite
	read  *sql.DB // plain reads; a separate pool on SQLite, the same pool on Postgres
	d     dialect
}

var _ rooms.Store = (*Store)(nil)

// dialect holds what differs between the two databases.
type dialect struct {
	name string
	// claim is appended to a SELECT inside a write transaction to hold the rows it read until
	// commit, so that a check and the write after it cannot be split by another writer.
	claim string
	// share is appended where a transaction only needs the rows not to change under it.
	share string
	// serialRooms, when not empty, runs first in CreateRoom so that two rooms created at once
	// cannot both squeeze under the open-rooms limit.
	serialRooms string
	unique      func(error) bool
}

var sqliteDialect = dialect{
	name: "sqlite",
	unique: func(err error) bool {
		var e *sqlite.Error
		return errors.As(err, &e) &&
			(e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
	},
}

var postgresDialect = dialect{
	name:        "postgres",
	claim:       " FOR NO KEY UPDATE",
	share:       " FOR SHARE",
	serialRooms: "SELECT pg_advisory_xact_lock(7411)",
	unique: func(err error) bool {
		var e *pgconn.PgError
		return errors.As(err, &e) && e.Code == "23505"
	},
}

// Open picks the database from dsn: a postgres:// or postgresql:// URL opens Postgres, anything
// else is taken as the path of a SQLite file.
func Open(ctx context.Context, dsn string) (*Store, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return OpenPostgres(ctx, dsn)
	}
	return OpenSQLite(ctx, dsn)
}

// OpenSQLite opens (creating when needed) the SQLite file at path and brings its schema up to
// date. Writes go through a single connection whose transactions begin IMMEDIATE, so they queue in
// Go rather than fail with SQLITE_BUSY; reads use a small pool of their own. The pragmas are set
// on every connection: WAL, a busy timeout for other processes, and foreign keys, which SQLite
// leaves off unless asked. synchronous=NORMAL keeps every committed row across a crash of the
// process; only a power cut can lose the last few commits.
func OpenSQLite(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("sqlstore: data directory: %w", err)
		}
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "busy_timeout(10000)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	write, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	// The writer makes the file and switches it to WAL before any reader opens it.
	if err := migrate(ctx, write, goose.DialectSQLite3, "migrations/sqlite", nil); err != nil {
		write.Close()
		return nil, err
	}
	if err := rekeyNames(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("sqlstore: name keys: %w", err)
	}
	q.Add("_pragma", "query_only(1)")
	read, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		write.Close()
		return nil, err
	}
	read.SetMaxOpenConns(readers)
	read.SetMaxIdleConns(readers)
	if err := read.PingContext(ctx); err != nil {
		write.Close()
		read.Close()
		return nil, err
	}
	return &Store{write: write, read: read, d: sqliteDialect}, nil
}

// OpenPostgres connects to the Postgres database at url (postgres://user:pass@host/db?...) and
// brings its schema up to date. Replicas starting together take turns at the migrations under a
// session advisory lock.
func OpenPostgres(ctx context.Context, url string) (*Store, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(8)
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := migrate(ctx, db, goose.DialectPostgres, "migrations/postgres", locker); err != nil {
		db.Close()
		return nil, err
	}
	if err := rekeyNames(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlstore: name keys: %w", err)
	}
	return &Store{write: db, read: db, d: postgresDialect}, nil
}

func migrate(ctx context.Context, db *sql.DB, d goose.Dialect, dir string, locker lock.SessionLocker) error {
	fsys, err := fs.Sub(migrations, dir)
	if err != nil {
		return err
	}
	opts := []goose.ProviderOption{goose.WithTableName(versionTable), goose.WithDisableGlobalRegistry(true)}
	if locker != nil {
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(d, db, fsys, opts...)
	if err != nil {
		return fmt.Errorf("sqlstore: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("sqlstore: migrating %s: %w", d, err)
	}
	return nil
}

// Dialect names the database behind the store: "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.d.name }

// Close closes the store's connections.
func (s *Store) Close() error {
	err := s.write.Close()
	if s.read != s.write {
		err = errors.Join(err, s.read.Close())
	}
	return err
}
