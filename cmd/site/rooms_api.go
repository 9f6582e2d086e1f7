package main

// The study rooms' JSON API: a host scripts a session with it, and the tests drive the whole flow
// through it without a browser. Every handler reads the caller's key from the Authorization
// header and leaves the question of who may do what to rooms.Service; refusals become statuses in
// roomError, and handleError writes them in the API's {"errors":[...]} shape.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/rooms"
)

// roomBodyLimit bounds the body of every room POST and PUT: the largest thing a body carries is
// a note of 140 characters or a question's parameters, so 8 KB is room to spare.
const roomBodyLimit = "8K"

// bearerKey is the key in "Authorization: Bearer KEY", or "" for an anonymous caller. A header,
// never the query string, so that no key reaches the request log or a proxy's.
func bearerKey(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "Bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// readJSON decodes a request body into v, refusing unknown fields so that a typo in a script is
// an error rather than a silent default. An empty body is allowed when optional is set.
func readJSON(r *http.Request, v any, optional bool) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil || (optional && errors.Is(err, io.EOF)) {
		return nil
	}
	var he *echo.HTTPError
	if errors.As(err, &he) { // the body limit, which answers 413 itself
		return he
	}
	return &httpError{Status: http.StatusBadRequest, Msg: "the body is not the JSON object this route takes", Err: err}
}

// roomError turns a refusal of rooms.Service into the status it deserves; the message a person
// reads comes from the rooms' FieldError when there is one. Anything else is left as it is, a
// fault of the server's that handleError logs.
func roomError(err error) error {
	status := 0
	msg := ""
	switch {
	case errors.Is(err, rooms.ErrNotFound):
		status, msg = http.StatusNotFound, "no room with this code (or no such round)"
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
	return &httpError{Status: status, Msg: msg, Err: err}
}

// errorField names the field a refusal concerns, for the {"field","message"} entry.
func errorField(err error) string {
	var fe *rooms.FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	var le *rooms.LimitError
	if errors.As(err, &le) {
		return le.Field
	}
	if errors.Is(err, rooms.ErrNotFound) {
		return "code"
	}
	return ""
}

// handleRoomCreate handles "POST /api/rooms": 201 with the join code and the host key. The key is
// in this body only, never in a URL, since URLs end up in logs and browser history: host_url
// carries a single-use token for a browser instead (see rooms_hostlink.go).
func (s *server) handleRoomCreate() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Title string `json:"title"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if err := s.admitRoom(c.Request().Context(), s.roomCreates, "Too many study rooms created from your network address this hour."); err != nil {
			return err
		}
		cr, err := s.rooms.CreateRoom(c.Request().Context(), in.Title)
		if err != nil {
			return roomError(err)
		}
		base := s.cfg.BasePath
		c.Response().Header().Set("Cache-Control", "no-store") // the answer holds the host key
		return c.JSON(http.StatusCreated, map[string]string{
			"code":     cr.Room.Code,
			"join_url": s.origin(c.Request()) + base + "/j/" + cr.Room.Code,
			"host_url": s.hostLink(c.Request(), cr.Room.ID, cr.LinkToken),
			"host_key": cr.HostKey,
		})
	}
}

// handleRoomJoin handles "POST /api/rooms/:code/members": 201 with the new member's key.
func (s *server) handleRoomJoin() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Name string `json:"name"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if err := s.admitRoom(c.Request().Context(), s.roomJoins, "Too many joins from your network address in the last minute."); err != nil {
			return err
		}
		j, err := s.rooms.Join(c.Request().Context(), c.Param("code"), in.Name)
		if err != nil {
			return roomError(err)
		}
		return c.JSON(http.StatusCreated, map[string]string{"member_key": j.MemberKey, "id": j.Member.ID})
	}
}

// handleRoomKick handles "DELETE /api/rooms/:code/members/:id" (host): the member's key stops
// working at once.
func (s *server) handleRoomKick() echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := s.rooms.Kick(c.Request().Context(), c.Param("code"), bearerKey(c.Request()), c.Param("id")); err != nil {
			return roomError(err)
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// handleRoomLocked handles "PUT /api/rooms/:code/locked" (host) with {"locked": true|false}:
// a locked room seats nobody new.
func (s *server) handleRoomLocked() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Locked bool `json:"locked"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if err := s.rooms.SetLocked(c.Request().Context(), c.Param("code"), bearerKey(c.Request()), in.Locked); err != nil {
			return roomError(err)
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// handleRoomState handles "GET /api/rooms/:code": the room as the caller's key lets them see it.
func (s *server) handleRoomState() echo.HandlerFunc {
	return func(c echo.Context) error {
		v, err := s.rooms.State(c.Request().Context(), c.Param("code"), bearerKey(c.Request()), nil)
		if err != nil {
			return roomError(err)
		}
		return c.JSON(http.StatusOK, roomJSONOf(v))
	}
}

// roundIn is what opens a round, from the API's JSON or a room page's form. It names one of
// the five questions ({"question":"q1"}), a number an experiment reports ({"experiment","params",
// "measure","point"}: params as a permalink's query string, measure a count's name and point its
// row, see pages.Reported), or a custom question ({"text","unit","min","max"}).
type roundIn struct {
	Question   string   `json:"question"`
	Experiment string   `json:"experiment"`
	Params     string   `json:"params"`
	Measure    string   `json:"measure"`
	Point      string   `json:"point"`
	Text       string   `json:"text"`
	Unit       string   `json:"unit"`
	Min        *float64 `json:"min"`
	Max        *float64 `json:"max"`
}

// questionOf reads a round's question; a measure whose experiment or parameters are wrong is
// refused now rather than at the reveal, when the room is waiting for the answer.
func questionOf(in roundIn) (rooms.Question, error) {
	q := rooms.Question{Unit: in.Unit}
	if in.Min != nil {
		q.Min = *in.Min
	}
	if in.Max != nil {
		q.Max = *in.Max
	}
	switch {
	case in.Question != "":
		q.Kind, q.Prediction = rooms.KindPrediction, in.Question
	case in.Experiment != "":
		q.Kind, q.Experiment, q.Params, q.Measure, q.Point = rooms.KindMeasure, in.Experiment, in.Params, in.Measure, in.Point
		if _, _, err := parseMeasured(q); err != nil {
			return q, err
		}
	default:
		q.Kind, q.Text = rooms.KindCustom, in.Text
	}
	return q, nil
}

// checkedQuestion reads a round's question and, for an experiment's number, finds it now: a
// number the experiment does not report (or a row left unnamed) would otherwise surface only at
// the reveal, with the round locked and the room waiting. The question is worded here, once, with
// the number, its row, the experiment and its parameters, so members read what they guess. The
// run is cached, so the reveal costs nothing more.
func (s *server) checkedQuestion(ctx context.Context, in roundIn) (rooms.Question, error) {
	q, err := questionOf(in)
	if err != nil || q.Kind != rooms.KindMeasure {
		return q, err
	}
	e, p, err := parseMeasured(q)
	if err != nil {
		return q, err
	}
	if err := s.admitRun(ctx, e, p); err != nil {
		return q, err
	}
	r, err := s.reported(ctx, e, p, q.Measure, q.Point)
	if err != nil {
		return q, roomError(err)
	}
	q.Point, q.Text = r.Point, r.Question(e, p)
	if q.Unit == "" {
		q.Unit = r.Unit
	}
	return q, nil
}

// handleRoundOpen handles "POST /api/rooms/:code/rounds" (host): 201 with the round's number.
func (s *server) handleRoundOpen() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in roundIn
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		q, err := s.checkedQuestion(c.Request().Context(), in)
		if err != nil {
			return err
		}
		rd, err := s.rooms.OpenRound(c.Request().Context(), c.Param("code"), bearerKey(c.Request()), q)
		if err != nil {
			return roomError(err)
		}
		return c.JSON(http.StatusCreated, map[string]int{"seq": rd.Seq})
	}
}

// roundSeq reads the round number from the path; a number that is no round's is a 404.
func roundSeq(c echo.Context) (int, error) {
	n, err := strconv.Atoi(c.Param("seq"))
	if err != nil || n < 1 {
		return 0, &httpError{Status: http.StatusNotFound, Msg: "rounds are numbered from 1"}
	}
	return n, nil
}

// handleGuess handles "PUT /api/rooms/:code/rounds/:seq/guess" (member) with {"value"}: a member
// may change their guess until the round is locked, then 409.
func (s *server) handleGuess() echo.HandlerFunc {
	return func(c echo.Context) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		var in struct {
			Value *float64 `json:"value"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if in.Value == nil {
			return &httpError{Status: http.StatusBadRequest, Msg: "a guess needs a value"}
		}
		if err := s.rooms.Guess(c.Request().Context(), c.Param("code"), bearerKey(c.Request()), seq, *in.Value); err != nil {
			return roomError(err)
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// handleRoundLock handles "POST /api/rooms/:code/rounds/:seq/lock" (host): no more guesses.
func (s *server) handleRoundLock() echo.HandlerFunc {
	return func(c echo.Context) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		rd, err := s.rooms.LockRound(c.Request().Context(), c.Param("code"), bearerKey(c.Request()), seq)
		if err != nil {
			return roomError(err)
		}
		return c.JSON(http.StatusOK, map[string]any{"seq": rd.Seq, "state": rd.State})
	}
}

// handleRoundReveal handles "POST /api/rooms/:code/rounds/:seq/reveal" (host): it locks the round
// if it is open, measures the truth on the server, and answers the revealed round. A custom
// question has no experiment, so its host sends the true value: {"measured": 42}.
func (s *server) handleRoundReveal() echo.HandlerFunc {
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
		ctx, code, key := c.Request().Context(), c.Param("code"), bearerKey(c.Request())
		if _, err := s.rooms.Reveal(ctx, code, key, seq, s.measurer(in.Measured)); err != nil {
			return roomError(err)
		}
		v, err := s.rooms.State(ctx, code, key, nil)
		if err != nil {
			return roomError(err)
		}
		for _, rd := range v.Rounds {
			if rd.Seq == seq && rd.Result != nil {
				return c.JSON(http.StatusOK, resultJSONOf(rd.Result))
			}
		}
		return roomError(rooms.ErrNotFound)
	}
}

// measurer measures a round's truth on the server, or, for a custom question, takes the value
// its host sent.
func (s *server) measurer(measured *float64) rooms.Measurer {
	return rooms.MeasureFunc(func(ctx context.Context, q rooms.Question) (float64, error) {
		if q.Kind == rooms.KindCustom {
			if measured == nil {
				return 0, &rooms.FieldError{Field: "measured", Message: "a custom question's true value comes from its host", Err: rooms.ErrInvalid}
			}
			return *measured, nil
		}
		return s.measure(ctx, q)
	})
}

// handlePin handles "POST /api/rooms/:code/pins" (member) with {"path","note"}: 201 with the pin.
func (s *server) handlePin() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Path string `json:"path"`
			Note string `json:"note"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		p, err := s.rooms.AddPin(c.Request().Context(), c.Param("code"), bearerKey(c.Request()), in.Path, in.Note)
		if err != nil {
			return roomError(err)
		}
		return c.JSON(http.StatusCreated, map[string]string{"id": p.ID, "path": p.Path, "note": p.Note})
	}
}

// handlePresent handles "POST /api/rooms/:code/present" (host) with {"path"}: the page followers
// open; an empty path stops presenting.
func (s *server) handlePresent() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Path string `json:"path"`
		}
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		if err := s.present(c.Request().Context(), c.Param("code"), bearerKey(c.Request()), in.Path); err != nil {
			return roomError(err)
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// handleAPIHostLink handles "POST /api/rooms/:code/host-link" (host): 201 with a new host link for a
// browser, which works once within rooms.HostLinkTTL and replaces an unused earlier one.
func (s *server) handleAPIHostLink() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		token, expires, err := s.rooms.NewHostLink(ctx, c.Param("code"), bearerKey(c.Request()))
		if err != nil {
			return roomError(err)
		}
		r, err := s.rooms.RoomByCode(ctx, c.Param("code"))
		if err != nil {
			return roomError(err)
		}
		c.Response().Header().Set("Cache-Control", "no-store") // the answer holds a host link
		return c.JSON(http.StatusCreated, map[string]string{"host_url": s.hostLink(c.Request(), r.ID, token),
			"expires": expires.UTC().Format(time.RFC3339)})
	}
}

// handleRoomExport handles "GET /api/rooms/:code/export" (host), as JSON or, with format=csv, as
// one CSV table; both are downloads named after the room's code.
func (s *server) handleRoomExport() echo.HandlerFunc {
	return func(c echo.Context) error {
		return s.writeExport(c, c.Param("code"), bearerKey(c.Request()))
	}
}

// handleRoomPageExport handles "GET /rooms/:id/export": the same download for the host's browser.
func (s *server) handleRoomPageExport() echo.HandlerFunc {
	return func(c echo.Context) error {
		r, err := s.rooms.RoomByID(c.Request().Context(), c.Param("id"))
		if err != nil {
			return roomError(err)
		}
		return s.writeExport(c, r.Code, s.roomKey(c, r.ID))
	}
}

func (s *server) writeExport(c echo.Context, code, key string) error {
	format := c.QueryParam("format")
	if format == "" {
		format = "json"
	}
	if format != "json" && format != "csv" {
		return &httpError{Status: http.StatusBadRequest, Msg: "format must be json or csv"}
	}
	ex, err := s.rooms.Export(c.Request().Context(), code, key)
	if err != nil {
		return roomError(err)
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="room-`+ex.Code+`.`+format+`"`)
	c.Response().Header().Set("Cache-Control", "no-store")
	ex.Version = notebookVersion()
	if format == "json" {
		return c.JSON(http.StatusOK, ex)
	}
	// The version as a comment line above the table, as the experiments' CSV carries it.
	buf := bytes.NewBufferString("# version=" + notebookVersion() + "\r\n")
	if err := ex.WriteCSV(buf); err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

// parseMeasured finds a measure question's experiment and reads its stored parameters with the
// experiment's own spec, as a permalink's would be.
func parseMeasured(q rooms.Question) (*experiments.Experiment, any, error) {
	e, ok := experiments.Lookup(q.Experiment)
	if !ok {
		return nil, nil, &httpError{Status: http.StatusBadRequest, Msg: "no experiment of this name; GET /api/experiments lists them",
			Err: &rooms.FieldError{Field: "experiment", Message: "no experiment of this name", Err: rooms.ErrInvalid}}
	}
	vals, problems := parseQuery(q.Params)
	if len(problems) > 0 {
		return nil, nil, &httpError{Status: http.StatusBadRequest, Msg: "params: " + problems[0].Message,
			Err: &rooms.FieldError{Field: "params", Message: problems[0].Message, Err: rooms.ErrInvalid}}
	}
	p, err := e.Parse(vals)
	if err != nil {
		var fe experiments.FieldErrors
		if errors.As(err, &fe) && len(fe) > 0 {
			return nil, nil, &httpError{Status: http.StatusBadRequest, Msg: "params: " + fe[0].Field + ": " + fe[0].Message,
				Err: &rooms.FieldError{Field: "params", Message: fe[0].Field + ": " + fe[0].Message, Err: rooms.ErrInvalid}}
		}
		return nil, nil, err
	}
	return e, p, nil
}

// chargeMisses charges a join code that finds no room to the client's join allowance, on every
// route that takes a code: a code is short enough to guess, and a hit tells its title, so trying
// codes costs the same whichever route is used. A code that finds its room costs nothing here.
func (s *server) chargeMisses(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		var fe *rooms.FieldError
		miss := errors.Is(err, rooms.ErrNotFound) || (errors.As(err, &fe) && fe.Field == "code" && errors.Is(err, rooms.ErrInvalid))
		if miss {
			if lerr := s.admitRoom(c.Request().Context(), s.roomJoins, "Too many join codes tried from your network address in the last minute."); lerr != nil {
				return lerr
			}
		}
		return err
	}
}

// admitRoom charges one room creation or join to the client of ctx; a refusal is a 429 that says
// when to try again. A join is charged before its code is looked up, so guessing codes costs the
// same allowance as joining.
func (s *server) admitRoom(ctx context.Context, l *rateLimiter, msg string) error {
	ok, wait := l.allow(clientOf(ctx))
	if ok {
		return nil
	}
	s.metrics.rejected.WithLabelValues("rooms_rate_limited").Inc()
	return &httpError{Status: http.StatusTooManyRequests, RetryAfter: wait, Msg: msg}
}
