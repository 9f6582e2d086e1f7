package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"effectivelyonce/rooms"
)

// A round's question is kept as the JSON of rooms.Question: it is read and written whole, never
// searched, and a new kind of question then needs no migration.

const roundCols = `room_id, seq, question, state, measured, names_visible, opened_at, revealed_at`

func scanRound(sc scanner) (rooms.Round, error) {
	var r rooms.Round
	var q string
	var opened, revealed int64
	if err := sc.Scan(&r.RoomID, &r.Seq, &q, &r.State, &r.Measured, &r.NamesVisible, &opened, &revealed); err != nil {
		return r, notFound(err)
	}
	r.OpenedAt, r.RevealedAt = fromMicros(opened), fromMicros(revealed)
	return r, json.Unmarshal([]byte(q), &r.Question)
}

// AddRound implements rooms.Store. The room's row is claimed so that two rounds added at once take
// turns: each counts the rounds against max, gets its own number (the primary key (room_id, seq)
// would refuse a duplicate in any case), and locks the rounds the one before left open. On
// Postgres the UPDATE waits for the guesses holding an open round in share mode, so a guess
// commits before the lock or sees it.
func (s *Store) AddRound(ctx context.Context, r rooms.Round, max int) (rooms.Round, error) {
	q, err := json.Marshal(r.Question)
	if err != nil {
		return rooms.Round{}, err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var id string
		if err := tx.QueryRowContext(ctx, `SELECT id FROM rooms WHERE id = $1`+s.d.claim, r.RoomID).Scan(&id); err != nil {
			return notFound(err)
		}
		n, err := count(ctx, tx, `SELECT count(*) FROM rounds WHERE room_id = $1`, r.RoomID)
		if err != nil {
			return err
		}
		if n >= max {
			return &rooms.LimitError{Field: "rounds", Max: max}
		}
		if r.State == rooms.RoundOpen {
			if _, err := tx.ExecContext(ctx, `UPDATE rounds SET state = $2 WHERE room_id = $1 AND state = $3`,
				r.RoomID, rooms.RoundLocked, rooms.RoundOpen); err != nil {
				return err
			}
		}
		return tx.QueryRowContext(ctx, `INSERT INTO rounds (`+roundCols+`)
			VALUES ($1, (SELECT coalesce(max(seq), 0) + 1 FROM rounds WHERE room_id = $1), $2, $3, $4, $5, $6, $7)
			RETURNING seq`,
			r.RoomID, string(q), r.State, r.Measured, r.NamesVisible, micros(r.OpenedAt), micros(r.RevealedAt)).Scan(&r.Seq)
	})
	if err != nil {
		return rooms.Round{}, err
	}
	return r, nil
}

// Rounds implements rooms.Store.
func (s *Store) Rounds(ctx context.Context, roomID string) ([]rooms.Round, error) {
	return list(ctx, s, roomID, scanRound, `SELECT `+roundCols+` FROM rounds WHERE room_id = $1 ORDER BY seq`, roomID)
}

// UpdateRound implements rooms.Store. The round's row stays claimed while fn decides, which is
// what lets the state machine's checks in fn stand for the write that follows.
func (s *Store) UpdateRound(ctx context.Context, roomID string, seq int, fn func(*rooms.Round) error) (rooms.Round, error) {
	var r rooms.Round
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		r, err = scanRound(tx.QueryRowContext(ctx,
			`SELECT `+roundCols+` FROM rounds WHERE room_id = $1 AND seq = $2`+s.d.claim, roomID, seq))
		if err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
		if r.RoomID != roomID || r.Seq != seq {
			return errChanged
		}
		q, err := json.Marshal(r.Question)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE rounds SET question = $3, state = $4, measured = $5, names_visible = $6,
			opened_at = $7, revealed_at = $8 WHERE room_id = $1 AND seq = $2`,
			roomID, seq, string(q), r.State, r.Measured, r.NamesVisible, micros(r.OpenedAt), micros(r.RevealedAt))
		return err
	})
	if err != nil {
		return rooms.Round{}, err
	}
	return r, nil
}
