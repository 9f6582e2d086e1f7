package roomsweb

// The study rooms' JSON API: a host scripts a session with it, and the tests drive the whole flow
// through it without a browser. Every route that names a join code stands behind CodeGate, which
// reads the room once; a handler then resolves the caller's key from the Authorization header in
// that room (apiCaller) and leaves the question of who may do what to rooms.Service. Refusals
// become statuses in Refusal, and the web layer's error handler writes them in the API's
// {"errors":[...]} shape.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/present"
	"effectivelyonce/rooms"
)

// BodyLimit bounds the body of every room POST and PUT: the largest thing a body carries is
// a note of 140 characters or a question's parameters, so 8 KB is room to spare.
const BodyLimit = "8K"

// bearerKey is the key in "Authorization: Bearer KEY", or "" for an anonymous caller. A header,
// never the query string, so that no key reaches the request log or a proxy's.
func bearerKey(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "Bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// Refusal turns a refusal of rooms.Service into the status it deserves; the message a person
// reads comes from the rooms' FieldError when there is one. Anything else is left as it is, a
// fault of the server's that the error handler logs.
func Refusal(err error) error {
	status := 0
	msg := ""
	switch {
	case errors.Is(err, rooms.ErrUnavailable):
		// Logged once by the error handler, as every 5xx; the reader is told to come back shortly.
		return &web.Error{Status: http.StatusServiceUnavailable, RetryAfter: 5 * time.Second, Err: err,
			Msg: "The study rooms' database cannot be reached just now (it may be restarting)."}
	case errors.Is(err, rooms.ErrNotFound):
		status, msg = http.StatusNotFound, "no room with this code"
	case errors.Is(err, rooms.ErrTaken):
		status, msg = http.StatusConflict, "this name is taken in the room"
	case errors.Is(err, rooms.ErrRoomLocked):
		status, msg = http.StatusForbidden, "the room is locked to new members"
	case errors.Is(err, rooms.ErrKicked):
		status, msg = http.StatusForbidden, "the host removed this member from the room"
	case errors.Is(err, rooms.ErrForbidden):
		status, msg = http.StatusForbidden, "this key may not do that in this room"
	case errors.Is(err, rooms.ErrRoundState):
		status, msg = http.StatusConflict, "the round is not open to this any more"
	case errors.Is(err, rooms.ErrInvalid):
		status, msg = http.StatusBadRequest, "a value is not valid"
	case errors.Is(err, rooms.ErrLimit):
		status, msg = http.StatusConflict, err.Error()
	case errors.Is(err, rooms.ErrRoomClosed):
		status, msg = http.StatusGone, "the room is closed; its host can still export it"
	default:
		return err
	}
	var fe *rooms.FieldError
	if errors.As(err, &fe) {
		msg = fe.Message
	}
	return &web.Error{Status: status, Msg: msg, Err: err}
}

// ErrorField names the field a refusal of the rooms concerns, for the {"field","message"} entry
// the error handler writes (the site wires it into web.Errors.FieldOf).
func ErrorField(err error) string {
	var fe *rooms.FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	var le *rooms.LimitError
	if errors.As(err, &le) {
		return le.Field
	}
	return ""
}

// APICreate handles "POST /api/rooms": 201 with the join code and the host key. The key is
// in this body only, never in a URL, since URLs end up in logs and browser history: host_url
// carries a single-use token for a browser instead (see hostlink.go).
func (h *Handlers) APICreate() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Title string `json:"title"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if err := h.admitRoom(c.Request().Context(), h.creates, "Too many study rooms created from your network address this hour."); err != nil {
			return err
		}
		cr, err := h.rooms.CreateRoom(c.Request().Context(), in.Title)
		if err != nil {
			return h.createRefusal(err)
		}
		base := h.base
		c.Response().Header().Set("Cache-Control", "no-store") // the answer holds the host key
		return c.JSON(http.StatusCreated, map[string]string{
			"code":     cr.Room.Code,
			"join_url": h.origin(c.Request()) + base + "/j/" + cr.Room.Code,
			"host_url": h.hostLink(c.Request(), cr.Room.ID, cr.LinkToken),
			"host_key": cr.HostKey,
		})
	}
}

// createRefusal is Refusal for opening a room: when the instance already has its most open
// rooms, the host is not at fault and a place comes free soon (a room nobody joins closes after
// UnjoinedClose), so the answer is a 503 that says when to try again and why.
func (h *Handlers) createRefusal(err error) error {
	var le *rooms.LimitError
	if !errors.As(err, &le) || le.Field != "rooms" {
		return Refusal(err)
	}
	rc := h.rooms.Config()
	return &web.Error{Status: http.StatusServiceUnavailable, RetryAfter: time.Minute, Err: err,
		Msg: fmt.Sprintf("This instance already has %s open, the most it allows, so yours cannot start just now. A room nobody joins closes %s after it was last used, so a place comes free soon: try again in a minute. If none does, ask whoever runs the instance to raise OPEN_ROOMS.",
			roomsWord(le.Max), durationWords(rc.UnjoinedClose))}
}

// roomsWord writes a number of study rooms: "1 study room", "1,200 study rooms".
func roomsWord(n int) string {
	if n == 1 {
		return "1 study room"
	}
	return experiments.Thousands(int64(n)) + " study rooms"
}

// durationWords writes a lifetime for a sentence: "an hour", "90 minutes", "2 hours".
func durationWords(d time.Duration) string {
	switch {
	case d == time.Hour:
		return "an hour"
	case d%time.Hour == 0:
		return fmt.Sprintf("%d hours", d/time.Hour)
	default:
		return fmt.Sprintf("%d minutes", max(1, d/time.Minute))
	}
}

// APIJoin handles "POST /api/rooms/:code/members": 201 with the new member's key.
func (h *Handlers) APIJoin() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Name string `json:"name"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if err := h.admitRoom(c.Request().Context(), h.joins, "Too many joins from your network address in the last minute."); err != nil {
			return err
		}
		ctx := c.Request().Context()
		r, found := h.rooms.RoomByCode(ctx, c.Param("code"))
		j, err := h.join(ctx, r, found, in.Name)
		if err != nil {
			return Refusal(err)
		}
		return c.JSON(http.StatusCreated, map[string]string{"member_key": j.MemberKey, "id": j.Member.ID})
	}
}

// APIKick handles "DELETE /api/rooms/:code/members/:member" (host): the member's key stops
// working at once.
func (h *Handlers) APIKick() echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := h.rooms.Kick(c.Request().Context(), h.apiCaller(c), c.Param("member")); err != nil {
			return Refusal(err)
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// APILocked handles "PUT /api/rooms/:code/locked" (host) with {"locked": true|false}:
// a locked room seats nobody new.
func (h *Handlers) APILocked() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Locked bool `json:"locked"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if err := h.rooms.SetLocked(c.Request().Context(), h.apiCaller(c), in.Locked); err != nil {
			return Refusal(err)
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// APIState handles "GET /api/rooms/:code": the room as the caller's key lets them see it.
func (h *Handlers) APIState() echo.HandlerFunc {
	return func(c echo.Context) error {
		v, err := h.rooms.State(c.Request().Context(), h.apiCaller(c), nil)
		if err != nil {
			return Refusal(err)
		}
		return c.JSON(http.StatusOK, roomJSONOf(v))
	}
}

// APIRoundOpen handles "POST /api/rooms/:code/rounds" (host): 201 with the round's number. Beside
// the question, {"votes": 2} makes it a peer-instruction round and {"seconds": N} (15 to 600)
// gives each vote a countdown; {"kind": "handler"} opens a handler round (see openIn). A handler
// round that no handler can survive opens all the same, as the page's form does once asked, and
// the answer's "warning" says why, as the form's question would have.
func (h *Handlers) APIRoundOpen() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in openIn
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		q, err := h.question(c.Request().Context(), in)
		if err != nil {
			return err
		}
		rd, err := h.rooms.OpenRoundWith(c.Request().Context(), h.apiCaller(c), q, in.options())
		if err != nil {
			return Refusal(err)
		}
		out := map[string]any{"seq": rd.Seq}
		if q.Kind == rooms.KindHandler {
			if n, ok := h.noneSurvive(q.Params); ok {
				out["warning"] = "no handler survives these parameters: " + n.Why() + ", and " + n.Late() + ", whatever the handler does (block 4)"
			}
		}
		return c.JSON(http.StatusCreated, out)
	}
}

// roundSeq reads the round number from the path; a number that is no round's is a 404 naming
// the path's "seq".
func roundSeq(c echo.Context) (int, error) {
	n, err := strconv.Atoi(c.Param("seq"))
	if err != nil || n < 1 {
		return 0, Refusal(&rooms.FieldError{Field: "seq", Message: "rounds are numbered from 1", Err: rooms.ErrNotFound})
	}
	return n, nil
}

// APIGuess handles "PUT /api/rooms/:code/rounds/:seq/guess" (member) with {"value"} and, if the
// member says, {"confidence": "low"|"medium"|"high"}: a member may change their guess until the
// round is locked, its vote is over or its countdown has run out, then 409.
func (h *Handlers) APIGuess() echo.HandlerFunc {
	return func(c echo.Context) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		var in struct {
			Value      *float64 `json:"value"`
			Confidence string   `json:"confidence"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if in.Value == nil { // absent or null
			return Refusal(&rooms.FieldError{Field: "value", Err: rooms.ErrInvalid, Message: "a guess needs a value: a number, like 1200 or 0.5"})
		}
		if err := h.rooms.GuessWith(c.Request().Context(), h.apiCaller(c), seq, *in.Value, rooms.Confidence(in.Confidence)); err != nil {
			return Refusal(err)
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// APIRoundLock handles "POST /api/rooms/:code/rounds/:seq/lock" (host): no more guesses.
func (h *Handlers) APIRoundLock() echo.HandlerFunc {
	return func(c echo.Context) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		rd, err := h.rooms.LockRound(c.Request().Context(), h.apiCaller(c), seq)
		if err != nil {
			return Refusal(err)
		}
		return c.JSON(http.StatusOK, map[string]any{"seq": rd.Seq, "state": rd.State})
	}
}

// APIRoundReveal handles "POST /api/rooms/:code/rounds/:seq/reveal" (host): it locks the round
// if it is open, measures the truth on the server, and answers the revealed round. A custom
// question has no experiment, so its host sends the true value: {"measured": 42}.
func (h *Handlers) APIRoundReveal() echo.HandlerFunc {
	return func(c echo.Context) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		var in struct {
			Measured *float64 `json:"measured"`
		}
		if err := readJSON(c.Request(), &in, true); err != nil {
			return err
		}
		ctx, host := c.Request().Context(), h.apiCaller(c)
		if _, err := h.rooms.Reveal(ctx, host, seq, h.measurer(in.Measured)); err != nil {
			return Refusal(err)
		}
		v, err := h.rooms.State(ctx, host, nil)
		if err != nil {
			return Refusal(err)
		}
		for _, rd := range v.Rounds {
			if rd.Seq == seq && rd.Result != nil {
				return c.JSON(http.StatusOK, resultJSONOf(rd.Result))
			}
			if rd.Seq == seq && rd.Handler != nil {
				return c.JSON(http.StatusOK, handlerJSONOf(rd.Handler))
			}
		}
		return Refusal(&rooms.FieldError{Field: "seq", Message: "the room has no round with this number", Err: rooms.ErrNotFound})
	}
}

// measurer measures a round's truth on the server, or, for a custom question, takes the value
// its host sent; a handler round's reveal checks its reference handler instead (checker).
func (h *Handlers) measurer(measured *float64) rooms.Measurer {
	return &checker{h: h, Measurer: rooms.MeasureFunc(func(ctx context.Context, q rooms.Question) (float64, error) {
		if q.Kind == rooms.KindCustom {
			if measured == nil {
				return 0, &rooms.FieldError{Field: "measured", Message: "a custom question's true value comes from its host", Err: rooms.ErrInvalid}
			}
			return *measured, nil
		}
		return h.measure(ctx, q)
	})}
}

// APIPin handles "POST /api/rooms/:code/pins" (member) with {"path","note"}: 201 with the pin.
func (h *Handlers) APIPin() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Path string `json:"path"`
			Note string `json:"note"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		p, err := h.rooms.AddPin(c.Request().Context(), h.apiCaller(c), in.Path, in.Note)
		if err != nil {
			return Refusal(err)
		}
		return c.JSON(http.StatusCreated, map[string]string{"id": p.ID, "path": p.Path, "note": p.Note})
	}
}

// APIPresent handles "POST /api/rooms/:code/present" (host) with {"path"}: the page followers
// open; an empty path stops presenting.
func (h *Handlers) APIPresent() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Path string `json:"path"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if err := h.present(c.Request().Context(), h.apiCaller(c), in.Path); err != nil {
			return Refusal(err)
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// APIExport handles "GET /api/rooms/:code/export" (host), as JSON or, with format=csv, as
// one CSV table; both are downloads named after the room's code.
func (h *Handlers) APIExport() echo.HandlerFunc {
	return func(c echo.Context) error {
		return h.writeExport(c, h.apiCaller(c))
	}
}

// Export handles "GET /rooms/:id/export": the same download for the host's browser.
func (h *Handlers) Export() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		r, err := h.rooms.RoomByID(ctx, c.Param("id"))
		if err != nil {
			return Refusal(err)
		}
		host, _ := h.rooms.Identify(ctx, r, roomKey(c, r.ID)) // a refusal travels in host
		return h.writeExport(c, host)
	}
}

// writeExport answers the export for host, after checking the format asked for. A prediction's
// question reaches the export in the predictions page's words, which the rooms do not hold.
func (h *Handlers) writeExport(c echo.Context, host rooms.Caller) error {
	format := c.QueryParam("format")
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "csv" {
		return &web.Error{Status: http.StatusBadRequest, Msg: "format must be json or csv"}
	}
	ex, err := h.rooms.Export(c.Request().Context(), host)
	if err != nil {
		return Refusal(err)
	}
	for i, rd := range ex.Rounds {
		if rd.Question.Kind == rooms.KindPrediction {
			ex.Rounds[i].Text = h.askedTitle(rd.Question.Prediction)
		}
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="room-`+ex.Code+`.`+format+`"`)
	c.Response().Header().Set("Cache-Control", "no-store")
	ex.Version = present.Version()
	if format == "json" {
		return c.JSON(http.StatusOK, ex)
	}
	// The version as a comment line above the table, as the experiments' CSV carries it.
	buf := bytes.NewBufferString("# version=" + present.Version() + "\r\n")
	if err := ex.WriteCSV(buf); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// CodeGate stands before every route that takes a join code: the code is looked up by
// lookUpCode, so that an address over its allowance is refused before anyone knows whether its
// code is right, and a code that finds no room is answered here. The room it finds is the one the
// request acts in (see apiCaller): the request reads its room this once.
func (h *Handlers) CodeGate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r, err := h.lookUpCode(c.Request().Context(), c.Param("code"))
		if err != nil {
			return Refusal(err)
		}
		c.Set(gateRoom, r)
		return next(c)
	}
}

// gateRoom is where CodeGate leaves the room it found, in the request's echo.Context.
const gateRoom = "roomsweb.room"

// apiCaller is who makes an API request: the bearer key resolved in the room CodeGate found. A key
// the rules refuse travels in the Caller, which the action answers after checking its own input.
// A route without CodeGate has no room, and its every caller is refused as forbidden.
func (h *Handlers) apiCaller(c echo.Context) rooms.Caller {
	r, _ := c.Get(gateRoom).(rooms.Room)
	who, _ := h.rooms.Identify(c.Request().Context(), r, bearerKey(c.Request()))
	return who
}

// lookUpCode finds the room of a join code as typed, charged to the client's join allowance. The
// charge is taken before the look-up and given back when the code finds its room: a code is short
// enough to guess and a hit tells its title, so an address over its allowance must get the same
// 429 for a right code as for a wrong one (an answer that differed would let it go on testing
// codes at server speed), and concurrent guesses must each find a token to take.
func (h *Handlers) lookUpCode(ctx context.Context, code string) (rooms.Room, error) {
	if err := h.admitRoom(ctx, h.joins, "Too many join codes tried from your network address in the last minute."); err != nil {
		return rooms.Room{}, err
	}
	r, err := h.rooms.RoomByCode(ctx, code)
	if !codeMissed(err) {
		h.joins.Refund(web.ClientOf(ctx), 1)
	}
	return r, err
}

// codeMissed tells a join code that finds no room (or is no code at all) from every other answer.
func codeMissed(err error) bool {
	var fe *rooms.FieldError
	return errors.As(err, &fe) && fe.Field == "code" && (errors.Is(err, rooms.ErrNotFound) || errors.Is(err, rooms.ErrInvalid))
}

// admitRoom charges one room creation, join or code look-up to the client of ctx; a refusal is a
// 429 that says when to try again. A join is charged before its code is looked up, and never given
// back, so guessing codes costs the same allowance as joining.
func (h *Handlers) admitRoom(ctx context.Context, l *web.RateLimiter[netip.Addr], msg string) error {
	ok, wait := l.Allow(web.ClientOf(ctx))
	if ok {
		return nil
	}
	h.rejected.WithLabelValues("rooms_rate_limited").Inc()
	return &web.Error{Status: http.StatusTooManyRequests, RetryAfter: wait, Msg: msg}
}

// ChangeBurst is how many changes one key may make at once: a sixth of a minute's allowance
// (10 of the default 60), enough for a host's run of clicks or a member's second thoughts on a
// guess, while a script hammering one key is held to the rate.
func ChangeBurst(perMinute int) int { return max(1, perMinute/6) }

// admitChange charges one change to the room key that makes it, before anything is looked up:
// every change redraws every stream of the room, so one key sending hundreds a second would slow
// the whole instance. A request without a key changes nothing (the rules refuse it) and is not
// charged here.
func (h *Handlers) admitChange(ctx context.Context, key string) error {
	if key == "" {
		return nil
	}
	ok, wait := h.changes.Allow(rooms.HashKey(key))
	if ok {
		return nil
	}
	h.rejected.WithLabelValues("room_changes_limited").Inc()
	return &web.Error{Status: http.StatusTooManyRequests, RetryAfter: wait,
		Msg: fmt.Sprintf("Too many changes with this room key in a short time (at most %d a minute).", h.changesPerMinute)}
}

// ChargeChange charges the change an API route makes to the caller's bearer key (admitChange),
// and gives it back when the change is refused for want of permission (refundRefused).
func (h *Handlers) ChargeChange(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		key := bearerKey(c.Request())
		if err := h.admitChange(c.Request().Context(), key); err != nil {
			return err
		}
		err := next(c)
		h.refundRefused(key, err)
		return err
	}
}

// refundRefused gives back the change charged to key when err refuses it for want of permission
// (a member trying a host's action, a removed member's key): such a refusal changes nothing and
// redraws no stream, which is all the allowance guards, while charging it let a member who tried
// the host's buttons a few times find their own guesses refused with 429.
func (h *Handlers) refundRefused(key string, err error) {
	if key != "" && (errors.Is(err, rooms.ErrForbidden) || errors.Is(err, rooms.ErrKicked)) {
		h.changes.Refund(rooms.HashKey(key), 1)
	}
}
