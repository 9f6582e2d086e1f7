// Command site serves the Effectively Once notebook, and runs its experiments from the command line:
//
//	site [serve] [-addr HOST:PORT]   serve the notebook (default 127.0.0.1:8080, env ADDR)
//	site run EXPERIMENT [-param value ...] [-format json|csv|table]
//	site verify [-param value ...]   re-derive every claim; exit 1 if any fails
//	site list                        list experiments and their parameters
//	site healthcheck                 ask a running server for /healthz (for container health checks)
//	site lab [-designs all] [-jobs N] [-workers W] [-crash_rate R] [-seed S] [-format table|json]
//	                                 run the designs on a real broker, database and worker processes
//	site check handler.star [-param value ...] [-format table|json|csv]
//	                                 crash a handler at every step; exit 1 if a crash point breaks it
package main

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
	"effectivelyonce/internal/site"
	"effectivelyonce/lab"
	"effectivelyonce/workbench"
)

// main runs one command; the first SIGINT or SIGTERM stops it gracefully (see serve), a second
// one kills it at once, since the signal is then no longer caught.
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, cli.ErrSilent) {
			fmt.Fprintln(os.Stderr, "site:", err)
		}
		os.Exit(1)
	}
}

// run runs one command of the site binary: args[0] is the program, args[1] the command (serve
// when it is absent or a flag).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd, rest := "serve", args[1:]
	if len(rest) > 0 && len(rest[0]) > 0 && rest[0][0] != '-' {
		cmd, rest = rest[0], rest[1:]
	}
	switch cmd {
	case "serve":
		cfg, err := site.LoadConfig(rest, getenv, stderr)
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
		cfg, err := site.LoadConfig(rest, getenv, stderr)
		if err != nil {
			return err
		}
		return cli.Healthcheck(ctx, cfg.Addr, cfg.BasePath)
	case "lab":
		return cli.Lab(ctx, rest, getenv, stdout, stderr, children)
	case "lab-worker": // one of a lab run's worker processes; started by the lab, not by people
		return lab.WorkerMain(ctx, getenv)
	case "check":
		return cli.Check(ctx, rest, stdout, children.Check)
	case workbench.ChildCommand: // one check's child process; started by the workbench, not by people
		return workbench.ChildMain(ctx, os.Stdin, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

// children are the processes the site starts, the server and the command line alike: its own
// binary as `site lab-worker` (a lab run's worker) and as `site workbench-check` (the sandbox of a
// check, the hidden subcommand that runs workbench.ChildMain).
var children = cli.Children{LabWorker: self("lab-worker"), Check: self(workbench.ChildCommand)}

// self starts this binary as the command named: the real site's own processes are the same
// binary under another command.
func self(command string) func(context.Context) *exec.Cmd {
	return func(ctx context.Context) *exec.Cmd {
		exe, err := os.Executable()
		if err != nil {
			exe = os.Args[0]
		}
		return exec.CommandContext(ctx, exe, command)
	}
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
