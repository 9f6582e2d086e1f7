package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// Error is an error with the status to answer and a message safe to show a reader: a sentence,
// capitalised, since a page shows it after "Not run yet.". RetryAfter, when set, becomes the
// Retry-After header and the reader is told to wait that long.
type Error struct {
	Status     int
	Msg        string
	RetryAfter time.Duration
	Err        error
}

// Error says the status, the message and the cause, for the log.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Status, e.Msg, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Status, e.Msg)
}

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }

// Refusal is an error from below the web layer (runs, which must not import it) that says the
// status it means, the sentence to show and how long to wait.
type Refusal interface {
	error
	Status() int
	Message() string
	RetryAfter() time.Duration
}

// As is errors.As for the one error type: it finds an *Error in err's chain, or a Refusal,
// which it sets *target to as an equivalent *Error wrapping err.
func As(err error, target **Error) bool {
	if errors.As(err, target) {
		return true
	}
	var r Refusal
	if errors.As(err, &r) {
		*target = &Error{Status: r.Status(), Msg: r.Message(), RetryAfter: r.RetryAfter(), Err: err}
		return true
	}
	return false
}

// PanicError is a handler's panic, recovered, with the stack it was raised on.
type PanicError struct {
	Err   error
	Stack []byte
}

// Error says the panic's value.
func (e *PanicError) Error() string { return "panic: " + e.Err.Error() }

// Unwrap is the panic's value as an error.
func (e *PanicError) Unwrap() error { return e.Err }

// Render writes a component through a buffer, so a failing template never sends half a page.
func Render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return fmt.Errorf("render %s: %w", c.Path(), err)
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// Errors says how the one error handler answers: the domains know which of their errors name a
// field and what a refused API request's body looks like; the web layer knows only statuses.
type Errors struct {
	Log *slog.Logger
	// APIPrefix is where JSON answers start (the base path and "/api/"): errors under it are
	// JSON, elsewhere a page.
	APIPrefix string
	// FieldOf names the field an error is about, or ""; nil names none.
	FieldOf func(error) string
	// APIBody is the JSON body of a refused API request.
	APIBody func(field, msg string) any
	// Page is the page of a refused request for a reader.
	Page func(status int, title, msg string) templ.Component
	// BodyLimits says, to a request refused for a body too large, how much each kind of route
	// takes ("8 KB here, 64 KB elsewhere"): the routes' limits are the assembly's; "" says none.
	BodyLimits string
}

// Handler is the one place errors become responses and the one place they are logged.
func (h Errors) Handler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := http.StatusInternalServerError, "something went wrong on the server"
	var he *Error
	var ee *echo.HTTPError
	switch {
	case As(err, &he):
		status, msg = he.Status, he.Msg
	case errors.As(err, &ee):
		status = ee.Code
		msg = strings.ToLower(http.StatusText(status))
		if m, ok := ee.Message.(string); ok && status < 500 {
			msg = m
		}
	case errors.Is(err, context.Canceled):
		status, msg = 499, "the request was cancelled"
	}
	field := ""
	if h.FieldOf != nil {
		field = h.FieldOf(err)
	}
	if status == http.StatusRequestEntityTooLarge {
		field, msg = "body", "the body is larger than this route takes"
		if h.BodyLimits != "" {
			msg += ": " + h.BodyLimits
		}
	}
	if status >= 500 {
		attrs := []any{"method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "err", err}
		var pe *PanicError
		if errors.As(err, &pe) {
			attrs = append(attrs, "stack", string(pe.Stack))
		}
		h.Log.Error("request failed", attrs...)
	}
	if status == 499 {
		c.Response().WriteHeader(status)
		return
	}
	switch {
	case he != nil && he.RetryAfter > 0:
		c.Response().Header().Set("Retry-After", strconv.Itoa(RetrySeconds(he.RetryAfter)))
		msg = strings.TrimSuffix(msg, ".") + ". " + fmt.Sprintf("Try again in %d s.", RetrySeconds(he.RetryAfter))
	case status == http.StatusServiceUnavailable:
		c.Response().Header().Set("Retry-After", "5")
	}
	if strings.HasPrefix(c.Request().URL.Path, h.APIPrefix) {
		c.JSON(status, h.APIBody(field, msg))
		return
	}
	title := http.StatusText(status)
	if err := Render(c, status, h.Page(status, title, msg)); err != nil {
		c.String(status, msg)
	}
}
