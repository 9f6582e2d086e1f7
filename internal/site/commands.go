package site

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

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
		if err != ErrSilent {
			fmt.Fprintln(os.Stderr, "site:", err)
		}
		os.Exit(1)
	}
}

// ErrSilent is a failure already told on stdout or stderr: main exits 1 without saying more.
var ErrSilent = fmt.Errorf("failed")

// run dispatches to a subcommand. Every dependency comes in as an argument so tests can drive the
// whole program in-process.
// Run runs one command of the site binary: args[0] is the program, args[1] the command (serve
// when it is absent or a flag).
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
		return cliRun(ctx, rest, stdout)
	case "verify":
		return cliVerify(ctx, rest, stdout)
	case "list":
		return cliList(stdout)
	case "healthcheck":
		cfg, err := loadConfig(rest, getenv, stderr)
		if err != nil {
			return err
		}
		return healthcheck(ctx, cfg)
	case "lab":
		return cliLab(ctx, rest, getenv, stdout, stderr)
	case "lab-worker": // one of a lab run's worker processes; started by the lab, not by people
		return lab.WorkerMain(ctx, getenv)
	case "check":
		return cliCheck(ctx, rest, stdout, siteWorkbenchChild)
	case workbench.ChildCommand: // one check's child process; started by the workbench, not by people
		return workbench.ChildMain(ctx, os.Stdin, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
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
