package lab

// A run's files (the embedded broker's store, the SQLite sink) live in a directory of their own
// under Config.ScratchDir, next to a lock file the running process holds (flock) for as long as
// the run lasts. The kernel lets go of a flock when its holder ends in any way, SIGKILL
// included, so a lock anyone can take belongs to a run that is gone: Sweep removes what such a
// run left, here and on a shared broker or database, and nothing outlives a killed site for
// longer than until the next sweep (at the site's start, and after each of its runs).

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// scratchPrefix starts the names of a run's directory (lab-run-TAG) and its lock
// (lab-run-TAG.lock); nothing else under ScratchDir is touched, so a shared one is safe.
const (
	scratchPrefix = "lab-run-"
	lockSuffix    = ".lock"
)

// scratch is one run's directory and the lock that says the run is alive. tag names the run's
// stream on a shared broker and its schema in a shared database too, so that a sweep finds them.
type scratch struct {
	dir, lockPath, tag string
	lock               *os.File
}

// streamName and schemaName are what a run with this tag makes on a NATS server or a Postgres
// database that outlives it.
func streamName(tag string) string { return "LAB_" + tag }
func schemaName(tag string) string { return "lab_run_" + tag }

// newScratch makes a run's lock, takes it, and only then makes its directory: a directory
// without a lock file is always a dead run's.
func newScratch(root string) (*scratch, error) {
	if root == "" {
		root = os.TempDir()
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("lab: scratch directory: %w", err)
	}
	for range 10 {
		id := make([]byte, tagLen/2)
		rand.Read(id)
		tag := hex.EncodeToString(id)
		s := &scratch{dir: filepath.Join(root, scratchPrefix+tag), lockPath: filepath.Join(root, scratchPrefix+tag+lockSuffix), tag: tag}
		f, err := os.OpenFile(s.lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("lab: scratch lock: %w", err)
		}
		// A sweep may take the new lock before this process does, judge the run dead and remove
		// the file; the lock taken then is on a file nobody can find, so start again.
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil || !sameFile(f, s.lockPath) {
			f.Close()
			continue
		}
		s.lock = f
		if err := os.Mkdir(s.dir, 0o700); err != nil {
			s.remove()
			return nil, fmt.Errorf("lab: scratch directory: %w", err)
		}
		return s, nil
	}
	return nil, errors.New("lab: scratch directory: no free name after 10 tries")
}

// tagLen is the length of a run's tag: 6 random bytes in hex.
const tagLen = 12

// isTag says whether s could be a run's tag. Nothing else is swept, and a name someone else put
// under the scratch directory never reaches a broker or a database as part of a command.
func isTag(s string) bool {
	if len(s) != tagLen {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// sameFile says whether f is still the file at path.
func sameFile(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// remove deletes the run's directory, then its lock file, and lets go of the lock last, so that
// a sweep never sees a free lock beside a directory still in use.
func (s *scratch) remove() {
	os.RemoveAll(s.dir)
	os.Remove(s.lockPath)
	s.lock.Close()
}

// ScratchDir is a site's one directory for lab scratch: "lab" under its data directory, which is
// the site's own (a volume in Docker), rather than the machine's shared temporary directory. The
// server's runs and "site lab" both keep their files there, so each sweeps what the other's killed
// runs left.
func ScratchDir(dataDir string) string { return filepath.Join(dataDir, "lab") }

// Sweep removes, under root, every run directory whose run is gone (its lock free, or no lock
// at all), and what each such run made on the shared broker at natsURL and in the Postgres
// database at sinkURL, when those are set: a run killed mid-way leaves its stream and schema
// there as it leaves its directory here. It answers how many runs it cleared. A run still alive,
// in this process or any other, is never touched. A dead run whose stream or schema could not
// be removed keeps its lock file, so that the next sweep tries again.
func Sweep(ctx context.Context, root, natsURL, sinkURL string) (int, error) {
	if root == "" {
		root = os.TempDir()
	}
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("lab: sweep: %w", err)
	}
	tags := map[string]bool{}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), scratchPrefix)
		if tag := strings.TrimSuffix(rest, lockSuffix); ok && isTag(tag) {
			tags[tag] = true
		}
	}
	cleared := 0
	var errs []error
	for tag := range tags {
		s := &scratch{dir: filepath.Join(root, scratchPrefix+tag), lockPath: filepath.Join(root, scratchPrefix+tag+lockSuffix), tag: tag}
		f, err := os.OpenFile(s.lockPath, os.O_RDWR, 0)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// No lock: a run makes its lock before its directory and removes it after, so this
			// directory is left from one that is gone.
		case err != nil:
			errs = append(errs, fmt.Errorf("lab: sweep %s: %w", tag, err))
			continue
		default:
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
				f.Close() // held: the run is alive
				continue
			}
			s.lock = f
		}
		if err := dropRemote(ctx, tag, natsURL, sinkURL); err != nil {
			errs = append(errs, fmt.Errorf("lab: sweep %s: %w", tag, err))
			if s.lock != nil {
				s.lock.Close()
			}
			continue
		}
		os.RemoveAll(s.dir)
		if s.lock != nil {
			os.Remove(s.lockPath)
			s.lock.Close()
		}
		cleared++
	}
	return cleared, errors.Join(errs...)
}

// dropRemote deletes a gone run's stream from a shared NATS server and its schema from a
// Postgres sink; either may never have been made, which is no error.
func dropRemote(ctx context.Context, tag, natsURL, sinkURL string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if natsURL != "" {
		nc, err := nats.Connect(natsURL, nats.Name("lab-sweep"), nats.Timeout(5*time.Second))
		if err != nil {
			return fmt.Errorf("broker: %w", err)
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			return fmt.Errorf("broker: %w", err)
		}
		for _, name := range []string{streamName(tag), eventStreamName(tag)} {
			if err := js.DeleteStream(ctx, name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
				return fmt.Errorf("broker: delete stream %s: %w", name, err)
			}
		}
	}
	if sinkURL != "" {
		db, err := sql.Open("pgx", sinkURL)
		if err != nil {
			return fmt.Errorf("sink: %w", err)
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+schemaName(tag)+` CASCADE`); err != nil {
			return fmt.Errorf("sink: drop schema %s: %w", schemaName(tag), err)
		}
	}
	return nil
}
