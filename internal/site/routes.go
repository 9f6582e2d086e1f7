package site

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"effectivelyonce/content"
	"effectivelyonce/internal/web"
	"effectivelyonce/internal/web/roomsweb"
	"effectivelyonce/internal/web/workbenchweb"
)

// routes lists every URL the site answers. GET routes answer HEAD too. Every page of the notebook
// is one entry of content.Contents(), served at its own path.
func (s *Server) routes() {
	g := s.echo.Group(s.cfg.BasePath)
	get := func(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
		g.GET(path, h, mw...)
		g.HEAD(path, h, mw...)
	}
	for _, e := range content.Contents() {
		get(e.Path, s.notebook.Article(e)) // runs are rate limited inside, where a cached one is free
	}
	get("/blocks/:n", s.notebook.NoBlock())

	// The live lab: a run starts from a POST (crossOrigin guards it) and works in the
	// background; the page polls its progress box, and no GET starts or stops anything.
	g.POST("/lab/runs", s.lab.Run())
	g.POST("/lab/cancel", s.lab.Cancel())
	get("/lab/progress", s.lab.Progress())

	// A page's spread over seeds runs in the background; its box polls, and Cancel is a POST.
	get("/spread/progress", s.notebook.SpreadProgress())
	g.POST("/spread/cancel", s.notebook.SpreadCancel())

	get("/api/experiments", s.notebook.ExperimentList())
	get("/api/experiments/:name", s.notebook.Experiment())
	// "Which jobs?": the jobs behind a count, and one job's timeline, in the API and as pages
	// (whole, or the fragment htmx loads into a block's jobs panel).
	get("/api/experiments/:name/jobs", s.notebook.JobsAPI())
	get("/api/experiments/:name/jobs/:id", s.notebook.JobAPI())
	get("/jobs/:name", s.notebook.JobsPage())
	get("/jobs/:name/:id", s.notebook.JobPage())

	// The workbench: Check, a job's timeline and Share are POSTs of its form (the source is too
	// long for a URL); a share's permanent URL checks it again on GET. Its posts bound their
	// bodies themselves, past the site's limit, so that a handler pasted far over its 16 KB is
	// refused in the workbench's words with the reader's code kept.
	wbOwn := func(r *echo.Route) { s.ownBody[r.Method+" "+r.Path] = true }
	wb := func(path string, h echo.HandlerFunc) { wbOwn(g.POST(path, h, workbenchweb.LimitBody)) }
	wb("/workbench", s.workbench.Check())
	wb("/workbench/trace", s.workbench.Trace())
	wb("/workbench/jobs", s.workbench.Jobs()) // "which jobs?" for a count, and its CSV
	wb("/workbench/share", s.workbench.Share())
	wb("/workbench/lab", s.workbench.RunOnLab()) // starts a run on the lab, which /lab/progress and /lab/cancel follow
	get("/workbench/s/:hash", s.workbench.Shared())
	get("/workbench/edit", s.workbench.InPlace()) // "Edit and check" in place, for htmx
	wb("/api/workbench/check", s.workbench.CheckAPI())
	wb("/api/workbench/jobs", s.workbench.JobsAPI())
	wb("/api/workbench/shares", s.workbench.ShareAPI())

	// The study rooms. Every change is a POST, PUT or DELETE (crossOrigin guards them all) with a
	// small body; the caller's key travels in the Authorization header.
	rm, small := s.rooms, middleware.BodyLimit(roomsweb.BodyLimit)
	g.POST("/api/rooms", rm.APICreate(), small)
	// Every route that takes a join code looks it up through CodeGate first, charged to the join
	// allowance (given back when the code finds its room); the join route charges every attempt
	// itself.
	// Every change is charged to the key that makes it (ChargeChange), guesses included.
	miss, change := rm.CodeGate, rm.ChargeChange
	get("/api/rooms/:code", rm.APIState(), miss)
	g.POST("/api/rooms/:code/members", rm.APIJoin(), small)
	g.DELETE("/api/rooms/:code/members/:member", rm.APIKick(), miss, change)
	g.PUT("/api/rooms/:code/locked", rm.APILocked(), small, miss, change)
	g.POST("/api/rooms/:code/rounds", rm.APIRoundOpen(), small, miss, change)
	g.PUT("/api/rooms/:code/rounds/:seq/guess", rm.APIGuess(), small, miss, change)
	g.POST("/api/rooms/:code/rounds/:seq/lock", rm.APIRoundLock(), small, miss, change)
	g.POST("/api/rooms/:code/rounds/:seq/second-vote", rm.APISecondVote(), small, miss, change)
	g.POST("/api/rooms/:code/rounds/:seq/timer", rm.APITimer(), small, miss, change)
	g.POST("/api/rooms/:code/rounds/:seq/reveal", rm.APIRoundReveal(), small, miss, change)
	// A handler is up to 16 KB; its submission bounds its body as the workbench's posts do, so
	// that a paste far past that is refused in words that name the handler.
	wbOwn(g.POST("/api/rooms/:code/rounds/:seq/submission", rm.APISubmit(), workbenchweb.LimitBody, miss, change))
	g.POST("/api/rooms/:code/pins", rm.APIPin(), small, miss, change)
	g.POST("/api/rooms/:code/present", rm.APIPresent(), small, miss, change)
	g.POST("/api/rooms/:code/host-link", rm.APIHostLink(), small, miss, change)
	get("/api/rooms/:code/export", rm.APIExport(), miss)
	get("/api/rooms/:code/events", rm.APIEvents(), miss)

	// The study rooms' pages. A room is addressed by its permanent id once joined; its join code
	// is only for getting in (/join, /j/CODE, which the host's QR code encodes).
	get("/rooms/new", rm.NewPage())
	g.POST("/rooms", rm.Start(), small)
	get("/join", rm.JoinForm())
	get("/j/:code", rm.JoinForm())
	g.POST("/join", rm.Join(), small)
	get("/rooms/:id", rm.Page())
	get("/rooms/:id/host", rm.HostConfirm())
	g.POST("/rooms/:id/host", rm.HostUse(), small)
	get("/rooms/:id/host-link", rm.HostLinkPage())
	get("/rooms/:id/events", rm.Events())
	get("/rooms/:id/projector", rm.Projector())
	get("/rooms/:id/ask", rm.AskList()) // the numbers of the page on screen, for the host's bar
	get("/rooms/:id/export", rm.Export())
	// What hosts and members do from a room's page: each a POST of a small form, answered with
	// 204 for htmx or a 303 back to the page it came from (roomsweb/actions.go).
	g.POST("/rooms/:id/rounds", rm.OpenRound(), small)
	g.POST("/rooms/:id/rounds/:seq/guess", rm.Guess(), small)
	g.POST("/rooms/:id/rounds/:seq/second-vote", rm.SecondVote(), small)
	g.POST("/rooms/:id/rounds/:seq/timer", rm.Timer(), small)
	g.POST("/rooms/:id/rounds/:seq/lock", rm.LockRound(), small)
	g.POST("/rooms/:id/rounds/:seq/reveal", rm.Reveal(), small)
	g.POST("/rooms/:id/rounds/:seq/names", rm.SetNamesVisible(), small)
	g.POST("/rooms/:id/rounds/:seq/projector", rm.ShowOnProjector(), small) // a handler round's handler, shown
	g.POST("/rooms/:id/pins", rm.AddPin(), small)
	g.POST("/rooms/:id/pins/:pin/hidden", rm.SetPinHidden(), small)
	g.POST("/rooms/:id/present", rm.Present(), small)
	g.POST("/rooms/:id/lab", rm.StartLab(), small)
	g.POST("/rooms/:id/members/:member/kick", rm.Kick(), small)
	g.POST("/rooms/:id/close", rm.CloseRoom(), small)
	g.POST("/rooms/:id/locked", rm.SetLocked(), small)
	g.POST("/rooms/:id/code", rm.RotateCode(), small)
	g.POST("/rooms/:id/host-link", rm.NewHostLink(), small)
	g.POST("/rooms/:id/host-key", rm.RotateHostKey(), small)
	g.POST("/rooms/:id/leave", rm.Leave(), small) // hides the room bar; the seat stays
	g.POST("/rooms/:id/show", rm.Show(), small)
	// The workbench's form submitted to a handler round: its handler, up to 16 KB, its body bound
	// as the workbench's own posts bind theirs.
	wbOwn(g.POST("/rooms/:id/rounds/:seq/submission", rm.SubmitForm(), workbenchweb.LimitBody))

	get("/static/:hash/*", s.assets.Handler())
	get("/healthz", web.HandleHealth())
	get("/metrics", s.metrics.Handler())
	if s.cfg.BasePath != "" {
		// The root of the host and the bare base path both lead to the notebook's first page.
		home := func(c echo.Context) error { return c.Redirect(http.StatusFound, s.cfg.BasePath+"/") }
		for _, path := range []string{"/", s.cfg.BasePath} {
			s.echo.GET(path, home)
			s.echo.HEAD(path, home)
		}
	}
}
