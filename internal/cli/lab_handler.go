package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"effectivelyonce/experiments"
	"effectivelyonce/lab"
	"effectivelyonce/workbench"
)

// labHandler reads the handler of "site lab -handler FILE.star" and checks it in the workbench's
// sandbox, as "site check" does, before any worker starts: a handler the workbench refuses is
// refused here in the same words, and the check's counts at the crash point are the run's model.
// A reader's handler never runs in this process.
func labHandler(ctx context.Context, child func(context.Context) *exec.Cmd, p lab.Params, name string, point int, again bool, window int64) (*lab.HandlerConfig, error) {
	src, err := handlerSource(name)
	if err != nil {
		return nil, fmt.Errorf("lab: -handler: %w", err)
	}
	hc := &lab.HandlerConfig{Source: src, CrashPoint: point, CrashAgain: again, KeyWindow: window}
	p.Designs, p.Handler = []lab.Design{lab.DesignHandler}, hc
	cfg := p.Config(lab.DesignHandler)
	// The handler's own values; the command that starts workers is the runner's to give.
	var bad *lab.FieldError
	if err := cfg.Validate(); errors.As(err, &bad) && bad.Field != "command" {
		return nil, fmt.Errorf("lab: -%s: %s", bad.Field, bad.Msg)
	}
	res, err := workbench.Sandbox{Command: child}.Check(ctx, src, cfg.CheckParams())
	var ce *workbench.CodeError
	var fe experiments.FieldErrors
	switch {
	case errors.As(err, &ce):
		return nil, errors.New("lab: " + codeAt(name, ce))
	case errors.As(err, &fe):
		var all []error
		for _, f := range fe {
			all = append(all, fmt.Errorf("lab: -%s: %s", f.Field, f.Message))
		}
		return nil, errors.Join(all...)
	case err != nil:
		return nil, fmt.Errorf("lab: %w", err)
	}
	hc.Model = &res
	// The model replayed at the run's own redeliveries, after it: in the sandbox too.
	hc.Check = workbench.Sandbox{Command: child}.CheckReplay
	return hc, nil
}

// labHandlerSettings is the first line of a handler run's table: what ran, where it died.
func labHandlerSettings(p lab.Params, name string, results []lab.Result) string {
	s := fmt.Sprintf("The handler %s", name)
	if len(results) == 1 && results[0].Handler != nil {
		h := results[0].Handler
		s += fmt.Sprintf(" at crash point %d (%s)", h.CrashPoint, h.Label)
	}
	s += fmt.Sprintf(", on %s jobs with %d worker processes; crash rate %s, stream seed %d",
		experiments.Thousands(p.Jobs), p.Workers, experiments.FormatFloat(p.CrashRate), p.Seed)
	if p.Handler != nil && p.Handler.CrashAgain {
		s += "; the redelivery dies again"
	}
	if p.Handler != nil && p.Handler.KeyWindow > 0 {
		s += fmt.Sprintf("; a key window of %s", experiments.Thousands(p.Handler.KeyWindow))
	}
	return s
}

// labHandlerNotes says, below a handler's table, which delays its model used, the deliveries
// killed where they are not the workers killed, and the tolerance and what it covers.
func labHandlerNotes(w io.Writer, results []lab.Result) {
	for _, r := range results {
		h := r.Handler
		if h == nil {
			continue
		}
		fmt.Fprintln(w)
		switch {
		case h.Replayed:
			fmt.Fprintf(w, "model: the workbench's check replayed at the delays the lab measured (each redelivery where the broker handed it out)")
			if d := h.Drawn; d != nil {
				fmt.Fprintf(w, "; at its own drawn delays it said lost %d, duplicated %d", d.Lost, d.Duplicated)
			}
			fmt.Fprintln(w)
		case h.LeaseTime:
			fmt.Fprintln(w, "model: the workbench's check; the handler calls work(), so a lapsed lease redelivers in both")
		}
		fmt.Fprintf(w, "killed at the crash point: %d deliveries (model %d), %d worker processes\n", r.KilledDeliveries, h.ModelCrashed, r.WorkersKilled)
		if tol, why := r.Tolerated(); tol > 0 {
			fmt.Fprintf(w, "tolerance: %d %s", tol-r.DiedWithWorker-r.SlowAcks, why)
			if r.SlowAcks > 0 {
				fmt.Fprintf(w, ", %d deliveries acked past their lease by a machine slower than the model", r.SlowAcks)
			}
			if r.DiedWithWorker > 0 {
				fmt.Fprintf(w, ", and %d deliveries that died with their worker", r.DiedWithWorker)
			}
			fmt.Fprintln(w)
		}
	}
}

// labHandlerEvents states a publishing handler's event counts, real beside the model's, below
// the table.
func labHandlerEvents(w io.Writer, results []lab.Result) {
	for _, r := range results {
		if r.Handler == nil || r.Handler.Events == nil || r.Handler.ModelEvents == nil {
			continue
		}
		e, m := *r.Handler.Events, *r.Handler.ModelEvents
		fmt.Fprintf(w, "\nevents: lost %d (model %d), phantom %d (model %d), duplicated %d (model %d)\n",
			e.Lost, m.Lost, e.Phantom, m.Phantom, e.Duplicated, m.Duplicated)
	}
}
