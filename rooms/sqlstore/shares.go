package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base32"
	"errors"
	"strings"
	"time"
)

// ErrNoShare answers Share for a hash no handler was shared under.
var ErrNoShare = errors.New("sqlstore: no shared handler with this hash")

// ShareHash is the key a handler's source is shared under: the first 60 bits of its SHA-256, in
// lower-case base32 (12 characters). Short enough for a URL someone reads aloud, and a collision
// among the handlers one site will ever hold is out of reach (birthday bound ~2^30 handlers).
func ShareHash(source string) string {
	sum := sha256.Sum256([]byte(source))
	enc := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:8])
	return strings.ToLower(enc[:12])
}

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
