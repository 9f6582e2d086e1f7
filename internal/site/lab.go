package site

import (
	"context"
	"log/slog"
	"os/exec"

	"effectivelyonce/internal/web"
	"effectivelyonce/internal/web/labweb"
	"effectivelyonce/lab"
)

// newLabRunner is the server's one runner of lab runs, from the configuration, with worker the
// command that starts one worker process and check the workbench check's child, in which a
// reader's handler's model is replayed after its run: a reader's run is cancelled when nobody
// has watched it for labweb.Unwatched.
func newLabRunner(cfg Config, log *slog.Logger, worker, check func(context.Context) *exec.Cmd) *labweb.Runner {
	r := &labweb.Runner{Command: worker, Check: check, NATSURL: cfg.LabNATSURL, SinkURL: cfg.DatabaseURL, Log: log,
		ScratchDir: lab.ScratchDir(cfg.DataDir), Deadline: lab.DefaultDeadline, PerHour: cfg.LabRunsPerHour}
	r.SetUnwatched(labweb.Unwatched)
	if cfg.LabRunsPerHour > 0 {
		r.Starts = web.NewRateLimiter(float64(cfg.LabRunsPerHour)/3600, cfg.LabRunsPerHour, cfg.RateClients)
	}
	return r
}
