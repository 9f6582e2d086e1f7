package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// spread implements "site run EXPERIMENT -spread N [-param value ...] [-format ...]": the spread
// over N seeds on every core, as JSON, as CSV after the form's own run, or as a table.
func spread(ctx context.Context, e *experiments.Experiment, raw map[string][]string, format string, stdout io.Writer) error {
	p, err := e.Parse(raw, "format", experiments.SpreadField)
	if err != nil {
		return fieldErrors(e.Name, err)
	}
	n, fe := e.SpreadQuery(p, raw)
	if fe != nil {
		return fieldErrors(e.Name, experiments.FieldErrors{*fe})
	}
	res, err := e.Run(ctx, p)
	if err != nil {
		return fmt.Errorf("experiment %q: %w", e.Name, err)
	}
	sp, err := e.Spread(ctx, p, experiments.SpreadOptions{N: n, Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return fmt.Errorf("experiment %q over %d seeds: %w", e.Name, n, err)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(present.SpreadJSON(e, p, res, sp))
	case "csv":
		csv, err := present.SpreadCSV(e, p, res, sp)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, csv)
		return err
	}
	prov := present.SpreadProvenanceOf(e, p, n)
	_, err = fmt.Fprintf(stdout, "%s\nnotebook %s · parameters %s over %d seeds\n", present.SpreadTable(e.Name, sp).Text(), prov.Version, prov.ParamsHash, n)
	return err
}
