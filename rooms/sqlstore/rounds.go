package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"effectivelyonce/rooms"
)

// A round's question is kept as the JSON of rooms.Question: it is read and written whole, never
// searched, and a new kind of question then needs no migration.

const roundCols = `room_id, seq, question, state, measured, names_visible, opened_at, revealed_at,
	votes, vote, seconds, deadline, paused_left, reference, shown`

func scanRound(sc scanner) (rooms.Round, error) {
	var r rooms.Round
	var q, ref string
	var opened, revealed, deadline, left int64
	if err := sc.Scan(&r.RoomID, &r.Seq, &q, &r.State, &r.Measured, &r.NamesVisible, &opened, &revealed,
		&r.Votes, &r.Vote, &r.Seconds, &deadline, &left, &ref, &r.Shown); err != nil {
		return r, notFound(err)
	}
	var err error
	if r.Reference, err = verdictFrom(ref); err != nil {
		return r, err
	}
	r.OpenedAt, r.RevealedAt = fromMicros(opened), fromMicros(revealed)
	if deadline != 0 { // a zero time.Time is not 1970: no countdown runs
		r.Deadline = fromMicros(deadline)
	}
	r.PausedLeft = time.Duration(left) * time.Microsecond
	return r, json.Unmarshal([]byte(q), &r.Question)
}

// timerCols are a round's countdown as its columns keep it: 0 for a zero deadline.
func timerCols(r rooms.Round) (deadline, left int64) {
	if !r.Deadline.IsZero() {
		deadline = micros(r.Deadline)
	}
	return deadline, r.PausedLeft.Microseconds()
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
	r.Votes, r.Vote = cmp.Or(r.Votes, 1), cmp.Or(r.Vote, 1)
	deadline, left := timerCols(r)
	ref, err := verdictText(r.Reference)
	if err != nil {
		return rooms.Round{}, err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.openRoom(ctx, tx, r.RoomID, s.d.claim); err != nil {
			return err
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
			VALUES ($1, (SELECT coalesce(max(seq), 0) + 1 FROM rounds WHERE room_id = $1), $2, $3, $4, $5, $6, $7,
				$8, $9, $10, $11, $12, $13, $14)
			RETURNING seq`,
			r.RoomID, string(q), r.State, r.Measured, r.NamesVisible, micros(r.OpenedAt), micros(r.RevealedAt),
			r.Votes, r.Vote, r.Seconds, deadline, left, ref, r.Shown).Scan(&r.Seq)
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
// what lets the state machine's checks in fn stand for the write that follows. The room's row is
// claimed before it, as AddRound claims it, so that a round opened again (a second vote) and a
// round added at once take turns at locking each other: always room, then round, never the
// other way, so the two cannot deadlock. Holding the room is also what lets "only the newest
// round opens again" stand: no round can be added between the count and the write.
func (s *Store) UpdateRound(ctx context.Context, roomID string, seq int, fn func(*rooms.Round) error) (rooms.Round, error) {
	var r rooms.Round
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.openRoom(ctx, tx, roomID, s.d.claim); err != nil {
			return err
		}
		var err error
		r, err = scanRound(tx.QueryRowContext(ctx,
			`SELECT `+roundCols+` FROM rounds WHERE room_id = $1 AND seq = $2`+s.d.claim, roomID, seq))
		if err != nil {
			return err
		}
		was := r.State
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
		if r.State == rooms.RoundOpen && was != rooms.RoundOpen {
			newest, err := count(ctx, tx, `SELECT coalesce(max(seq), 0) FROM rounds WHERE room_id = $1`, roomID)
			if err != nil {
				return err
			}
			if seq != newest {
				return rooms.NotNewest(seq, newest)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE rounds SET state = $2 WHERE room_id = $1 AND state = $3 AND seq <> $4`,
				roomID, rooms.RoundLocked, rooms.RoundOpen, seq); err != nil {
				return err
			}
		}
		r.Votes, r.Vote = cmp.Or(r.Votes, 1), cmp.Or(r.Vote, 1)
		deadline, left := timerCols(r)
		ref, err := verdictText(r.Reference)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE rounds SET question = $3, state = $4, measured = $5, names_visible = $6,
			opened_at = $7, revealed_at = $8, votes = $9, vote = $10, seconds = $11, deadline = $12, paused_left = $13,
			reference = $14, shown = $15
			WHERE room_id = $1 AND seq = $2`,
			roomID, seq, string(q), r.State, r.Measured, r.NamesVisible, micros(r.OpenedAt), micros(r.RevealedAt),
			r.Votes, r.Vote, r.Seconds, deadline, left, ref, r.Shown)
		return err
	})
	if err != nil {
		return rooms.Round{}, err
	}
	return r, nil
}
