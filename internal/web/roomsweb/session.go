package roomsweb

// Questions about the page on screen: the host's "Ask about this page" in the room bar lists the
// numbers the page shows (every count and each reading's headline, in words with their row) and
// opens a round on the one chosen, through the room's own round form; while such a round is open,
// a member's copy of that run's result is hidden (Sealed), until the host reveals the answer.

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/rooms"
)

// addAsk gives the host's bar on the page at here the numbers the page shows. The page is about to
// run its experiments anyway, so a run the cache no longer holds is made now (admitted, for the
// host), and the page then finds it in the cache: a host never sees an empty list because the run
// left the cache.
func (h *Handlers) addAsk(ctx context.Context, v *pages.RoomView, here string) {
	if !v.Bar || !v.IsHost() || v.Room.Closed {
		return
	}
	v.AskURL = v.Action("/ask")
	v.AskNumbers = h.pageNumbers(ctx, here, true)
}

// AskList handles "GET /rooms/:id/ask?path=P": the inside of the host's "Ask about this page" for
// the notebook page at P, which the bar asks for when a rerun has changed the page's address under
// it (htmx pushed the new one). Only the host is answered: a member has nothing to ask.
func (h *Handlers) AskList() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		r, err := h.rooms.RoomByID(ctx, c.Param("id"))
		if err != nil {
			return Refusal(err)
		}
		who, err := h.rooms.Identify(ctx, r, roomKey(c, r.ID))
		if err != nil {
			return Refusal(err)
		}
		if who.Role != rooms.AsHost {
			return Refusal(rooms.ErrForbidden)
		}
		path, err := rooms.CleanPath("path", strings.TrimPrefix(c.QueryParam("path"), h.base))
		if err != nil {
			return Refusal(err)
		}
		site := h.site("")
		base := site.URL("/rooms/" + r.ID)
		v := pages.RoomView{Site: site, Room: rooms.View{RoomID: r.ID, Role: rooms.AsHost}, URL: base, Actions: base, Bar: true, Here: path}
		v.AskNumbers = h.pageNumbers(ctx, path, true)
		c.Response().Header().Set("Cache-Control", "no-store")
		return web.Render(c, http.StatusOK, pages.AskBody(v))
	}
}

// Sealed is the study room's part of a notebook page for the reader of c: while a round not yet
// revealed in their room asks a number of an experiment, every experiment's runs on the member's
// pages and in the API are hidden until the host reveals the answer. Every run, not only the one
// the round names: the asked row sits in many runs (a window list of "1000" or "1000,2000"
// measures the same row), and in other experiments' too (the window grid at window 1,000 and
// delay 2,000 measures the window's 195; the assembly counts each design's losses that the
// blocks count), so a member who could run anything would read the answer somewhere. A round
// lasts minutes; the results come back with the reveal. Only a member is sealed (the host asks,
// and sees the result); nil when nothing is hidden. bar is the room as the page's bar read it, when the page drew one, so
// that the page reads its room once; a fragment (a rerun with htmx) or an API call has none and
// reads it here.
func (h *Handlers) Sealed(c echo.Context, bar *pages.RoomView) func(e *experiments.Experiment) *pages.Sealed {
	var st rooms.View
	if bar != nil {
		st = bar.Room
	} else {
		var ok bool
		if st, ok = h.memberView(c); !ok {
			return nil
		}
	}
	if st.Role != rooms.AsMember || st.Closed {
		return nil
	}
	rd := asking(st)
	if rd == nil {
		return nil
	}
	ask := pages.RoomView{Questions: h.asked}
	newest := pages.Sealed{Room: st.RoomID, Round: rd.Seq, Question: ask.Ask(rd.Question)}
	return func(*experiments.Experiment) *pages.Sealed {
		s := newest // each run sets its own Show
		return &s
	}
}

// asking is the newest round of st not yet revealed that asks a number of an experiment, or nil:
// while there is one, members see no result (Sealed) and no pin's headline (roomViewOf).
func asking(st rooms.View) *rooms.RoundView {
	var newest *rooms.RoundView
	for i := range st.Rounds {
		rd := &st.Rounds[i]
		if rd.State == rooms.RoundRevealed || rd.Question.Kind != rooms.KindMeasure {
			continue
		}
		if _, _, err := parseMeasured(rd.Question); err != nil {
			continue
		}
		newest = rd
	}
	return newest
}

// memberView is the reader's current room as their seat sees it, for a page that drew no bar;
// false when they are in no room, or not as a member of an open one.
func (h *Handlers) memberView(c echo.Context) (rooms.View, bool) {
	id := currentRoom(c)
	if id == "" {
		// A member who hid the bar is still seated, and still sealed: hiding the bar stops the
		// page following, not the round asking.
		id = hiddenRoom(c)
	}
	if id == "" {
		return rooms.View{}, false
	}
	ctx := c.Request().Context()
	r, err := h.rooms.RoomByID(ctx, id)
	if err != nil || r.Closed {
		return rooms.View{}, false
	}
	key := seatKey(c, r.ID)
	if key == "" {
		return rooms.View{}, false
	}
	who, err := h.rooms.Identify(ctx, r, key)
	if err != nil || who.Role != rooms.AsMember {
		return rooms.View{}, false
	}
	st, err := h.rooms.State(ctx, who, nil)
	return st, err == nil
}
