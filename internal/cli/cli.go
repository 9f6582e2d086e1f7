// Package cli is the site binary's command line: site run, verify, list, lab, check and
// healthcheck. It runs the same experiments, presentation, lab and workbench as the server, in
// this process or in the child processes the binary starts, and knows nothing of HTTP handlers:
// internal/site's dispatch calls it with the processes only the binary knows how to start.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/present"
)

// Children make the processes the command line starts: the site binary's own hidden commands,
// which only its dispatch knows how to start (tests start their test binary). They are
// runs.Children, which the server's assembly takes too without importing the command line.
type Children = runs.Children

// ErrSilent is a failure already told on stdout or stderr (a FAIL line, a breaking handler, a lab
// run that differs from its model): the binary exits 1 without saying more.
var ErrSilent = errors.New("failed")

// readFlags reads "-name value" and "-name=value" pairs into a query-like map, the same shape the
// API parses, so the command line and the web refuse the same values with the same messages.
func readFlags(args []string) (map[string][]string, error) {
	raw := map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return nil, fmt.Errorf("unexpected argument %q: parameters are -name value", a)
		}
		name := strings.TrimLeft(a, "-")
		if k, v, ok := strings.Cut(name, "="); ok {
			raw[k] = append(raw[k], v)
			continue
		}
		if i+1 >= len(args) {
			return nil, fmt.Errorf("-%s needs a value", name)
		}
		raw[name] = append(raw[name], args[i+1])
		i++
	}
	return raw, nil
}

// Run implements "site run EXPERIMENT [-param value ...] [-format json|csv|table]"; args are what
// follows "run".
func Run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("run: name an experiment; site list shows them")
	}
	e, ok := experiments.Lookup(args[0])
	if !ok {
		return fmt.Errorf("run: no experiment %q; site list shows them", args[0])
	}
	raw, err := readFlags(args[1:])
	if err != nil {
		return fmt.Errorf("run %s: %w", e.Name, err)
	}
	if traceAsked(raw) {
		return trace(ctx, e, raw, stdout)
	}
	format := "table"
	if v, ok := raw["format"]; ok {
		if len(v) != 1 || (v[0] != "json" && v[0] != "csv" && v[0] != "table") {
			return fmt.Errorf("run %s: -format must be json, csv or table", e.Name)
		}
		format = v[0]
	}
	if _, ok := raw[experiments.SpreadField]; ok {
		return spread(ctx, e, raw, format, stdout)
	}
	p, err := e.Parse(raw, "format")
	if err != nil {
		return fieldErrors(e.Name, err)
	}
	res, err := e.Run(ctx, p)
	if err != nil {
		return fmt.Errorf("experiment %q: %w", e.Name, err)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(present.RunJSON(e, p, res))
	case "csv":
		csv, err := present.CSVOf(e, p, res)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, csv)
		return err
	}
	pr, err := present.PresenterOf(e)
	if err != nil {
		return err
	}
	tables, err := pr.Tables(p, res)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if _, err := io.WriteString(stdout, t.Text()+"\n"); err != nil {
			return err
		}
	}
	prov := present.ProvenanceOf(e, p)
	_, err = fmt.Fprintf(stdout, "notebook %s · parameters %s\n", prov.Version, prov.ParamsHash)
	return err
}

// fieldErrors puts every refused parameter on a line of its own, named as its flag.
func fieldErrors(name string, err error) error {
	var fe experiments.FieldErrors
	if errors.As(err, &fe) {
		var b strings.Builder
		for _, f := range fe {
			fmt.Fprintf(&b, "\n  -%s: %s", f.Field, f.Message)
		}
		return fmt.Errorf("%s: invalid parameters:%s", name, b.String())
	}
	return err
}

// List implements "site list": every experiment with its parameters, defaults and ranges.
func List(stdout io.Writer) error {
	for _, e := range experiments.All() {
		fmt.Fprintf(stdout, "%s — %s\n", e.Name, e.Title)
		d := e.Format(e.Defaults())
		for _, f := range e.Fields {
			fmt.Fprintf(stdout, "  -%-18s %s (default %s; %s)\n", f.Name, f.Label, d[f.Name], f.Range())
		}
	}
	return nil
}
