package notebook

import (
	"github.com/labstack/echo/v4"

	"effectivelyonce/pages"
)

// sealed is how the page shows each run while the reader's study room asks about it: a block whose
// run a round still open asks about is drawn with its result hidden, and with its own address, to
// show the result once the host has revealed it (see Parts.Sealed). Nothing changes for a reader in
// no room, or with no such round.
func (h *Handlers) sealed(c echo.Context, bar *pages.RoomView) func(v *pages.ExperimentView, r pages.Run) {
	var asks func(r pages.Run) *pages.Sealed
	if h.parts.Sealed != nil {
		if seal := h.parts.Sealed(c, bar); seal != nil {
			asks = func(r pages.Run) *pages.Sealed { return seal(r.Experiment, r.Params) }
		}
	}
	return func(v *pages.ExperimentView, r pages.Run) {
		if asks == nil || r.Result == nil {
			return
		}
		if s := asks(r); s != nil {
			s.Show = v.Permalink
			v.Sealed = s
		}
	}
}
