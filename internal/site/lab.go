package site

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"

	"effectivelyonce/internal/web"
	"effectivelyonce/internal/web/labweb"
	"effectivelyonce/lab"
)

// siteLabWorker is the worker process of the real site: its own binary as `site lab-worker`.
func siteLabWorker(ctx context.Context) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.CommandContext(ctx, exe, "lab-worker")
}

// labScratchDir is the site's one directory for lab scratch: under its data directory, which is
// the site's own (a volume in Docker), rather than the machine's shared temporary directory.
func labScratchDir(dataDir string) string { return filepath.Join(dataDir, "lab") }

// newLabRunner is the server's one runner of lab runs, from the configuration: a reader's run is
// cancelled when nobody has watched it for labweb.Unwatched.
func newLabRunner(cfg config, log *slog.Logger) *labweb.Runner {
	r := &labweb.Runner{Command: siteLabWorker, NATSURL: cfg.LabNATSURL, SinkURL: cfg.DatabaseURL, Log: log,
		ScratchDir: labScratchDir(cfg.DataDir), Deadline: lab.DefaultDeadline, PerHour: cfg.LabRunsPerHour}
	r.SetUnwatched(labweb.Unwatched)
	if cfg.LabRunsPerHour > 0 {
		r.Starts = web.NewRateLimiter(float64(cfg.LabRunsPerHour)/3600, cfg.LabRunsPerHour, cfg.RateClients)
	}
	return r
}
