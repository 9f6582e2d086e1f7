package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"effectivelyonce/rooms"
)

// A handler round's reference verdict is kept as the JSON of rooms.Verdict in its round's row
// ('' until the reveal): read and written whole, never searched.

func verdictText(v *rooms.Verdict) (string, error) {
	if v == nil {
		return "", nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func verdictFrom(text string) (*rooms.Verdict, error) {
	if text == "" {
		return nil, nil
	}
	var v rooms.Verdict
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("sqlstore: a round's reference verdict: %w", err)
	}
	return &v, nil
}

// PutSubmission implements rooms.Store. It holds the room, the round and the member in share mode
// as PutGuess does, so that a lock, a reveal or a kick that started first is seen, and one that
// starts later waits for the submission; the share and the submission commit together.
func (s *Store) PutSubmission(ctx context.Context, sub rooms.Submission, source string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.openRoom(ctx, tx, sub.RoomID, s.d.share); err != nil {
			return err
		}
		r, err := scanRound(tx.QueryRowContext(ctx, `SELECT `+roundCols+` FROM rounds WHERE room_id = $1 AND seq = $2`+s.d.share,
			sub.RoomID, sub.Seq))
		if err != nil {
			return err
		}
		if err := r.TakesHandler(sub.At); err != nil {
			return err
		}
		var kicked bool
		err = tx.QueryRowContext(ctx, `SELECT kicked FROM members WHERE room_id = $1 AND id = $2`+s.d.share,
			sub.RoomID, sub.MemberID).Scan(&kicked)
		if err != nil {
			return notFound(err)
		}
		if kicked {
			return rooms.ErrKicked
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO workbench_shares (hash, source, created_at) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`,
			sub.Hash, source, micros(sub.At)); err != nil {
			return err
		}
		v := sub.Verdict
		var events sql.NullInt64
		if v.Events != nil {
			events = sql.NullInt64{Int64: *v.Events, Valid: true}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO submissions (room_id, seq, member_id, share_hash, points, survived, lost,
				duplicated, events, survives, at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (room_id, seq, member_id) DO UPDATE SET share_hash = excluded.share_hash, points = excluded.points,
				survived = excluded.survived, lost = excluded.lost, duplicated = excluded.duplicated, events = excluded.events,
				survives = excluded.survives, at = excluded.at`,
			sub.RoomID, sub.Seq, sub.MemberID, sub.Hash, v.Points, v.Survived, v.Lost, v.Duplicated, events, v.Survives, micros(sub.At))
		return err
	})
}

func scanSubmission(sc scanner) (rooms.Submission, error) {
	var sub rooms.Submission
	var at int64
	var events sql.NullInt64
	v := &sub.Verdict
	err := sc.Scan(&sub.RoomID, &sub.Seq, &sub.MemberID, &sub.Hash, &v.Points, &v.Survived, &v.Lost, &v.Duplicated,
		&events, &v.Survives, &at)
	if events.Valid {
		v.Events = &events.Int64
	}
	sub.At = fromMicros(at)
	return sub, err
}

// Submissions implements rooms.Store. Submissions made in the same microsecond come in member id
// order.
func (s *Store) Submissions(ctx context.Context, roomID string) ([]rooms.Submission, error) {
	return list(ctx, s, roomID, scanSubmission, `SELECT room_id, seq, member_id, share_hash, points, survived, lost,
		duplicated, events, survives, at FROM submissions WHERE room_id = $1 ORDER BY seq, at, member_id`, roomID)
}
