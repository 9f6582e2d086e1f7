// Package notebook serves the notebook's pages and their experiments: every page of the contents
// with its runs, the experiments' JSON and CSV API, "which jobs?" (the jobs behind a count and one
// job's timeline), spreads over seeds, and the verifier's smallest failing cases. The parts of a
// page other domains draw (a study room's bar, the lab's box, the workbench) come in as Parts.
package notebook

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
)

// Parts are what other domains draw into a notebook page; the site wires them. A nil one is left
// out of the page.
type Parts struct {
	// RoomBar is the study room bar of the reader's current room, nil when they are in none.
	RoomBar func(c echo.Context, site pages.Site) *pages.RoomView
	// Lab is the live lab's box on the page that carries the lab marker.
	Lab func(c echo.Context, site pages.Site) *pages.LabView
	// Workbench is the workbench on the page that carries its marker, at the query's parameters,
	// with the status to answer (499 when the reader left).
	Workbench func(c echo.Context, site pages.Site) (*pages.WorkbenchView, int)
	// Editor is site with the code editor's script added.
	Editor func(site pages.Site) pages.Site
	// EditLinks are the "Edit and check" links under the designs a page shows.
	EditLinks func(site pages.Site, entry content.Entry, page *content.Page) *pages.EditLinks
	// Sealed answers which experiments a round of the reader's study room still asks a number of
	// (bar is the room bar the page drew, nil for none), so that every run of them shows hidden
	// until the host reveals the answer, whatever its parameters; nil when none is.
	Sealed func(c echo.Context, bar *pages.RoomView) func(e *experiments.Experiment) *pages.Sealed
}

// Deps is what the notebook's handlers need.
type Deps struct {
	Base    string // the base path the site is served under
	Log     *slog.Logger
	Book    *content.Book
	Sources map[string]pages.Source
	Runner  *runs.Runner
	Admit   *runs.Admission
	// Rejected counts refused requests by reason (invalid, rate_limited).
	Rejected *prometheus.CounterVec
	// MaxRuns bounds the workers of one spread over seeds.
	MaxRuns int
	// Site is the part of every view that does not depend on the request, for the page at current.
	Site  func(current string) pages.Site
	Parts Parts
	// SpreadPace slows each run of a spread down, for tests that watch a spread count up; 0 in
	// production.
	SpreadPace time.Duration
}

// Handlers serve the notebook.
type Handlers struct {
	base       string
	log        *slog.Logger
	book       *content.Book
	sources    map[string]pages.Source
	runner     *runs.Runner
	admit      *runs.Admission
	rejected   *prometheus.CounterVec
	maxRuns    int
	site       func(current string) pages.Site
	parts      Parts
	spreadPace time.Duration
	spreads    *spreads
}

// New makes the notebook's handlers; Stop ends their background spreads.
func New(d Deps) *Handlers {
	return &Handlers{base: d.Base, log: d.Log, book: d.Book, sources: d.Sources, runner: d.Runner, admit: d.Admit,
		rejected: d.Rejected, maxRuns: d.MaxRuns, site: d.Site, parts: d.Parts, spreadPace: d.SpreadPace,
		spreads: newSpreads(d.Runner.Cache())}
}

// Stop cancels every background spread over seeds and waits for them, at shutdown.
func (h *Handlers) Stop() { h.spreads.stop() }

// NoBlock handles "GET /blocks/:n" for any n that is not a block of the contents (the blocks
// themselves have routes of their own, which echo prefers), with a 404 that says which exist.
func (h *Handlers) NoBlock() echo.HandlerFunc {
	msg := fmt.Sprintf("there are %d blocks, numbered 1 to %d", content.Blocks(), content.Blocks())
	return func(c echo.Context) error {
		return &web.Error{Status: http.StatusNotFound, Msg: msg}
	}
}
