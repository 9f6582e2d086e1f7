package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"effectivelyonce/rooms"
)

// A database fails in two ways that are nobody's request's fault. A pooled connection can die
// under the store (a backend terminated by a restart or an operator answers SQLSTATE 57P01 to the
// next statement on it): the request is sound and another connection serves it, so the store tries
// once more. Or the database is down or restarting for a while: every try fails, and the store
// says so with rooms.ErrUnavailable, which the server answers with 503 and Retry-After rather than
// a 500.

// errCommit marks a failure of COMMIT itself: the transaction may or may not have been applied, so
// running it again could apply it twice (a second round, a second room), and it is not retried.
type errCommit struct{ err error }

func (e errCommit) Error() string { return "commit: " + e.err.Error() }
func (e errCommit) Unwrap() error { return e.err }

// unavailable reports whether err says the database could not be reached or dropped the
// connection, as opposed to refusing the request.
func (d dialect) unavailable(err error) bool {
	var pe *pgconn.PgError
	var se *sqlite.Error
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &pe):
		// Class 08 is a connection exception; 57P01-57P03 a server shutting down, crashed or
		// starting; 53300 too many connections.
		return pe.Code[:2] == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || pe.Code == "53300"
	case errors.As(err, &se):
		// The busy timeout ran out behind another process's write lock.
		return se.Code()&0xff == sqlite3.SQLITE_BUSY || se.Code()&0xff == sqlite3.SQLITE_LOCKED
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	}
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// retried runs op, and once more when the first try failed because the database dropped its
// connection (never after a failed COMMIT, whose outcome is unknown, nor on SQLite, whose busy
// timeout has already waited). An error that still says the database cannot be reached is
// returned wrapping rooms.ErrUnavailable.
func retried[T any](ctx context.Context, s *Store, op func() (T, error)) (T, error) {
	v, err := op()
	var ce errCommit
	if err != nil && s.d.name == "postgres" && s.d.unavailable(err) && !errors.As(err, &ce) && ctx.Err() == nil {
		v, err = op()
	}
	if err != nil && s.d.unavailable(err) && ctx.Err() == nil {
		err = fmt.Errorf("%w: %w", rooms.ErrUnavailable, err)
	}
	return v, err
}

// retriedErr is retried for an operation that answers only an error.
func retriedErr(ctx context.Context, s *Store, op func() error) error {
	_, err := retried(ctx, s, func() (struct{}, error) { return struct{}{}, op() })
	return err
}
