package main

import (
	"context"
	"sync"

	"effectivelyonce/experiments"
	"effectivelyonce/pages"
)

// addShrunk puts under the verifier's table, when claims failed on the reader's parameters, the
// smallest failing case of each: the searches run within the request, one per failed claim side by
// side, each bounded by experiments.ShrinkBudget and stopped with ctx when the reader leaves. Every
// other block, and a verifier whose claims all hold, is left as it was.
func (s *server) addShrunk(ctx context.Context, site pages.Site, pagePath string, r pages.Run, v *pages.ExperimentView) {
	res, ok := r.Result.(experiments.ClaimsResult)
	p, okP := r.Params.(experiments.ClaimsParams)
	if !ok || !okP || res.Passed == res.Total {
		return
	}
	var failed []experiments.Claim
	for _, c := range res.Claims {
		if !c.Holds {
			failed = append(failed, c)
		}
	}
	// One run slot holds the searches, with the memory of one run per search, so a page of
	// failing claims waits its turn like any other run instead of stepping past the limits.
	e := r.Experiment
	shrunk := make([]experiments.Shrunk, len(failed))
	err := s.runner.within(ctx, e.Name+"-shrink", e.Cost(p), memoryOf(e, p)*int64(len(failed)), func(ctx context.Context) error {
		shrunk = shrinkEach(ctx, p, failed)
		return nil
	})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("shrink not run", "err", err)
		}
		return
	}
	v.AfterTables = pages.ShrinkCases(pages.NewShrinkViews(site, pagePath, v.DOMID, shrunk), v.NoTitle)
}

// shrinkEach shrinks every failed claim at once, each within experiments.ShrinkBudget; the results
// are in the claims' order.
func shrinkEach(ctx context.Context, p experiments.ClaimsParams, failed []experiments.Claim) []experiments.Shrunk {
	out := make([]experiments.Shrunk, len(failed))
	var wg sync.WaitGroup
	for i, c := range failed {
		wg.Go(func() { out[i] = experiments.ShrinkFrom(ctx, p, c, experiments.ShrinkBudget) })
	}
	wg.Wait()
	return out
}
