// Package pgtest gives tests the throwaway Postgres database that scripts/test-postgres.sh starts
// for make test (and a cluster of a test's own, to stop and start), under one rule for every package that needs it: without the database a test is
// skipped, loudly, on a developer's machine, and fails in CI, where it must run.
package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// URL returns the database TEST_DATABASE_URL names. Without one it skips t, printing what is not
// tested (what, such as "the Postgres store") where a skip in the middle of a long run is still
// seen, or fails t when CI=true.
func URL(t testing.TB, what string) string {
	t.Helper()
	url := os.Getenv("TEST_DATABASE_URL")
	if url == "" {
		msg := "TEST_DATABASE_URL is not set: " + what + " is NOT tested (run make test)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI must run it")
		}
		fmt.Fprintln(os.Stderr, "!!!", msg)
		t.Skip(msg)
	}
	return url
}

// Cluster is a Postgres cluster of a test's own, for tests that stop and restart the database (an
// outage) without disturbing the shared one of scripts/test-postgres.sh: Debian's postgresql
// binaries, a data directory and a unix socket in a temporary directory, no TCP, trust login,
// removed when the test ends.
type Cluster struct {
	// URL reaches the cluster's postgres database as the postgres user.
	URL  string
	bin  string
	dir  string
	log  string
	opts string // the server's options: its socket, its port
	t    testing.TB
}

// NewCluster starts a cluster for t. Without the binaries it skips t loudly, or fails it in CI,
// as URL does.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		msg := "no postgresql binaries under /usr/lib/postgresql: the database outage tests are NOT run (install Debian's postgresql)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI must run them")
		}
		fmt.Fprintln(os.Stderr, "!!!", msg)
		t.Skip(msg)
	}
	sort.Strings(bins)
	// A directory of its own under /tmp rather than t.TempDir(): initdb refuses to run as root, so
	// root hands the cluster to the postgres user, who must be able to reach the directory.
	dir, err := os.MkdirTemp("", "eo-pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{bin: filepath.Dir(bins[len(bins)-1]), dir: dir, log: filepath.Join(dir, "server.log"), t: t}
	if os.Geteuid() == 0 {
		c.run("chown", "postgres", dir)
	}
	t.Cleanup(func() {
		c.pgctl("-m", "immediate", "stop")
		os.RemoveAll(dir)
	})
	c.run(filepath.Join(c.bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	port := 20000 + os.Getpid()%20000
	c.URL = fmt.Sprintf("postgres://postgres@/postgres?host=%s&port=%d&sslmode=disable", dir, port)
	c.opts = fmt.Sprintf("-c listen_addresses='' -k %s -p %d -c fsync=off -c full_page_writes=off", dir, port)
	c.Start()
	return c
}

// Start starts the cluster (again) and returns once it accepts connections.
func (c *Cluster) Start() {
	c.t.Helper()
	c.pgctl("-l", c.log, "-w", "-t", "60", "-o", c.opts, "start")
}

// Stop stops the cluster the way an operator's restart does (fast: every session is told
// "terminating connection due to administrator command", SQLSTATE 57P01) and returns once it is
// down; until Start, every connection attempt fails.
func (c *Cluster) Stop() {
	c.t.Helper()
	c.pgctl("-m", "fast", "-w", "stop")
}

func (c *Cluster) pgctl(args ...string) {
	c.t.Helper()
	c.run(filepath.Join(c.bin, "pg_ctl"), append([]string{"-D", filepath.Join(c.dir, "data")}, args...)...)
}

// run runs a command as the cluster's owner (postgres when the test runs as root).
func (c *Cluster) run(name string, args ...string) {
	c.t.Helper()
	cmd := exec.Command(name, args...)
	if os.Geteuid() == 0 && name != "chown" {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(c.log)
		c.t.Fatalf("%s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, out, log)
	}
}
