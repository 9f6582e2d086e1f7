package roomsweb

// What hosts and members do in a room from its pages: every action is a POST of a small form.
// With script, htmx posts it and the room's stream redraws what changed (204 on success; 422 with
// the reason, shown beside the form, on a refusal). Without script the form posts as it is and
// the answer is a 303 back to the page it came from, or an error page that says why.

import (
	"context"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/rooms"
)

// roomDo is one action: who acts (the room and the caller, resolved once for the request) and the
// posted form.
type roomDo func(ctx context.Context, c echo.Context, who rooms.Caller) error

// asCaller does an action of a room's page as its caller: it finds the room by its id (the one
// read of the room the action makes), charges the change to the caller's key from their cookie,
// resolves the key to the caller (a refusal travels in the Caller, for the action to answer
// after checking its own form) and gives the charge back when the action is refused for want of
// permission. It answers the room, for where to go next.
func (h *Handlers) asCaller(ctx context.Context, c echo.Context, do roomDo) (rooms.Room, error) {
	r, err := h.rooms.RoomByID(ctx, c.Param("id"))
	if err != nil {
		return r, err
	}
	key := roomKey(c, r.ID)
	if err := h.admitChange(ctx, key); err != nil {
		return r, err
	}
	who, _ := h.rooms.Identify(ctx, r, key)
	err = do(ctx, c, who)
	h.refundRefused(key, err)
	return r, err
}

// roomAction wraps an action of a room's page: it finds the room by its id (the one read of the
// room the action makes), charges the change to the caller's key from their cookie, resolves the
// key to the caller, and answers as the package comment says. A key the rules refuse is not
// answered here: the Caller carries the refusal to the action, which answers it after checking
// its own form, as the API does.
func (h *Handlers) roomAction(do roomDo) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		r, err := h.asCaller(ctx, c, do)
		if err != nil {
			return h.refuseAction(c, err)
		}
		if c.Response().Committed {
			return nil
		}
		if web.HTMXOf(c.Request()).Active {
			return c.NoContent(http.StatusNoContent)
		}
		back := h.base + "/rooms/" + r.ID
		if p, err := rooms.CleanPath("return", c.FormValue("return")); err == nil {
			back = h.base + p
		}
		return c.Redirect(http.StatusSeeOther, back)
	}
}

// refuseAction answers a refused action: for htmx, the reason alone (escaped) with 422, which
// htmx swaps in beside the form; otherwise the error page the error handler draws.
func (h *Handlers) refuseAction(c echo.Context, err error) error {
	err = Refusal(err)
	var he *web.Error
	if !web.As(err, &he) || !web.HTMXOf(c.Request()).Active {
		return err
	}
	msg := he.Msg
	if f := ErrorField(he.Err); f != "" && !strings.Contains(msg, f) && f != "code" && f != "round" && f != "seq" {
		msg = f + ": " + msg
	}
	if he.RetryAfter > 0 { // a limit: say when the action will be taken again
		c.Response().Header().Set("Retry-After", strconv.Itoa(web.RetrySeconds(he.RetryAfter)))
		msg = fmt.Sprintf("%s. Try again in %d s", strings.TrimSuffix(msg, "."), web.RetrySeconds(he.RetryAfter))
	}
	return c.HTML(http.StatusUnprocessableEntity, html.EscapeString(present.SayCap(strings.TrimSuffix(msg, ".")))+".")
}

// confirmFirst makes an action that cannot be undone ask first. With script, app.js asks (the
// form's data-confirm) and the form carries confirmed=yes once the reader agreed; without, the
// form posts without it and the answer is a page that asks, whose button posts the same fields
// again with confirmed=yes. question says what is asked, and refuses early a caller who may not
// do this at all.
func (h *Handlers) confirmFirst(question func(ctx context.Context, c echo.Context, who rooms.Caller) (string, error), do roomDo) roomDo {
	return func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		if c.FormValue("confirmed") == "yes" {
			return do(ctx, c, who)
		}
		r := who.Room
		q, err := question(ctx, c, who)
		if err != nil {
			return err
		}
		if web.HTMXOf(c.Request()).Active {
			return &web.Error{Status: http.StatusBadRequest, Msg: "this action asks to be confirmed first"}
		}
		form, err := c.FormParams()
		if err != nil {
			return err
		}
		site := h.site("")
		site.InRoom = true
		v := pages.ConfirmView{Site: site, Title: r.Title, Question: q, Action: c.Request().URL.Path, Back: site.URL("/rooms/" + r.ID)}
		for _, k := range slices.Sorted(maps.Keys(form)) {
			if k != "confirmed" {
				v.Fields = append(v.Fields, pages.Hidden{Name: k, Value: form.Get(k)})
			}
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return web.Render(c, http.StatusOK, pages.Layout(site, r.Title, pages.ConfirmAction(v)))
	}
}

// hostQuestion is a confirmation's question for the host alone: anyone else is refused before
// being asked.
func (h *Handlers) hostQuestion(ask func(c echo.Context, st rooms.View) (string, error)) func(context.Context, echo.Context, rooms.Caller) (string, error) {
	return func(ctx context.Context, c echo.Context, who rooms.Caller) (string, error) {
		st, err := h.rooms.State(ctx, who, nil)
		if err != nil {
			return "", err
		}
		if st.Role != rooms.AsHost {
			return "", rooms.ErrForbidden
		}
		return ask(c, st)
	}
}

// formNumber reads a number a person typed, with thousands separators as the notebook's own
// forms take them (1,200 or 1 200). A comma that does not group thousands ("0,5") is refused
// rather than read as 5, which a member writing a decimal comma could not notice.
func formNumber(field, s string) (float64, error) {
	notNumber := &rooms.FieldError{Field: field, Err: rooms.ErrInvalid, Message: "a number is needed here, like 1200 or 0.5"}
	s = strings.TrimSpace(s)
	if s == "" || strings.Trim(s, "0123456789+-.eE,_ \u00a0\u2009\u202f") != "" {
		return 0, notNumber
	}
	plain, ok := experiments.Ungroup(strings.ReplaceAll(s, " ", "\u00a0"))
	if !ok {
		return 0, &rooms.FieldError{Field: field, Err: rooms.ErrInvalid, Message: "write decimals with a point (0.5); commas only group thousands (1,200)"}
	}
	v, err := strconv.ParseFloat(plain, 64)
	if err != nil {
		return 0, notNumber
	}
	return v, nil
}

// roundFormFields are the fields of the form that opens a round, in the order the form shows them.
var roundFormFields = []string{"question", "text", "unit", "min", "max", "number", "experiment", "params", "measure", "point", "votes", "seconds"}

// formWhole reads a whole number from a form ("" is 0, the field's default).
func formWhole(field, s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, &rooms.FieldError{Field: field, Err: rooms.ErrInvalid, Message: "a whole number is needed here, like 60"}
	}
	return n, nil
}

// firstInForm is the refusal a form shows when several of its fields are wrong: the one whose field
// comes first in the form (fields in order), so that the same mistakes always get the same
// answer, the one nearest the top of the form.
func firstInForm(refused []error, fields []string) error {
	at := func(err error) int {
		if i := slices.Index(fields, ErrorField(err)); i >= 0 {
			return i
		}
		return len(fields)
	}
	first := refused[0]
	for _, err := range refused[1:] {
		if at(err) < at(first) {
			first = err
		}
	}
	return first
}

// The actions follow, one per route: each answers "POST /rooms/:id/..." through roomAction, as
// the file's comment says, and routes.go lists them.

// OpenRound handles "POST /rooms/:id/rounds": the host opens a round, a number from the host's
// list, a question of the host's own, or (kind=handler) a handler round.
func (h *Handlers) OpenRound() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		if c.FormValue("kind") == string(rooms.KindHandler) {
			return h.openHandlerRound(ctx, c, who) // handlerround.go
		}
		in := roundIn{Experiment: c.FormValue("experiment"), Params: c.FormValue("params"), Measure: c.FormValue("measure"),
			Point: c.FormValue("point"), Text: c.FormValue("text"), Unit: c.FormValue("unit")}
		if number := c.FormValue("number"); number != "" {
			// One choice of the host's list: the experiment, its parameters, the count, its row.
			v, err := url.ParseQuery(number)
			if err != nil {
				return &rooms.FieldError{Field: "number", Err: rooms.ErrInvalid, Message: "pick a number from the list"}
			}
			in = roundIn{Experiment: v.Get("experiment"), Params: v.Get("params"), Measure: v.Get("measure"), Point: v.Get("point")}
		}
		if q := c.FormValue("question"); q != "custom" {
			in.Question = q
		}
		var refused []error
		for _, f := range []struct {
			field string
			dst   *int
		}{{"votes", &in.Votes}, {"seconds", &in.Seconds}} {
			n, err := formWhole(f.field, c.FormValue(f.field))
			if err != nil {
				refused = append(refused, err)
			}
			*f.dst = n
		}
		for _, bound := range []struct {
			field string
			dst   **float64
		}{{"min", &in.Min}, {"max", &in.Max}} {
			if raw := c.FormValue(bound.field); strings.TrimSpace(raw) != "" && in.Question == "" && in.Experiment == "" {
				v, err := formNumber(bound.field, raw)
				if err != nil {
					refused = append(refused, err)
					continue
				}
				*bound.dst = &v
			}
		}
		// The question is checked whole even when a bound did not parse, so that a wrong
		// field above the bounds is the one reported.
		q, err := h.checkedQuestion(ctx, in)
		if err == nil {
			_, err = q.Normalize()
		}
		if err != nil {
			refused = append(refused, err)
		}
		if len(refused) > 0 {
			return firstInForm(refused, roundFormFields)
		}
		_, err = h.rooms.OpenRoundWith(ctx, who, q, in.options())
		return err
	})
}

// Guess handles "POST /rooms/:id/rounds/:seq/guess": a member's guess, read as a person types a
// number (formNumber), with how sure they are.
func (h *Handlers) Guess() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		v, err := formNumber("value", c.FormValue("value"))
		if err != nil {
			return err
		}
		return h.rooms.GuessWith(ctx, who, seq, v, rooms.Confidence(c.FormValue("confidence")))
	})
}

// SecondVote handles "POST /rooms/:id/rounds/:seq/second-vote": the host opens the round's
// second vote.
func (h *Handlers) SecondVote() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		_, err = h.rooms.SecondVote(ctx, who, seq)
		return err
	})
}

// Timer handles "POST /rooms/:id/rounds/:seq/timer": the host pauses, resumes or extends the
// round's timer; an empty field leaves that part as it is.
func (h *Handlers) Timer() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		var in timerIn
		if p := c.FormValue("paused"); p != "" {
			paused := p == "true"
			in.Paused = &paused
		}
		if raw := c.FormValue("extend"); strings.TrimSpace(raw) != "" {
			n, err := formWhole("extend", raw)
			if err != nil {
				return err
			}
			in.Extend = &n
		}
		_, err = h.changeTimer(ctx, who, seq, in)
		return err
	})
}

// LockRound handles "POST /rooms/:id/rounds/:seq/lock": the host stops the round taking guesses.
func (h *Handlers) LockRound() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		_, err = h.rooms.LockRound(ctx, who, seq)
		return err
	})
}

// Reveal handles "POST /rooms/:id/rounds/:seq/reveal": the host reveals the round, with the
// value the host measured for a question of their own.
func (h *Handlers) Reveal() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		var measured *float64
		if raw := c.FormValue("measured"); raw != "" {
			v, err := formNumber("measured", raw)
			if err != nil {
				return err
			}
			measured = &v
		}
		_, err = h.rooms.Reveal(ctx, who, seq, h.measurer(measured))
		return err
	})
}

// SetNamesVisible handles "POST /rooms/:id/rounds/:seq/names": the host shows or hides who
// guessed what.
func (h *Handlers) SetNamesVisible() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		return h.rooms.SetNamesVisible(ctx, who, seq, c.FormValue("visible") == "true")
	})
}

// AddPin handles "POST /rooms/:id/pins": the host pins a notebook page, with a note, for the
// room.
func (h *Handlers) AddPin() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		_, err := h.rooms.AddPin(ctx, who, strings.TrimPrefix(c.FormValue("path"), h.base), c.FormValue("note"))
		return err
	})
}

// SetPinHidden handles "POST /rooms/:id/pins/:pin/hidden": the host hides a pin or shows it
// again.
func (h *Handlers) SetPinHidden() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		return h.rooms.SetPinHidden(ctx, who, c.Param("pin"), c.FormValue("hidden") == "true")
	})
}

// StartLab handles "POST /rooms/:id/lab": the host starts a run on the live lab that the room
// watches (lab.go).
func (h *Handlers) StartLab() echo.HandlerFunc { return h.roomAction(h.startLab) }

// Present handles "POST /rooms/:id/present": the host presents a notebook page to the room's
// followers, or stops presenting (an empty path).
func (h *Handlers) Present() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		return h.present(ctx, who, strings.TrimPrefix(c.FormValue("path"), h.base))
	})
}

// Kick handles "POST /rooms/:id/members/:member/kick". Removing a member cannot be undone (their
// name stays taken), so the host is asked first.
func (h *Handlers) Kick() echo.HandlerFunc {
	return h.roomAction(h.confirmFirst(h.hostQuestion(func(c echo.Context, st rooms.View) (string, error) {
		for _, m := range st.Roster {
			if m.ID == c.Param("member") {
				return pages.KickQuestion(m.Name), nil
			}
		}
		return "", rooms.ErrNotFound
	}), func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		return h.rooms.Kick(ctx, who, c.Param("member"))
	}))
}

// CloseRoom handles "POST /rooms/:id/close". A closed room stays closed (nobody answers or pins
// after it), so the host is asked first.
func (h *Handlers) CloseRoom() echo.HandlerFunc {
	return h.roomAction(h.confirmFirst(h.hostQuestion(func(echo.Context, rooms.View) (string, error) {
		return pages.CloseQuestion, nil
	}), func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		return h.rooms.CloseRoom(ctx, who)
	}))
}

// SetLocked handles "POST /rooms/:id/locked": the host locks the room to newcomers or opens it
// again.
func (h *Handlers) SetLocked() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		return h.rooms.SetLocked(ctx, who, c.FormValue("locked") == "true")
	})
}

// RotateCode handles "POST /rooms/:id/code": the host gives the room a new join code, so that
// the old one lets nobody else in.
func (h *Handlers) RotateCode() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		_, err := h.rooms.RotateCode(ctx, who)
		return err
	})
}

// NewHostLink handles "POST /rooms/:id/host-link": the host makes a link that opens the room as
// host on another device. A host link is shown on a page of its own, which the link's cookie
// lets a reload show again, so this answers a redirect there, with script or without.
func (h *Handlers) NewHostLink() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		token, expires, err := h.rooms.NewHostLink(ctx, who)
		if err != nil {
			return err
		}
		return h.showHostLink(c, who.Room.ID, token, expires, "")
	})
}

// RotateHostKey handles "POST /rooms/:id/host-key": the host replaces a leaked host key. Every
// other browser holding the old one stops being host, which cannot be undone, so the host is
// asked first; the answer is a fresh host link, as NewHostLink's.
func (h *Handlers) RotateHostKey() echo.HandlerFunc {
	return h.roomAction(h.confirmFirst(h.hostQuestion(func(echo.Context, rooms.View) (string, error) {
		return pages.HostKeyQuestion, nil
	}), func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		host, fresh, err := h.rooms.RotateHostKey(ctx, who)
		if err != nil {
			return err
		}
		h.setRoomCookies(c, who.Room.ID, HostCookie, fresh)
		token, expires, err := h.rooms.NewHostLink(ctx, host)
		if err != nil {
			return err
		}
		return h.showHostLink(c, who.Room.ID, token, expires, "replaced")
	}))
}

// Leave handles "POST /rooms/:id/leave": it hides the room bar from the notebook. The seat stays,
// and the notebook's pages offer the bar back in one line (Show), as does the room's page.
func (h *Handlers) Leave() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		h.hideCurrentRoom(c, who.Room.ID)
		return nil
	})
}

// Show handles "POST /rooms/:id/show": the room bar follows this room again on the notebook's
// pages, for anyone with a seat in it.
func (h *Handlers) Show() echo.HandlerFunc {
	return h.roomAction(func(ctx context.Context, c echo.Context, who rooms.Caller) error {
		if who.Role == rooms.Nobody {
			return rooms.ErrForbidden
		}
		h.setCurrentRoom(c, who.Room.ID)
		return nil
	})
}
