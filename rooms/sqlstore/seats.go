package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"time"

	"effectivelyonce/rooms"
)

// This file holds what members do: join, guess, pin. Each write that depends on a count or on
// another row's state reads that state in the same transaction, holding it (see dialect.claim).

const memberCols = `id, room_id, name, token_hash, kicked, joined_at, last_seen, hosting`

func scanMember(sc scanner) (rooms.Member, error) {
	var m rooms.Member
	var h []byte
	var joined, seen int64
	if err := sc.Scan(&m.ID, &m.RoomID, &m.Name, &h, &m.Kicked, &joined, &seen, &m.Hosting); err != nil {
		return m, notFound(err)
	}
	m.JoinedAt = fromMicros(joined)
	if seen != 0 {
		m.LastSeen = fromMicros(seen)
	}
	var err error
	m.TokenHash, err = toHash(h)
	return m, err
}

// AddMember implements rooms.Store. The room's row is claimed first, so on Postgres two joins to
// one room take turns at the count and the name check; SQLite's single writer does the same.
func (s *Store) AddMember(ctx context.Context, m rooms.Member, max int) error {
	key := rooms.NameKey(m.Name)
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var locked, closed bool
		err := tx.QueryRowContext(ctx, `SELECT locked, closed FROM rooms WHERE id = $1`+s.d.claim, m.RoomID).Scan(&locked, &closed)
		switch {
		case err != nil:
			return notFound(err)
		case closed:
			return &rooms.FieldError{Field: "code", Message: "the room is closed", Err: rooms.ErrRoomClosed}
		case locked:
			return &rooms.FieldError{Field: "code", Message: "the room is locked to new members", Err: rooms.ErrRoomLocked}
		}
		n, err := count(ctx, tx, `SELECT count(*) FROM members WHERE room_id = $1 AND name_key = $2`, m.RoomID, key)
		if err != nil || n > 0 {
			return cmpErr(err, taken("name", "someone in the room already uses this name"))
		}
		n, err = count(ctx, tx, `SELECT count(*) FROM members WHERE room_id = $1 AND (id = $2 OR token_hash = $3)`,
			m.RoomID, m.ID, m.TokenHash[:])
		if err != nil || n > 0 {
			return cmpErr(err, taken("id", "the member id or key is in use"))
		}
		seated, err := count(ctx, tx, `SELECT count(*) FROM members WHERE room_id = $1 AND NOT kicked`, m.RoomID)
		if err != nil {
			return err
		}
		if seated >= max {
			return &rooms.LimitError{Field: "members", Max: max}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO members (id, room_id, name, name_key, token_hash, kicked, joined_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, m.ID, m.RoomID, m.Name, key, m.TokenHash[:], m.Kicked, micros(m.JoinedAt))
		if s.d.unique(err) {
			return taken("name", "someone in the room already uses this name")
		}
		return err
	})
}

// Members implements rooms.Store.
func (s *Store) Members(ctx context.Context, roomID string) ([]rooms.Member, error) {
	return list(ctx, s, roomID, scanMember,
		`SELECT `+memberCols+` FROM members WHERE room_id = $1 ORDER BY pos`, roomID)
}

// list runs a query for a room's rows on the read pool and scans each; an empty answer for a room
// that does not exist is ErrNotFound.
func list[T any](ctx context.Context, s *Store, roomID string, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	return retried(ctx, s, func() ([]T, error) {
		rows, err := s.read.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []T
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(out) == 0 {
			if err := roomExists(ctx, s.read, roomID); err != nil {
				return nil, err
			}
		}
		return out, nil
	})
}

// MemberByTokenHash implements rooms.Store.
func (s *Store) MemberByTokenHash(ctx context.Context, roomID string, h rooms.Hash) (rooms.Member, error) {
	return retried(ctx, s, func() (rooms.Member, error) {
		return scanMember(s.read.QueryRowContext(ctx,
			`SELECT `+memberCols+` FROM members WHERE room_id = $1 AND token_hash = $2`, roomID, h[:]))
	})
}

// TouchMember implements rooms.Store: one UPDATE, no transaction of its own, since it races
// nothing that matters (a stale "last seen" fades within the presence window anyway).
func (s *Store) TouchMember(ctx context.Context, roomID, memberID string, at time.Time) error {
	var us int64
	if !at.IsZero() {
		us = micros(at)
	}
	return retriedErr(ctx, s, func() error {
		res, err := s.write.ExecContext(ctx, `UPDATE members SET last_seen = $3 WHERE room_id = $1 AND id = $2`, roomID, memberID, us)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, rooms.ErrNotFound)
		}
		return nil
	})
}

// UpdateMember implements rooms.Store.
func (s *Store) UpdateMember(ctx context.Context, roomID, memberID string, fn func(*rooms.Member) error) (rooms.Member, error) {
	var m rooms.Member
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.openRoom(ctx, tx, roomID, s.d.share); err != nil {
			return err
		}
		var err error
		m, err = scanMember(tx.QueryRowContext(ctx,
			`SELECT `+memberCols+` FROM members WHERE room_id = $1 AND id = $2`+s.d.claim, roomID, memberID))
		if err != nil {
			return err
		}
		name := m.Name
		if err := fn(&m); err != nil {
			return err
		}
		if m.ID != memberID || m.RoomID != roomID || m.Name != name {
			return errChanged
		}
		_, err = tx.ExecContext(ctx, `UPDATE members SET token_hash = $3, kicked = $4, joined_at = $5, hosting = $6
			WHERE room_id = $1 AND id = $2`, roomID, memberID, m.TokenHash[:], m.Kicked, micros(m.JoinedAt), m.Hosting)
		return err
	})
	if err != nil {
		return rooms.Member{}, err
	}
	return m, nil
}

// PutGuess implements rooms.Store. On Postgres it holds the room, the round and the member in
// share mode until it commits: a close, lock, second vote, pause or kick that started first makes
// it wait and then read the new state, and one that starts later waits for the guess, so the guess
// lands wholly before or not at all. The round's own rule (rooms.Round.Takes) judges it on the row
// read here.
func (s *Store) PutGuess(ctx context.Context, g rooms.Guess) error {
	g.Vote = cmp.Or(g.Vote, 1)
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.openRoom(ctx, tx, g.RoomID, s.d.share); err != nil {
			return err
		}
		r, err := scanRound(tx.QueryRowContext(ctx, `SELECT `+roundCols+` FROM rounds WHERE room_id = $1 AND seq = $2`+s.d.share,
			g.RoomID, g.Seq))
		if err != nil {
			return err
		}
		if err := r.Takes(g); err != nil {
			return err
		}
		var kicked bool
		err = tx.QueryRowContext(ctx, `SELECT kicked FROM members WHERE room_id = $1 AND id = $2`+s.d.share,
			g.RoomID, g.MemberID).Scan(&kicked)
		if err != nil {
			return notFound(err)
		}
		if kicked {
			return rooms.ErrKicked
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO guesses (room_id, seq, member_id, vote, value, confidence, at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (room_id, seq, member_id, vote) DO UPDATE SET value = excluded.value,
				confidence = excluded.confidence, at = excluded.at`,
			g.RoomID, g.Seq, g.MemberID, g.Vote, g.Value, string(g.Confidence), micros(g.At))
		return err
	})
}

func scanGuess(sc scanner) (rooms.Guess, error) {
	var g rooms.Guess
	var at int64
	var conf string
	err := sc.Scan(&g.RoomID, &g.Seq, &g.MemberID, &g.Vote, &g.Value, &conf, &at)
	g.Confidence = rooms.Confidence(conf)
	g.At = fromMicros(at)
	return g, err
}

// Guesses implements rooms.Store. Guesses made in the same microsecond come in member id order.
func (s *Store) Guesses(ctx context.Context, roomID string) ([]rooms.Guess, error) {
	return list(ctx, s, roomID, scanGuess, `SELECT room_id, seq, member_id, vote, value, confidence, at
		FROM guesses WHERE room_id = $1 ORDER BY seq, vote, at, member_id`, roomID)
}

const pinCols = `id, room_id, member_id, path, note, hidden, at`

func scanPin(sc scanner) (rooms.Pin, error) {
	var p rooms.Pin
	var at int64
	if err := sc.Scan(&p.ID, &p.RoomID, &p.MemberID, &p.Path, &p.Note, &p.Hidden, &at); err != nil {
		return p, notFound(err)
	}
	p.At = fromMicros(at)
	return p, nil
}

// AddPin implements rooms.Store. Claiming the author's row makes one member's pins take turns at
// the limit without holding up anyone else in the room, and a kick waits for the pin or the pin
// sees the kick.
func (s *Store) AddPin(ctx context.Context, p rooms.Pin, max, perRoom int) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		// The room's row too, so that two members pinning at once count the board in turn.
		if err := s.openRoom(ctx, tx, p.RoomID, s.d.claim); err != nil {
			return err
		}
		var kicked bool
		err := tx.QueryRowContext(ctx, `SELECT kicked FROM members WHERE room_id = $1 AND id = $2`+s.d.claim,
			p.RoomID, p.MemberID).Scan(&kicked)
		if err != nil {
			return notFound(err)
		}
		if kicked {
			return rooms.ErrKicked
		}
		n, err := count(ctx, tx, `SELECT count(*) FROM pins WHERE room_id = $1 AND id = $2`, p.RoomID, p.ID)
		if err != nil || n > 0 {
			return cmpErr(err, taken("id", "the pin id is in use"))
		}
		n, err = count(ctx, tx, `SELECT count(*) FROM pins WHERE room_id = $1 AND member_id = $2`, p.RoomID, p.MemberID)
		if err != nil {
			return err
		}
		if n >= max {
			return &rooms.LimitError{Field: "pins", Max: max}
		}
		if n, err = count(ctx, tx, `SELECT count(*) FROM pins WHERE room_id = $1`, p.RoomID); err != nil {
			return err
		}
		if n >= perRoom {
			return &rooms.LimitError{Field: "board", Max: perRoom}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO pins (`+pinCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			p.ID, p.RoomID, p.MemberID, p.Path, p.Note, p.Hidden, micros(p.At))
		if s.d.unique(err) {
			return taken("id", "the pin id is in use")
		}
		return err
	})
}

// Pins implements rooms.Store; pins made in the same microsecond come newest first too.
func (s *Store) Pins(ctx context.Context, roomID string) ([]rooms.Pin, error) {
	return list(ctx, s, roomID, scanPin,
		`SELECT `+pinCols+` FROM pins WHERE room_id = $1 ORDER BY at DESC, pos DESC`, roomID)
}

// UpdatePin implements rooms.Store.
func (s *Store) UpdatePin(ctx context.Context, roomID, pinID string, fn func(*rooms.Pin) error) (rooms.Pin, error) {
	var p rooms.Pin
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.openRoom(ctx, tx, roomID, s.d.share); err != nil {
			return err
		}
		var err error
		p, err = scanPin(tx.QueryRowContext(ctx, `SELECT `+pinCols+` FROM pins WHERE room_id = $1 AND id = $2`+s.d.claim,
			roomID, pinID))
		if err != nil {
			return err
		}
		if err := fn(&p); err != nil {
			return err
		}
		if p.ID != pinID || p.RoomID != roomID {
			return errChanged
		}
		_, err = tx.ExecContext(ctx, `UPDATE pins SET member_id = $3, path = $4, note = $5, hidden = $6, at = $7
			WHERE room_id = $1 AND id = $2`, roomID, pinID, p.MemberID, p.Path, p.Note, p.Hidden, micros(p.At))
		return err
	})
	if err != nil {
		return rooms.Pin{}, err
	}
	return p, nil
}
