package roomsweb

// The study rooms' pages: start a room, the host link, join, and the room itself. Rooms are
// addressed by their permanent id in every URL after joining, so that a new join code (which the
// host can give the room at any time) never breaks an open page, a form or a stream; the code is
// only for getting in.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/rooms"
)

// NewPage handles "GET /rooms/new": the form that opens a room.
func (h *Handlers) NewPage() echo.HandlerFunc {
	return func(c echo.Context) error {
		site := h.site("")
		return web.Render(c, http.StatusOK, pages.Layout(site, "Start a study room", pages.StartRoom(site, "", "")))
	}
}

// Start handles "POST /rooms": it opens a room, makes this browser its host, and
// redirects (post, redirect, get) to the page that shows the room's first host link, so that a
// reload shows that page again instead of opening a second room.
func (h *Handlers) Start() echo.HandlerFunc {
	return func(c echo.Context) error {
		title := c.FormValue("title")
		site := h.site("")
		if err := h.admitRoom(c.Request().Context(), h.creates, "Too many study rooms created from your network address this hour."); err != nil {
			return err
		}
		cr, err := h.rooms.CreateRoom(c.Request().Context(), title)
		if err != nil {
			var fe *rooms.FieldError
			if errors.As(err, &fe) && fe.Field == "title" {
				return web.Render(c, http.StatusUnprocessableEntity, pages.Layout(site, "Start a study room", pages.StartRoom(site, title, fe.Message)))
			}
			// A full instance: the form again with the title kept, saying why and when to retry.
			err = h.createRefusal(err)
			var he *web.Error
			if web.As(err, &he) && he.Status == http.StatusServiceUnavailable {
				c.Response().Header().Set("Retry-After", strconv.Itoa(web.RetrySeconds(he.RetryAfter)))
				return web.Render(c, he.Status, pages.Layout(site, "Start a study room", pages.StartRoom(site, title, he.Msg)))
			}
			return err
		}
		h.setRoomCookies(c, cr.Room.ID, HostCookie, cr.HostKey)
		return h.showHostLink(c, cr.Room.ID, cr.LinkToken, cr.Room.HostLink.Expires, "opened")
	}
}

// JoinForm handles "GET /join" and "GET /j/:code": the name form, with a friendly name
// offered that nobody in the room uses yet. A browser that already holds a seat goes straight in.
func (h *Handlers) JoinForm() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		site := h.site("")
		v := pages.JoinView{Site: site, Code: c.Param("code")}
		if v.Code == "" {
			v.Code = c.QueryParam("code")
		}
		status := http.StatusOK
		if v.Code != "" {
			// A look-up is charged before the answer is known and given back when the code finds
			// its room (the join itself costs one), so a class opening the QR link together can
			// all join in one minute, and an address over its allowance learns nothing.
			r, err := h.lookUpCode(ctx, v.Code)
			var he *web.Error
			if web.As(err, &he) && he.Status == http.StatusTooManyRequests || errors.Is(err, rooms.ErrUnavailable) {
				return Refusal(err)
			}
			switch {
			case err == nil && seatKey(c, r.ID) != "":
				return c.Redirect(http.StatusSeeOther, h.base+"/rooms/"+r.ID)
			case err == nil:
				v.Code, v.Title = r.Code, r.Title
				if v.Suggestion, err = h.rooms.SuggestName(ctx, r); err != nil {
					return err
				}
				v.Name = v.Suggestion
				if r.Closed {
					v.CodeError, status = "This room is closed.", http.StatusGone
				} else if r.Locked {
					v.CodeError, status = "The host has locked this room to new members.", http.StatusForbidden
				}
			default:
				v.CodeError, status = joinCodeProblem(err), http.StatusNotFound
			}
		}
		return web.Render(c, status, pages.Layout(site, "Join a study room", pages.Join(v)))
	}
}

// join seats name in room r, which finding it by its code answered (or the refusal found): a name
// the rules refuse is answered before a code that finds no room, as the rules check the name first.
func (h *Handlers) join(ctx context.Context, r rooms.Room, found error, name string) (rooms.Joined, error) {
	if found != nil {
		if _, err := rooms.CleanName(name); err != nil {
			return rooms.Joined{}, err
		}
		return rooms.Joined{}, found
	}
	return h.rooms.Join(ctx, r, name)
}

func joinCodeProblem(err error) string {
	var fe *rooms.FieldError
	if errors.As(err, &fe) && fe.Field == "code" && errors.Is(err, rooms.ErrInvalid) {
		return "That is not a room code: " + fe.Message + "."
	}
	return "No open room has this code. Check it with your host."
}

// Join handles "POST /join": it seats the visitor under the name given and keeps the seat
// in an HttpOnly cookie. A refusal shows the form again with the visitor's values and the
// problem beside the field it concerns.
func (h *Handlers) Join() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		site := h.site("")
		v := pages.JoinView{Site: site, Code: c.FormValue("code"), Name: c.FormValue("name")}
		if err := h.admitRoom(ctx, h.joins, "Too many join attempts from your network address in the last minute."); err != nil {
			return err
		}
		// A browser that already holds a seat in this room goes back to it: a second seat would
		// leave an empty chair that "N of M answered" can never count in.
		r, found := h.rooms.RoomByCode(ctx, v.Code)
		if found == nil {
			v.Title = r.Title // for the form, should it be shown again
			if key := seatKey(c, r.ID); key != "" {
				if who, err := h.rooms.Identify(ctx, r, key); err == nil && who.Role == rooms.AsMember {
					return c.Redirect(http.StatusSeeOther, h.base+"/rooms/"+r.ID)
				}
			}
		}
		j, err := h.join(ctx, r, found, v.Name)
		if err == nil {
			h.setRoomCookies(c, j.Member.RoomID, SeatCookie, j.MemberKey)
			if r.Presenting != "" {
				// Someone who joins late lands where the host is, with the round in their bar:
				// the room's own page never moves a member there (following is for notebook pages).
				return c.Redirect(http.StatusSeeOther, h.base+r.Presenting)
			}
			return c.Redirect(http.StatusSeeOther, h.base+"/rooms/"+j.Member.RoomID)
		}
		status := http.StatusUnprocessableEntity
		switch field := ErrorField(err); {
		case errors.Is(err, rooms.ErrNotFound):
			v.CodeError, status = joinCodeProblem(err), http.StatusNotFound
		case field == "name":
			v.NameError = Refusal(err).(*web.Error).Msg
			if errors.Is(err, rooms.ErrTaken) {
				v.NameError = "Someone in the room already uses this name; pick another."
				status = http.StatusConflict
			}
		case errors.Is(err, rooms.ErrRoomLocked), errors.Is(err, rooms.ErrRoomClosed), field == "code":
			he, ok := Refusal(err).(*web.Error)
			if !ok {
				return err
			}
			v.CodeError, status = he.Msg, he.Status
		case errors.Is(err, rooms.ErrLimit):
			v.CodeError, status = "The room is full: it seats "+experiments.Thousands(int64(h.rooms.Config().MaxMembers))+" members.", http.StatusConflict
		default:
			return Refusal(err)
		}
		return web.Render(c, status, pages.Layout(site, "Join a study room", pages.Join(v)))
	}
}

// Page handles "GET /rooms/:id": the room as this browser's host or seat cookie lets it
// see it. A visitor with neither is sent to the join form, which asks for the code: the page
// does not give the code away, since the host may have replaced it to keep someone out.
func (h *Handlers) Page() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		r, err := h.rooms.RoomByID(ctx, c.Param("id"))
		if err != nil {
			return Refusal(err)
		}
		key := roomKey(c, r.ID)
		if key == "" {
			return c.Redirect(http.StatusSeeOther, h.base+"/join")
		}
		site := h.site("")
		site.InRoom = true
		v, err := h.roomView(ctx, site, r, key, false, "")
		if errors.Is(err, rooms.ErrKicked) || errors.Is(err, rooms.ErrForbidden) {
			h.clearRoomCookies(c, r.ID)
			site.InRoom = false // the header offers the ways into a room again
			gone := pages.SeatGoneView{Site: site, Title: r.Title, Removed: errors.Is(err, rooms.ErrKicked)}
			return web.Render(c, http.StatusForbidden, pages.Layout(site, "No longer in “"+r.Title+"”", pages.SeatGone(gone)))
		}
		if err != nil {
			return Refusal(err)
		}
		if !r.Closed { // a closed room's bar would only say that it closed
			h.setCurrentRoom(c, r.ID)
		}
		if v.IsHost() {
			// Only the page has the round form; the stream's redraws never need these.
			for _, e := range experiments.All() {
				v.Experiments = append(v.Experiments, pages.ExperimentChoice{Name: e.Name, Title: e.Title})
			}
			v.Challenges = challengeTemplates()
			if v.ListExperiment = c.QueryParam("experiment"); v.ListExperiment != "" {
				v.ListParams = c.QueryParam("params")
				v.Numbers, v.ListError = h.listedNumbers(ctx, v.ListExperiment, v.ListParams)
			} else {
				v.Numbers = h.presentedNumbers(v.Room.Presenting)
			}
		}
		h.addLabForm(&v)    // lab.go
		h.addLab(c, &v, "") // lab.go
		if err := h.addJoinQR(c.Request(), &v); err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return web.Render(c, http.StatusOK, pages.Layout(site, r.Title, pages.RoomPage(v)))
	}
}

// Projector handles "GET /rooms/:id/projector": the room on the big screen, for its host (the
// host's cookie opens it, so a member cannot). It draws the host's view without a name or a
// control; its stream (view=projector) keeps it live.
func (h *Handlers) Projector() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		r, err := h.rooms.RoomByID(ctx, c.Param("id"))
		if err != nil {
			return Refusal(err)
		}
		key := roomKey(c, r.ID)
		if key == "" {
			return c.Redirect(http.StatusSeeOther, h.base+"/join")
		}
		site := h.site("")
		site.InRoom, site.Bare = true, true
		v, err := h.roomView(ctx, site, r, key, false, "")
		if err != nil {
			return Refusal(err)
		}
		if !v.IsHost() {
			return &web.Error{Status: http.StatusForbidden, Msg: "the projector view is the host's: open it from the browser that runs the room"}
		}
		projector(&v)
		h.addShown(ctx, &v)
		if err := h.addJoinQR(c.Request(), &v); err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return web.Render(c, http.StatusOK, pages.Layout(site, r.Title+" · projector", pages.ProjectorPage(v)))
	}
}

// projector makes a host's view the projector's: its stream is the projector's, and it holds no
// name the members may not see, so that no later change to the page's template can show one: no
// roster, no board, nobody's answer before the reveal, and after it names only where the host
// shows them to members too (NamesVisible).
func projector(v *pages.RoomView) {
	v.Stream += "?view=projector"
	v.Room.Roster, v.Room.Unanswered, v.Room.Pins, v.Room.You = nil, nil, nil, nil
	rounds := make([]rooms.RoundView, len(v.Room.Rounds))
	for i, rd := range v.Room.Rounds {
		rd = projectorRound(rd) // handlerround.go
		rd.Unanswered, rd.First = nil, nil
		if rd.Result != nil && !rd.NamesVisible {
			res := *rd.Result
			res.Guesses = nameless(res.Guesses)
			if res.First != nil {
				f := *res.First
				f.Guesses = nameless(f.Guesses)
				res.First = &f
			}
			rd.Result = &res
		}
		rounds[i] = rd
	}
	v.Room.Rounds = rounds
}

func nameless(gs []rooms.GuessView) []rooms.GuessView {
	out := make([]rooms.GuessView, len(gs))
	for i, g := range gs {
		out[i] = rooms.GuessView{Value: g.Value, Confidence: g.Confidence}
	}
	return out
}

// roomView builds room r (as the request read it) as the holder of key sees it, for a page or the
// bar.
func (h *Handlers) roomView(ctx context.Context, site pages.Site, r rooms.Room, key string, bar bool, here string) (pages.RoomView, error) {
	who, _ := h.rooms.Identify(ctx, r, key) // State answers a refusal
	st, err := h.rooms.State(ctx, who, h.live().present(r.ID))
	if err != nil {
		return pages.RoomView{}, err
	}
	return h.roomViewOf(ctx, site, st, bar, here), nil
}

// roomViewOf dresses the room as its caller may see it (from the store, or from a stream's
// snapshot) for a page, the bar or the stream.
func (h *Handlers) roomViewOf(ctx context.Context, site pages.Site, st rooms.View, bar bool, here string) pages.RoomView {
	base := site.URL("/rooms/" + st.RoomID)
	v := pages.RoomView{Site: site, Room: st, URL: base, Actions: base, Stream: base + "/events", Bar: bar, Here: here,
		Questions: h.asked, Headlines: map[string]string{}, Titles: map[string]string{}}
	if st.Presenting != "" {
		v.Titles[st.Presenting] = h.pathTitle(st.Presenting)
	}
	h.addHandlerParts(&v) // handlerround.go
	if bar {
		v.Stream += "?view=bar"
	}
	if bar {
		return v // the bar draws no board
	}
	if st.Role == rooms.AsMember && asking(st) != nil {
		v.HeadlinesSealed = true // nothing asked for: the headlines wait for the reveal
		return v
	}
	for _, p := range st.Pins {
		v.Titles[p.Path] = h.pathTitle(p.Path)
		// Known, or asked for in the background: the board shows it once it is ready.
		if h, ok := h.headline(ctx, p.Path, st.RoomID); ok && h != "" {
			v.Headlines[p.Path] = h
		}
	}
	return v
}

// Bar is the bar a visitor in a room sees on every notebook page, or nil when they are in
// none (or their seat is gone). It costs a few reads, and only for those in a room; the view is
// kept in c for the rest of the request (see WorkbenchRound).
func (h *Handlers) Bar(c echo.Context, site pages.Site) *pages.RoomView {
	v := h.bar(c, site)
	c.Set(barKey, v)
	return v
}

func (h *Handlers) bar(c echo.Context, site pages.Site) *pages.RoomView {
	id, hidden := currentRoom(c), false
	if id == "" {
		id, hidden = hiddenRoom(c), true
	}
	if id == "" {
		return nil
	}
	ctx := c.Request().Context()
	r, err := h.rooms.RoomByID(ctx, id)
	if err != nil || r.Closed && hidden {
		return nil
	}
	key := roomKey(c, r.ID)
	if key == "" {
		return nil
	}
	here := strings.TrimPrefix(c.Request().URL.RequestURI(), h.base)
	v, err := h.roomView(ctx, site, r, key, true, here)
	if err != nil || v.Room.Role == rooms.Nobody {
		return nil
	}
	if r.Closed {
		// A closed room has nothing to follow: the bar says so on the next page, once, and the
		// notebook forgets the room (its page still has what happened).
		h.cookies.Set(c, currentCookie, "", -time.Second)
		return &v
	}
	if hidden {
		v.Hidden = true // one line that offers the bar back; no stream
		return &v
	}
	h.addAsk(ctx, &v, here) // session.go
	page, _, _ := strings.Cut(here, "?")
	v.Stream += "&page=" + url.QueryEscape(page) // so that the bar's stream knows the page too (lab.go)
	h.addLab(c, &v, page)
	return &v
}

// origin is the scheme and host of the links an answer to r hands out (see origins).
func (h *Handlers) origin(r *http.Request) string {
	o, known := h.origins.Of(r)
	if !known {
		h.origins.WarnOnce(func() {
			h.log.Warn("links name another host than the request's: set PUBLIC_ORIGIN or HOSTS to the host readers use",
				"request_host", experiments.Clip(r.Host, 100), "links_on", o)
		})
	}
	return o
}

// addJoinQR gives the host's room page the join link's QR code, for the page and the stream alike:
// the host's screen is where people read the code, so it must show a new code at once.
func (h *Handlers) addJoinQR(r *http.Request, v *pages.RoomView) error {
	if !v.IsHost() || v.Bar {
		return nil
	}
	q, err := h.joinQR(r, v.Room.Code)
	v.JoinQR = q
	return err
}

// joinQR is the QR code of the room's join link, cached by link since a code changes rarely.
func (h *Handlers) joinQR(r *http.Request, code string) (pages.QR, error) {
	link := h.origin(r) + h.base + "/j/" + code
	if q, ok := h.qrs.Get(link); ok {
		return q, nil
	}
	q, err := pages.NewQR(link)
	if err == nil {
		h.qrs.Put(link, q)
	}
	return q, err
}
