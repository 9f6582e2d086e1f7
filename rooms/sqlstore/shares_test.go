package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"effectivelyonce/internal/pgtest"
	"effectivelyonce/rooms/sqlstore"
)

// shareSuite holds the share store to its contract on one dialect: a source comes back whole
// under its content's hash, sharing it again (also at once, from many requests) keeps one row
// with the same hash, another source gets another hash, and an unknown hash is ErrNoShare.
func shareSuite(t *testing.T, s *sqlstore.Store) {
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	src := "def handle(job, queue, db, bus):\n    db.apply(job.id)\n    queue.ack()\n    # caf\u00e9 \U0001F600\n"
	h, err := s.PutShare(ctx, src, at)
	if err != nil {
		t.Fatal(err)
	}
	if h != sqlstore.ShareHash(src) || len(h) != 12 || strings.ToLower(h) != h {
		t.Fatalf("PutShare answered %q, want the 12-character ShareHash %q", h, sqlstore.ShareHash(src))
	}
	got, err := s.Share(ctx, h)
	if err != nil || got != src {
		t.Fatalf("Share(%q) = %q, %v; want the source back whole", h, got, err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			again, err := s.PutShare(ctx, src, at.Add(time.Hour))
			if err == nil && again != h {
				err = fmt.Errorf("shared again under %q, want %q", again, h)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("sharing the same source again: %v", err)
	}
	other := src + "\n"
	h2, err := s.PutShare(ctx, other, at)
	if err != nil || h2 == h {
		t.Fatalf("a different source shared as %q (%v), the same hash as the first", h2, err)
	}
	if got, _ := s.Share(ctx, h2); got != other {
		t.Fatalf("the second source came back as %q", got)
	}
	if _, err := s.Share(ctx, "aaaaaaaaaaaa"); !errors.Is(err, sqlstore.ErrNoShare) {
		t.Fatalf("an unknown hash: %v, want ErrNoShare", err)
	}
}

func TestShareSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), sqlstore.FileName)
	s := openSQLite(t, path)
	shareSuite(t, s)
	h := sqlstore.ShareHash("x = 1\n")
	if _, err := s.PutShare(context.Background(), "x = 1\n", time.Now()); err != nil {
		t.Fatal(err)
	}
	must(t, s.Close())
	s = openSQLite(t, path) // a share is permanent: it outlives the process
	defer s.Close()
	if got, err := s.Share(context.Background(), h); err != nil || got != "x = 1\n" {
		t.Fatalf("after reopening: %q, %v", got, err)
	}
}

func TestSharePostgres(t *testing.T) {
	url := pgtest.URL(t, "the Postgres share store")
	ctx := context.Background()
	admin, err := sqlstore.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	schema := fmt.Sprintf("share_%d_%d", time.Now().UnixNano(), os.Getpid())
	must(t, sqlstore.Exec(ctx, admin, "CREATE SCHEMA "+schema))
	t.Cleanup(func() { _ = sqlstore.Exec(ctx, admin, "DROP SCHEMA "+schema+" CASCADE") })
	s, err := sqlstore.OpenPostgres(ctx, withSearchPath(url, schema))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	shareSuite(t, s)
}
