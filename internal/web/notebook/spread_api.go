package notebook

import (
	"context"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
)

// spreadFor returns the spread of n seeds of e on p, from the cache of summaries when it can, or
// run now under ctx: the API's request waits for it, and a client that goes away cancels it.
func (h *Handlers) spreadFor(ctx context.Context, e *experiments.Experiment, p any, n int) (experiments.SpreadResult, error) {
	key := spreadKey(e, p, n)
	if res, ok := h.spreads.cached(key); ok {
		return res, nil
	}
	res, err := h.spreadNow(ctx, e, p, n, nil)
	if err != nil {
		return res, err
	}
	h.spreads.remember(key, res)
	return res, nil
}

// pageSpread reads a page block's spread field once its parameters parsed: a refusal comes back as
// the field's error, and a summary already computed is put on r for the block to draw. A block
// that offers no spread (pages.PageSpreads: the verifier's) reads none.
func (h *Handlers) pageSpread(r *pages.Run) *experiments.FieldError {
	if !pages.PageSpreads(r.Experiment) { // no field on the block, so a spread in the URL is ignored
		return nil
	}
	n, fe := r.Experiment.ParseSpread(r.Params, r.SpreadRaw)
	if fe != nil {
		return fe
	}
	r.SpreadN = n
	if n > 0 {
		if res, ok := h.spreads.cached(spreadKey(r.Experiment, r.Params, n)); ok {
			r.Spread = &res
		}
	}
	return nil
}

// spreadProgress starts the spread run r's block on the page at pagePath asks for and has not got
// yet (or finds it running), and answers the progress box the block shows beside the form's own
// run; nil when the block asks for no spread, or has it already.
func (h *Handlers) spreadProgress(ctx context.Context, site pages.Site, pagePath string, r pages.Run, all []pages.Run) *pages.SpreadProgress {
	if r.SpreadN == 0 || r.Spread != nil || r.Result == nil {
		return nil
	}
	block, back := pages.DOMID(r.Experiment.Name), pages.Permalink(site, pagePath, r, all)
	key := spreadKey(r.Experiment, r.Params, r.SpreadN)
	if _, ok := h.spreads.cached(key); ok { // finished since pageSpread looked
		return &pages.SpreadProgress{Finished: true, N: r.SpreadN, Block: block, ReloadURL: back}
	}
	j, err := h.startSpread(ctx, r.Experiment, r.Params, r.SpreadN, key, r.Prefix+experiments.SpreadField, back, block)
	if err != nil {
		msg := "The spread over seeds could not start; the block shows the form's own run."
		var he *web.Error
		if web.As(err, &he) {
			msg = he.Msg
			if he.RetryAfter > 0 {
				msg += " " + waitText(he.RetryAfter)
			}
		}
		return &pages.SpreadProgress{Note: msg}
	}
	p := snapshot(j, h.base)
	return &p
}
