package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// traceAsked reports whether "site run" was asked about jobs rather than for the run's tables:
// -trace ID prints a job's timeline, -outcome NAME the ids with that outcome.
func traceAsked(raw map[string][]string) bool {
	_, trace := raw["trace"]
	_, outcome := raw["outcome"]
	return trace || outcome
}

// trace implements "site run EXPERIMENT -trace ID [-point X] [-outcome O]" and
// "site run EXPERIMENT -outcome O [-point X]", with the experiment's parameters as for a run.
func trace(ctx context.Context, e *experiments.Experiment, raw map[string][]string, stdout io.Writer) error {
	one := func(key string) (string, error) {
		v := raw[key]
		if len(v) > 1 {
			return "", fmt.Errorf("run %s: -%s given %d times; give it once", e.Name, key, len(v))
		}
		if len(v) == 0 {
			return "", nil
		}
		return v[0], nil
	}
	id, err := one("trace")
	if err != nil {
		return err
	}
	outcome, err := one("outcome")
	if err != nil {
		return err
	}
	point, err := one("point")
	if err != nil {
		return err
	}
	p, err := e.Parse(raw, "trace", "outcome", "point")
	if err != nil {
		return fieldErrors(e.Name, err)
	}
	if _, asked := raw["trace"]; !asked {
		list, err := e.Jobs(ctx, p, outcome, point)
		if err != nil {
			return fieldErrors(e.Name, err)
		}
		fmt.Fprintf(stdout, "%s of %s's jobs %s at point %s:\n", experiments.Thousands(list.Total), e.Name, present.OutcomeWords(list.Outcome), list.Point)
		ids := make([]string, len(list.IDs))
		for i, id := range list.IDs {
			ids[i] = strconv.FormatInt(id, 10)
		}
		_, err = fmt.Fprintln(stdout, strings.Join(ids, " "))
		return err
	}
	tr, err := e.Trace(ctx, p, point, id, outcome)
	if err != nil {
		return fieldErrors(e.Name, err)
	}
	fmt.Fprintf(stdout, "%s job %d at %s: %s\n", e.Name, tr.ID, tr.Point, present.OutcomeWords(tr.Outcome))
	unit := present.StepName(tr.StepUnit)
	for _, ev := range tr.Events {
		fmt.Fprintf(stdout, "  %s %-8s  %-20s  %s\n", unit, present.StepText(ev.Step), ev.Kind, ev.Detail)
	}
	return nil
}
