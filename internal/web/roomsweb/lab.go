package roomsweb

// A lab run the group watches together. The host starts a run of the live lab from the room's
// page; the room records that it watches it (a room change, so every stream redraws once), and
// from then on every member's room page and bar show the lab's own progress box for that run.
//
// The run's progress is not a change of the room, and the room's stream does not carry it: the
// box polls the lab's progress fragment (GET /lab/progress) as it does on /lab, and stops by itself
// when the run ends, coming back with the table. That is the simpler of the two designs that are
// correct: the lab already draws, per browser, whose run it is and who may cancel it, and keeps
// the run alive while anyone looks; carrying it in the stream would make each progress tick a
// redraw of every stream of the room, or a second kind of event beside the room's changes, for
// the same box. The stream sends the box when the room starts watching a run and again when the
// run ends or its table grows (pages.RoomView.PartKey leaves the moving counts to the box's own
// poll), and the box asks the lab at once when it arrives: the stream's request carries the
// cookies the tab had when it connected, which for the host who just started the run do not yet
// say that the run is theirs.
//
// A room's box polls once a second (LabEvery), not at the lab's own pace: every member's page
// has one, and a hall of 300 at 300 ms asked the lab a thousand times a second for one run's
// counts. The pace rides in the box's progress address, so each poll's answer keeps it.

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/rooms"
)

// LabParts are the live lab's parts a room uses, handed over by the site (internal/web/labweb
// makes them; the rooms import nothing of it). A nil Form means a site without a lab.
type LabParts struct {
	// Form is the lab's small form for the host's room page, holding raw's values (nil: the lab's
	// defaults), errs beside their fields and notice above; nil when the lab is off.
	Form func(raw url.Values, errs experiments.FieldErrors, notice string) *pages.LabView
	// Start starts a run of the form raw for the browser of c (its owner), answering the run's id,
	// the values refused, or a refusal of the run as a whole.
	Start func(c echo.Context, raw url.Values) (id string, errs experiments.FieldErrors, err error)
	// Watched is the run called id as the browser of c sees it; nil when it is not the lab's
	// current run.
	Watched func(c echo.Context, id string) *pages.LabStatus
}

// addLab gives a room's view the lab run the room watches, as the browser of c sees it (its own
// run, with Cancel, or the host's), in the room's words. The bar on /lab itself shows none: the
// page shows the run.
func (h *Handlers) addLab(c echo.Context, v *pages.RoomView, page string) {
	if h.lab.Watched == nil || v.Room.LabRun == "" || (v.Bar && page == "/lab") {
		return
	}
	if s := h.lab.Watched(c, v.Room.LabRun); s != nil {
		// "The host's run" to members, "Your run" to the host, in every poll's answer too.
		box := pages.LabInRoom(pages.LabPaced(*s, LabEvery), v.IsHost(), v.Bar)
		box.AskAtOnce = true // a stream's cookies may be older than the run (see AskAtOnce)
		v.LabRun = &box
	}
}

// LabEvery is how often a room's lab box asks for the run's progress (see above).
const LabEvery = time.Second

// addLabForm gives the host's room page the lab's form.
func (h *Handlers) addLabForm(v *pages.RoomView) {
	if h.lab.Form != nil && v.IsHost() && !v.Room.Closed {
		v.LabForm = h.lab.Form(nil, nil, "")
	}
}

// startLab is the host's "Start the lab run" on the room's page: the run starts on the lab for
// this browser, then the room records that it watches it. Only the host of an open room may; the
// lab's refusals come back to the form (values kept): with script beside it, without script on a
// page that holds the form again.
func (h *Handlers) startLab(ctx context.Context, c echo.Context, who rooms.Caller) error {
	if err := who.Err(); err != nil {
		return err
	}
	if who.Role != rooms.AsHost {
		return rooms.ErrForbidden
	}
	if who.Room.Closed {
		return rooms.RoomClosed()
	}
	if h.lab.Start == nil {
		return &web.Error{Status: http.StatusNotFound, Msg: "this site has no live lab"}
	}
	raw, err := c.FormParams()
	if err != nil {
		return &web.Error{Status: http.StatusBadRequest, Msg: "the form could not be read", Err: err}
	}
	id, errs, err := h.lab.Start(c, raw)
	if len(errs) > 0 || err != nil {
		return h.labRefused(c, who, raw, errs, err)
	}
	return h.rooms.WatchLab(ctx, who, id)
}

// labRefused answers a lab run the lab refused: with script, every refused value in one sentence
// beside the form (or the refusal of the run as a whole, with when to try again); without, the
// form again on a page of its own, each value as typed and each refusal beside its field.
func (h *Handlers) labRefused(c echo.Context, who rooms.Caller, raw url.Values, errs experiments.FieldErrors, err error) error {
	notice := ""
	status := http.StatusUnprocessableEntity
	var he *web.Error
	if err != nil {
		if !web.As(err, &he) {
			return err
		}
		notice, status = he.Msg, he.Status
	}
	if web.HTMXOf(c.Request()).Active {
		if he != nil {
			// The lab's message says already when to try again (and set Retry-After).
			return &web.Error{Status: he.Status, Msg: he.Msg, Err: he.Err}
		}
		var said []string
		for _, fe := range errs {
			said = append(said, fe.Field+": "+fe.Message)
		}
		return &web.Error{Status: http.StatusUnprocessableEntity, Msg: "not run: " + strings.Join(said, "; ")}
	}
	site := h.site("")
	site.InRoom = true
	base := site.URL("/rooms/" + who.Room.ID)
	v := pages.RoomView{Site: site, Room: rooms.View{RoomID: who.Room.ID, Title: who.Room.Title, Role: rooms.AsHost}, URL: base, Actions: base}
	v.LabForm = h.lab.Form(raw, errs, notice)
	c.Response().Header().Set("Cache-Control", "no-store")
	return web.Render(c, status, pages.Layout(site, who.Room.Title, pages.RoomLabRetry(v)))
}
