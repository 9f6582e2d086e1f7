package notebook

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
)

// What a study room seals. While a round of a member's room that is not yet revealed asks a number
// of an experiment, every run of every experiment the member can reach is drawn without its numbers,
// whatever its parameters (the asked number sits in other experiments' runs too: Parts.Sealed): the block on every page (whole, and its htmx fragment, and the blocks
// sent beside a fragment), the discussion after it, the predictions quiz's measurement, the JSON
// and CSV of /api/experiments/NAME, and "which jobs?" (its API and its pages), whose totals are the
// counts a round asks about. The host is never sealed, nor a reader in no room (Parts.Sealed).

// sealer answers which experiments are sealed for the reader of c; nil when none is (no room, the
// host, no round asking). bar is the room bar the page drew, nil for none.
func (h *Handlers) sealer(c echo.Context, bar *pages.RoomView) func(e *experiments.Experiment) *pages.Sealed {
	if h.parts.Sealed == nil {
		return nil
	}
	return h.parts.Sealed(c, bar)
}

// sealed is how the page shows each run while the reader's study room asks about its experiment:
// the block keeps its form (so the member can still change it, and the address still says what
// was asked) but is drawn from its form alone, with the result replaced by the sealed note and its
// own address to show the result once the host has revealed it. Built from the form's fields rather
// than by clearing the result's, so that nothing a result adds to a view can reach a sealed page.
func sealed(asks func(e *experiments.Experiment) *pages.Sealed) func(v *pages.ExperimentView, r pages.Run) {
	return func(v *pages.ExperimentView, r pages.Run) {
		if asks == nil || r.Result == nil {
			return
		}
		s := asks(r.Experiment)
		if s == nil {
			return
		}
		s.Show = v.Permalink
		*v = pages.ExperimentView{Name: v.Name, Title: v.Title, NoTitle: v.NoTitle, Summary: v.Summary, DOMID: v.DOMID,
			Action: v.Action, Fields: v.Fields, Hidden: v.Hidden, Permalink: v.Permalink, ResetURL: v.ResetURL,
			Changed: v.Changed, Stream: v.Stream, StreamFrom: v.StreamFrom, Stray: v.Stray, Query: v.Query,
			OutOfBand: v.OutOfBand, Version: v.Version, ParamsHash: v.ParamsHash, Sealed: s}
	}
}

// sealedQuiz leaves out the measurement of each prediction question an experiment sealed for the
// reader answers: the quiz's data-measured would otherwise say it.
func sealedQuiz(qs []pages.Question, asks func(e *experiments.Experiment) *pages.Sealed) {
	if asks == nil {
		return
	}
	for i := range qs {
		if e, ok := experiments.Answering(qs[i].ID); ok && asks(e) != nil {
			qs[i].Measured, qs[i].IsMeasured = 0, false
		}
	}
}

// sealedAPI refuses the API's answer about e to a member whose room asks a number of it: 403, naming
// the field and the round, and never stored by a cache, so that the same call answers once the host
// has revealed. sealed is false, and nothing is written, when e is not sealed for the caller.
func (h *Handlers) sealedAPI(c echo.Context, e *experiments.Experiment) (sealed bool, err error) {
	s := h.sealedFor(c, e)
	if s == nil {
		return false, nil
	}
	return true, c.JSON(http.StatusForbidden, present.APIError("name", sealedWords(e, s)))
}

// sealedPage is sealedAPI for the "which jobs?" pages and their fragments: a 403 page in words.
func (h *Handlers) sealedPage(c echo.Context, e *experiments.Experiment) error {
	s := h.sealedFor(c, e)
	if s == nil {
		return nil
	}
	return &web.Error{Status: http.StatusForbidden, Msg: sealedWords(e, s)}
}

// sealedFor reads the caller's room for a request that drew no bar (the API, a jobs page), and
// marks the answer as one no cache keeps: it depends on the caller's cookies and on the round.
func (h *Handlers) sealedFor(c echo.Context, e *experiments.Experiment) *pages.Sealed {
	c.Response().Header().Add("Vary", "Cookie")
	asks := h.sealer(c, nil)
	if asks == nil {
		return nil
	}
	s := asks(e)
	if s != nil {
		c.Response().Header().Set("Cache-Control", "no-store")
	}
	return s
}

// sealedWords says why a sealed run is refused, and when it will not be.
func sealedWords(e *experiments.Experiment, s *pages.Sealed) string {
	return "hidden until the host reveals the answer: round " + strconv.Itoa(s.Round) + " of your study room asks “" + s.Question +
		"”, so " + e.Title + ", like every experiment, answers members only after the reveal"
}
