package roomsweb

// The API's part of a round's two votes and countdown: the second vote, the timer's changes, and
// a body's wrong types refused with their field named.

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
)

// APISecondVote handles "POST /api/rooms/:code/rounds/:seq/second-vote" (host): the first vote
// of a two-vote round takes nothing more, and members answer again (its countdown, if it has
// one, starts afresh). 409 for a one-vote round or one whose second vote is over.
func (h *Handlers) APISecondVote() echo.HandlerFunc {
	return func(c echo.Context) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		rd, err := h.rooms.SecondVote(c.Request().Context(), h.apiCaller(c), seq)
		if err != nil {
			return Refusal(err)
		}
		return c.JSON(http.StatusOK, timerJSONOf(rd, h.rooms.Config().Now()))
	}
}

// timerIn is a change to a round's countdown: pause or resume it, give it seconds more, or both
// (the extension first). Extend is nil when not given, so that an extension of 0 is refused as
// out of range, naming "extend", rather than read as no change.
type timerIn struct {
	Paused *bool `json:"paused"`
	Extend *int  `json:"extend"`
}

// APITimer handles "POST /api/rooms/:code/rounds/:seq/timer" (host) with {"paused": true|false}
// and/or {"extend": N}: the countdown stands still (guesses are still taken) or runs again, or
// has N seconds more (1 to 600, what is left staying within 600). 409 once the time is up.
func (h *Handlers) APITimer() echo.HandlerFunc {
	return func(c echo.Context) error {
		seq, err := roundSeq(c)
		if err != nil {
			return err
		}
		var in timerIn
		if err := readJSON(c.Request(), &in, false); err != nil {
			return err
		}
		rd, err := h.changeTimer(c.Request().Context(), h.apiCaller(c), seq, in)
		if err != nil {
			return Refusal(err)
		}
		return c.JSON(http.StatusOK, timerJSONOf(rd, h.rooms.Config().Now()))
	}
}

// changeTimer makes the changes of in, for the API and the room page alike.
func (h *Handlers) changeTimer(ctx context.Context, host rooms.Caller, seq int, in timerIn) (rooms.Round, error) {
	if in.Paused == nil && in.Extend == nil {
		return rooms.Round{}, &rooms.FieldError{Field: "paused", Err: rooms.ErrInvalid,
			Message: `a change to the countdown says {"paused": true|false} or {"extend": seconds}`}
	}
	var rd rooms.Round
	var err error
	if in.Extend != nil {
		if rd, err = h.rooms.ExtendTimer(ctx, host, seq, *in.Extend); err != nil {
			return rd, err
		}
	}
	if in.Paused != nil {
		rd, err = h.rooms.SetPaused(ctx, host, seq, *in.Paused)
	}
	return rd, err
}

// timeFormat writes the server's instants as the rooms' views do: RFC 3339 to the millisecond.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

// TimerJSON is a round's votes and countdown after the host changed them.
type TimerJSON struct {
	Seq         int      `json:"seq"`
	State       string   `json:"state"`
	Vote        int      `json:"vote"`
	Seconds     int      `json:"seconds,omitempty"`
	Deadline    string   `json:"deadline,omitempty"`
	Paused      bool     `json:"paused,omitempty"`
	LeftSeconds *float64 `json:"left_seconds,omitempty"`
}

func timerJSONOf(rd rooms.Round, now time.Time) TimerJSON {
	out := TimerJSON{Seq: rd.Seq, State: string(rd.StateAt(now)), Vote: rd.Vote, Seconds: rd.Seconds, Paused: rd.Paused()}
	if rd.Timed() {
		left := rd.TimeLeft(now).Seconds()
		out.LeftSeconds = &left
		if !rd.Deadline.IsZero() {
			out.Deadline = rd.Deadline.UTC().Format(timeFormat)
		}
	}
	return out
}

// readJSON is web.ReadJSON, with a value of the wrong type ("votes": "two") refused with its
// field named, as the rules' own refusals are, and with what was wrong with it: a caller who sent
// "1.5" in quotes, true, or 1e309 learns which of those it was, not only what was wanted.
func readJSON(r *http.Request, v any, optional bool) error {
	err := web.ReadJSON(r, v, optional)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		// A body's fields are flat; a path names an embedded struct's field ("roundIn.votes").
		field := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
		return Refusal(&rooms.FieldError{Field: field, Err: rooms.ErrInvalid,
			Message: field + " " + wrongType(te.Type.Kind(), te.Value)})
	}
	return err
}

// wrongType says what a field of kind want takes and what the body gave it instead; got is
// encoding/json's description of the value ("string", "bool", "number 1e309").
func wrongType(want reflect.Kind, got string) string {
	wanted := jsonKind(want)
	if num, ok := strings.CutPrefix(got, "number "); ok {
		// A number the field cannot hold: too large for it, or not whole.
		f, err := strconv.ParseFloat(num, 64)
		if want == reflect.String {
			return "takes a " + wanted + " (in quotes), not a number"
		}
		switch {
		case err != nil || math.IsInf(f, 0) || want != reflect.Float64 && math.Abs(f) >= math.MaxInt64:
			return "takes a " + wanted + ", and " + num + " is too large"
		case f != math.Trunc(f):
			return "takes a " + wanted + ", and " + num + " is not one"
		}
		return "takes a " + wanted + " written as digits alone, like " + strconv.FormatFloat(f, 'f', -1, 64)
	}
	switch got {
	case "string":
		return "takes a " + wanted + ", and this is a string: write it without quotes"
	case "bool":
		return "takes a " + wanted + ", and this is a boolean (true or false)"
	case "array":
		return "takes a " + wanted + ", and this is a list"
	case "object":
		return "takes a " + wanted + ", and this is an object"
	case "number":
		return "takes a " + wanted + ", and this is a number"
	}
	return "takes a " + wanted
}

func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "boolean (true or false)"
	case reflect.String:
		return "string"
	case reflect.Int:
		return "whole number"
	}
	return "number"
}
