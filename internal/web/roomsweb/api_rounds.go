package roomsweb

// The API's part of a round's two votes and countdown: the second vote, the timer's changes, and
// a body's wrong types refused with their field named.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
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
// (the extension first).
type timerIn struct {
	Paused *bool `json:"paused"`
	Extend int   `json:"extend"`
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
	if in.Paused == nil && in.Extend == 0 {
		return rooms.Round{}, &rooms.FieldError{Field: "paused", Err: rooms.ErrInvalid,
			Message: `a change to the countdown says {"paused": true|false} or {"extend": seconds}`}
	}
	var rd rooms.Round
	var err error
	if in.Extend != 0 {
		if rd, err = h.rooms.ExtendTimer(ctx, host, seq, in.Extend); err != nil {
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
// field named, as the rules' own refusals are.
func readJSON(r *http.Request, v any, optional bool) error {
	err := web.ReadJSON(r, v, optional)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		// A body's fields are flat; a path names an embedded struct's field ("roundIn.votes").
		field := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
		return Refusal(&rooms.FieldError{Field: field, Err: rooms.ErrInvalid,
			Message: fmt.Sprintf("%s is a %s here", field, jsonKind(te.Type.Kind()))})
	}
	return err
}

func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "string"
	case reflect.Int:
		return "whole number"
	}
	return "number"
}
