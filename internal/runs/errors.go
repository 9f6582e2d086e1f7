package runs

import (
	"fmt"
	"net/http"
	"time"
)

// Error is a refusal with the HTTP status it means and a sentence safe to show a reader
// (capitalised: a page shows it after "Not run yet."). The web layer answers with it; runs does
// not import the web layer, so it names the status rather than answering.
type Error struct {
	Code int
	Msg  string
	Wait time.Duration // the Retry-After, when a retry later would succeed
	Err  error
}

// Error says the status, the message and the cause, for the log.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%d %s: %v", e.Code, e.Msg, e.Err)
	}
	return fmt.Sprintf("%d %s", e.Code, e.Msg)
}

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }

// Status is the HTTP status the refusal means.
func (e *Error) Status() int { return e.Code }

// Message is the sentence a reader is shown.
func (e *Error) Message() string { return e.Msg }

// RetryAfter is how long to wait before asking again, or 0.
func (e *Error) RetryAfter() time.Duration { return e.Wait }

// ErrBusy is returned when every heavy slot, or the memory the heavy runs share, stayed taken
// for the whole queue wait.
var ErrBusy = &Error{Code: http.StatusServiceUnavailable, Wait: 5 * time.Second,
	Msg: "Every experiment slot is busy with other readers' runs."}

// ErrStopping answers every run still waiting for a slot when the server begins to shut down: a
// clean refusal at once instead of a cut connection when the grace period ends.
var ErrStopping = &Error{Code: http.StatusServiceUnavailable, Wait: 10 * time.Second,
	Msg: "The server is restarting."}
