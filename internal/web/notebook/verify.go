package notebook

import (
	"context"
	"strconv"
	"sync"

	"effectivelyonce/experiments"
	"effectivelyonce/pages"
)

// shrunk finds, for the verifier's block when claims failed on the reader's parameters, the
// smallest failing case of each, for the block to draw under its table: the searches run within
// the request, one per failed claim side by side, each bounded by experiments.ShrinkBudget and
// stopped with ctx when the reader leaves. Nil for every other block, and for a verifier whose
// claims all hold.
func (h *Handlers) shrunk(ctx context.Context, site pages.Site, pagePath string, r pages.Run) []pages.ShrinkView {
	e := r.Experiment
	searches := e.Shrinks(r.Params, r.Result)
	if len(searches) == 0 {
		return nil
	}
	// One run slot holds the searches, with the memory of one run per search, so a page of
	// failing claims waits its turn like any other run instead of stepping past the limits.
	var views []pages.ShrinkView
	err := h.runner.Within(ctx, e.Name+"-shrink", e.Cost(r.Params), e.Memory(r.Params)*int64(len(searches)), func(ctx context.Context) error {
		views = pages.NewShrinkViews(site, e, pagePath, pages.DOMID(e.Name), shrinkEach(ctx, searches),
			func(sh experiments.Shrunk) *pages.JobView { return h.culpritTrace(ctx, e, sh) })
		return nil
	})
	if err != nil {
		if ctx.Err() == nil {
			h.log.Warn("shrink not run", "err", err)
		}
		return nil
	}
	return views
}

// culpritTrace traces the first culprit of a failing case of the verifier v, the job that breaks
// the claim, in the run its link opens (v.CulpritRun), so the timeline drawn in the case and the one the link
// shows are one and the same. The shrunk stream is short, so the replay is cheap and runs in the
// search's own slot; anything that cannot be traced leaves the case without a timeline.
func (h *Handlers) culpritTrace(ctx context.Context, v *experiments.Experiment, sh experiments.Shrunk) *pages.JobView {
	name, q, ok := v.CulpritRun(sh)
	if !ok || len(sh.Culprits) == 0 {
		return nil
	}
	e, ok := experiments.Lookup(name)
	if !ok {
		return nil
	}
	jq, err := readJobsQuery(e, q, false)
	if err != nil {
		return nil
	}
	id := strconv.FormatInt(sh.Culprits[0], 10)
	tr, err := e.Trace(ctx, jq.params, jq.point, id, jq.outcome)
	if err != nil {
		if ctx.Err() == nil {
			h.log.Warn("culprit not traced", "experiment", e.Name, "job", id, "err", err)
		}
		return nil
	}
	jv := pages.NewJobView(e, tr)
	jv.JSONURL = h.jobsURL("/api/experiments/"+e.Name+"/jobs/"+jv.ID, jq, "point", tr.Point, "outcome", jq.outcome)
	return &jv
}

// shrinkEach runs every search of the failed claims at once (each bounded by
// experiments.ShrinkBudget); the results are in the claims' order.
func shrinkEach(ctx context.Context, searches []func(context.Context) experiments.Shrunk) []experiments.Shrunk {
	out := make([]experiments.Shrunk, len(searches))
	var wg sync.WaitGroup
	for i, search := range searches {
		wg.Go(func() { out[i] = search(ctx) })
	}
	wg.Wait()
	return out
}
