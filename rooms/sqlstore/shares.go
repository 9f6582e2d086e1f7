package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"effectivelyonce/rooms"
)

// ErrNoShare answers Share for a hash no handler was shared under. It is a rooms.ErrNotFound, as
// the rooms' Store contract asks of Share.
var ErrNoShare = fmt.Errorf("sqlstore: no shared handler with this hash: %w", rooms.ErrNotFound)

// ShareHash is the key a handler's source is shared under: rooms.ShareHash, which a room's handler
// submissions are kept under too, so a handler shared and submitted is one row.
func ShareHash(source string) string { return rooms.ShareHash(source) }

// PutShare keeps source under its ShareHash and returns the hash. Sharing the same source again
// changes nothing (the row is the content's, so it cannot differ) and answers the same hash.
func (s *Store) PutShare(ctx context.Context, source string, at time.Time) (string, error) {
	hash := ShareHash(source)
	err := retriedErr(ctx, s, func() error {
		_, err := s.write.ExecContext(ctx,
			`INSERT INTO workbench_shares (hash, source, created_at) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING`,
			hash, source, micros(at))
		return err
	})
	if err != nil {
		return "", err
	}
	return hash, nil
}

// Share returns the source shared under hash, or ErrNoShare.
func (s *Store) Share(ctx context.Context, hash string) (string, error) {
	return retried(ctx, s, func() (string, error) {
		var src string
		err := s.read.QueryRowContext(ctx, `SELECT source FROM workbench_shares WHERE hash = $1`, hash).Scan(&src)
		if errors.Is(err, sql.ErrNoRows) {
			return "", ErrNoShare
		}
		return src, err
	})
}
