package site

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
)

// spreadFor returns the spread of n seeds of e on p, from the cache of summaries when it can, or
// run now under ctx: the API's request waits for it, and a client that goes away cancels it.
func (s *server) spreadFor(ctx context.Context, e *experiments.Experiment, p any, n int) (experiments.SpreadResult, error) {
	key := spreadKey(e, p, n)
	if res, ok := s.spreads.cached(key); ok {
		return res, nil
	}
	res, err := s.spreadNow(ctx, e, p, n, nil)
	if err != nil {
		return res, err
	}
	s.spreads.remember(key, res)
	return res, nil
}

// pageSpread reads a page block's spread field once its parameters parsed: a refusal comes back as
// the field's error, and a summary already computed is put on r for the block to draw. A block
// that offers no spread (pages.PageSpreads: the verifier's) reads none.
func (s *server) pageSpread(r *pages.Run) *experiments.FieldError {
	if !pages.PageSpreads(r.Experiment) { // no field on the block, so a spread in the URL is ignored
		return nil
	}
	n, fe := r.Experiment.ParseSpread(r.Params, r.SpreadRaw)
	if fe != nil {
		return fe
	}
	r.SpreadN = n
	if n > 0 {
		if res, ok := s.spreads.cached(spreadKey(r.Experiment, r.Params, n)); ok {
			r.Spread = &res
		}
	}
	return nil
}

// spreadProgress starts the spread a block asks for and has not got yet (or finds it running),
// and puts its progress box in the block beside the form's own run.
func (s *server) spreadProgress(ctx context.Context, v *pages.ExperimentView, r pages.Run) {
	if r.SpreadN == 0 || r.Spread != nil || r.Result == nil {
		return
	}
	key := spreadKey(r.Experiment, r.Params, r.SpreadN)
	if _, ok := s.spreads.cached(key); ok { // finished since pageSpread looked
		v.Progress = &pages.SpreadProgress{Finished: true, N: r.SpreadN, Block: v.DOMID, ReloadURL: v.Permalink}
		return
	}
	j, err := s.startSpread(ctx, r.Experiment, r.Params, r.SpreadN, key, r.Prefix+experiments.SpreadField, v.Permalink, v.DOMID)
	if err != nil {
		msg := "The spread over seeds could not start; the block shows the form's own run."
		var he *web.Error
		if web.As(err, &he) {
			msg = he.Msg
			if he.RetryAfter > 0 {
				msg += " " + waitText(he.RetryAfter)
			}
		}
		v.Progress = &pages.SpreadProgress{Note: msg}
		return
	}
	p := snapshot(j, s.cfg.BasePath)
	v.Progress = &p
}

// cliSpread implements "site run EXPERIMENT -spread N [-param value ...] [-format ...]": the
// spread over N seeds on every core, as JSON, as CSV after the form's own run, or as a table.
func cliSpread(ctx context.Context, e *experiments.Experiment, raw map[string][]string, format string, stdout io.Writer) error {
	p, err := e.Parse(raw, "format", experiments.SpreadField)
	if err != nil {
		return cliFieldErrors(e.Name, err)
	}
	n, fe := e.SpreadQuery(p, raw)
	if fe != nil {
		return cliFieldErrors(e.Name, experiments.FieldErrors{*fe})
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
		return enc.Encode(pages.SpreadJSON(e, p, res, sp))
	case "csv":
		csv, err := pages.SpreadCSV(e, p, res, sp)
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, csv)
		return err
	}
	prov := pages.SpreadProvenanceOf(e, p, n)
	_, err = fmt.Fprintf(stdout, "%s\nnotebook %s · parameters %s over %d seeds\n", pages.SpreadTable(e.Name, sp).Text(), prov.Version, prov.ParamsHash, n)
	return err
}
