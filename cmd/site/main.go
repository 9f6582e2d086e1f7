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
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"effectivelyonce/lab"
	"effectivelyonce/workbench"
)

// main stops gracefully on the first SIGINT or SIGTERM (the context ends); once that has begun, the
// signals are given back to the default action, so a second one ends the process at once.
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if err != errSilent {
			fmt.Fprintln(os.Stderr, "site:", err)
		}
		os.Exit(1)
	}
}

// errSilent is returned when the failure has already been reported in full (a failing verify).
var errSilent = fmt.Errorf("failed")

// run dispatches to a subcommand. Every dependency comes in as an argument so tests can drive the
// whole program in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
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
