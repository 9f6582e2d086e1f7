package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"effectivelyonce/internal/cli"
	"effectivelyonce/lab"
	"effectivelyonce/workbench"
)

// Main is the site binary: the first SIGINT or SIGTERM stops it gracefully (see serve), a second
// one kills it at once, since the signal is then no longer caught.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	err := Run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, cli.ErrSilent) {
			fmt.Fprintln(os.Stderr, "site:", err)
		}
		os.Exit(1)
	}
}

// Run runs one command of the site binary: args[0] is the program, args[1] the command (serve
// when it is absent or a flag). Every dependency comes in as an argument so tests can drive the
// whole program in-process. A failure the command has already told (cli.ErrSilent) exits 1 quietly.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd, rest := "serve", args[1:]
	if len(rest) > 0 && len(rest[0]) > 0 && rest[0][0] != '-' {
		cmd, rest = rest[0], rest[1:]
	}
	switch cmd {
	case "serve":
		cfg, err := loadConfig(rest, getenv, stderr)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, stdout)
	case "run":
		return cli.Run(ctx, rest, stdout)
	case "verify":
		return cli.Verify(ctx, rest, stdout)
	case "list":
		return cli.List(stdout)
	case "healthcheck":
		cfg, err := loadConfig(rest, getenv, stderr)
		if err != nil {
			return err
		}
		return cli.Healthcheck(ctx, cfg.Addr, cfg.BasePath)
	case "lab":
		return cli.Lab(ctx, rest, getenv, stdout, stderr, cli.Children{LabWorker: siteLabWorker, Check: siteWorkbenchChild})
	case "lab-worker": // one of a lab run's worker processes; started by the lab, not by people
		return lab.WorkerMain(ctx, getenv)
	case "check":
		return cli.Check(ctx, rest, stdout, siteWorkbenchChild)
	case workbench.ChildCommand: // one check's child process; started by the workbench, not by people
		return workbench.ChildMain(ctx, os.Stdin, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

// siteWorkbenchChild is the child process of a check: the site's own binary as `site
// workbench-check`, the hidden subcommand that runs workbench.ChildMain. The server's checks and
// the command line's (site check, site lab -handler) start it.
func siteWorkbenchChild(ctx context.Context) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.CommandContext(ctx, exe, workbench.ChildCommand)
}

const usage = `usage:
  site [serve] [-addr HOST:PORT] [-base-path /sub]   serve the notebook
  site run EXPERIMENT [-param value ...] [-format json|csv|table]
  site verify [-param value ...]                      re-derive the nine claims
  site list                                           experiments and parameters
  site healthcheck                                    probe a running server
  site lab [-designs all|LIST] [-jobs N] [-workers W] [-crash_rate R] [-seed S] [-format table|json]
                                                      the designs on a real broker, database and
                                                      worker processes, beside the model's counts
  site check handler.star|template:NAME [-param value ...] [-format table|json|csv]
                                                      crash a handler at every step of the model
                                                      world; exit 1 when a crash point breaks it
`
