package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"effectivelyonce/rooms"
)

// errChanged refuses an update whose fn touched a field the contract says it may not change.
var errChanged = errors.New("sqlstore: an update changed an identifying field")

// micros and fromMicros convert times to the integer column type both schemas use. Microseconds
// are what Postgres itself keeps, and an int64 of them spans every year a room can have.
func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

func toHash(b []byte) (rooms.Hash, error) {
	var h rooms.Hash
	if len(b) != len(h) {
		return h, fmt.Errorf("sqlstore: a stored hash has %d bytes, want %d", len(b), len(h))
	}
	copy(h[:], b)
	return h, nil
}

func taken(field, msg string) error {
	return &rooms.FieldError{Field: field, Message: msg, Err: rooms.ErrTaken}
}

// notFound turns the driver's "no rows" into the domain's ErrNotFound and leaves other errors be.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return rooms.ErrNotFound
	}
	return err
}

type scanner interface{ Scan(dest ...any) error }

// querier is what both *sql.DB and *sql.Tx offer, so the readers can run inside a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inTx runs fn in a write transaction and commits when it returns nil. On SQLite the transaction
// begins IMMEDIATE (the DSN asks for it), which takes the database's write lock up front: every
// check fn makes holds until commit. On Postgres the SELECTs inside fn claim the rows they check. A
// transaction that failed on a dropped connection before its COMMIT is run again once (retried).
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return retriedErr(ctx, s, func() error {
		tx, err := s.write.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			_ = tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return errCommit{err}
		}
		return nil
	})
}

func count(ctx context.Context, q querier, query string, args ...any) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// roomExists tells an empty list apart from a room that is not there.
func roomExists(ctx context.Context, q querier, id string) error {
	n, err := count(ctx, q, `SELECT count(*) FROM rooms WHERE id = $1`, id)
	if err == nil && n == 0 {
		err = rooms.ErrNotFound
	}
	return err
}

// openRoom checks inside tx that room id is open, for a write to what the room holds, and holds
// its row with lock (the dialect's claim or share) until commit, so that a close waits for the
// write or the write sees the close: RoomClosed once it is closed, ErrNotFound when it is gone.
// Every write takes the room's row before any other, so two writes never wait on each other in
// opposite orders.
func (s *Store) openRoom(ctx context.Context, tx *sql.Tx, id, lock string) error {
	var closed bool
	if err := tx.QueryRowContext(ctx, `SELECT closed FROM rooms WHERE id = $1`+lock, id).Scan(&closed); err != nil {
		return notFound(err)
	}
	if closed {
		return rooms.RoomClosed()
	}
	return nil
}

const roomCols = `id, code, title, host_key_hash, locked, closed, created_at, last_activity, presenting, host_link, lab_run`

func scanRoom(sc scanner) (rooms.Room, error) {
	var r rooms.Room
	var h []byte
	var created, active int64
	var link string
	if err := sc.Scan(&r.ID, &r.Code, &r.Title, &h, &r.Locked, &r.Closed, &created, &active, &r.Presenting, &link, &r.LabRun); err != nil {
		return r, notFound(err)
	}
	r.CreatedAt, r.LastActivity = fromMicros(created), fromMicros(active)
	var err error
	if r.HostKeyHash, err = toHash(h); err != nil {
		return r, err
	}
	r.HostLink, err = hostLinkFrom(link)
	return r, err
}

// hostLinkJSON is a rooms.HostLink as its column keeps it.
type hostLinkJSON struct {
	TokenHash []byte `json:"token_hash"`
	Sealed    string `json:"sealed"`
	Expires   int64  `json:"expires"` // microseconds, as every time of the schema
}

// hostLinkText is the column's text for l: empty for no link.
func hostLinkText(l rooms.HostLink) (string, error) {
	if l.IsZero() {
		return "", nil
	}
	b, err := json.Marshal(hostLinkJSON{TokenHash: l.TokenHash[:], Sealed: l.Sealed, Expires: micros(l.Expires)})
	return string(b), err
}

func hostLinkFrom(text string) (rooms.HostLink, error) {
	if text == "" {
		return rooms.HostLink{}, nil
	}
	var j hostLinkJSON
	if err := json.Unmarshal([]byte(text), &j); err != nil {
		return rooms.HostLink{}, fmt.Errorf("sqlstore: a room's host link: %w", err)
	}
	h, err := toHash(j.TokenHash)
	return rooms.HostLink{TokenHash: h, Sealed: j.Sealed, Expires: fromMicros(j.Expires)}, err
}

// CreateRoom implements rooms.Store.
func (s *Store) CreateRoom(ctx context.Context, r rooms.Room, maxOpen int) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if s.d.serialRooms != "" {
			if _, err := tx.ExecContext(ctx, s.d.serialRooms); err != nil {
				return err
			}
		}
		if n, err := count(ctx, tx, `SELECT count(*) FROM rooms WHERE code = $1`, r.Code); err != nil || n > 0 {
			return cmpErr(err, taken("code", "the join code is in use"))
		}
		if n, err := count(ctx, tx, `SELECT count(*) FROM rooms WHERE id = $1`, r.ID); err != nil || n > 0 {
			return cmpErr(err, taken("id", "the room id is in use"))
		}
		open, err := count(ctx, tx, `SELECT count(*) FROM rooms WHERE NOT closed`)
		if err != nil {
			return err
		}
		if open >= maxOpen {
			return &rooms.LimitError{Field: "rooms", Max: maxOpen}
		}
		link, err := hostLinkText(r.HostLink)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO rooms (`+roomCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			r.ID, r.Code, r.Title, r.HostKeyHash[:], r.Locked, r.Closed, micros(r.CreatedAt), micros(r.LastActivity), r.Presenting, link, r.LabRun)
		if s.d.unique(err) {
			return taken("code", "the join code is in use")
		}
		return err
	})
}

// cmpErr answers err when a query failed, else the refusal the query's answer called for.
func cmpErr(err, refusal error) error {
	if err != nil {
		return err
	}
	return refusal
}

// RoomByCode implements rooms.Store.
func (s *Store) RoomByCode(ctx context.Context, code string) (rooms.Room, error) {
	return retried(ctx, s, func() (rooms.Room, error) {
		return scanRoom(s.read.QueryRowContext(ctx, `SELECT `+roomCols+` FROM rooms WHERE code = $1`, code))
	})
}

// RoomByID implements rooms.Store.
func (s *Store) RoomByID(ctx context.Context, id string) (rooms.Room, error) {
	return retried(ctx, s, func() (rooms.Room, error) {
		return scanRoom(s.read.QueryRowContext(ctx, `SELECT `+roomCols+` FROM rooms WHERE id = $1`, id))
	})
}

// UpdateRoom implements rooms.Store.
func (s *Store) UpdateRoom(ctx context.Context, id string, fn func(*rooms.Room) error) (rooms.Room, error) {
	var r rooms.Room
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		r, err = scanRoom(tx.QueryRowContext(ctx, `SELECT `+roomCols+` FROM rooms WHERE id = $1`+s.d.claim, id))
		if err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
		if r.ID != id {
			return errChanged
		}
		link, err := hostLinkText(r.HostLink)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE rooms SET code = $2, title = $3, host_key_hash = $4, locked = $5,
			closed = $6, created_at = $7, last_activity = $8, presenting = $9, host_link = $10, lab_run = $11 WHERE id = $1`,
			r.ID, r.Code, r.Title, r.HostKeyHash[:], r.Locked, r.Closed, micros(r.CreatedAt), micros(r.LastActivity), r.Presenting, link, r.LabRun)
		if s.d.unique(err) {
			return taken("code", "the join code is in use")
		}
		return err
	})
	if err != nil {
		return rooms.Room{}, err
	}
	return r, nil
}

// CloseIdleRooms implements rooms.Store.
func (s *Store) CloseIdleRooms(ctx context.Context, before, unjoinedBefore time.Time) (int, error) {
	return retried(ctx, s, func() (int, error) {
		return affected(s.write.ExecContext(ctx, `UPDATE rooms SET closed = $1 WHERE NOT closed AND (last_activity < $2
			OR last_activity < $3 AND NOT EXISTS (SELECT 1 FROM members WHERE members.room_id = rooms.id))`,
			true, micros(before), micros(unjoinedBefore)))
	})
}

// DeleteIdleRooms implements rooms.Store. The foreign keys cascade to everything the room holds.
func (s *Store) DeleteIdleRooms(ctx context.Context, before time.Time) (int, error) {
	return retried(ctx, s, func() (int, error) {
		return affected(s.write.ExecContext(ctx, `DELETE FROM rooms WHERE closed AND last_activity < $1`, micros(before)))
	})
}

func affected(res sql.Result, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
