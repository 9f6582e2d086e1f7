package workbenchweb

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
)

// readJSON decodes a request body into v, refusing unknown fields so that a typo in a script is
// an error rather than a silent default.
func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var ee *echo.HTTPError
	if errors.As(err, &ee) { // the body limit, which answers 413 itself
		return ee
	}
	return &web.Error{Status: http.StatusBadRequest, Msg: "the body is not the JSON object this route takes", Err: err}
}

// storeError is a failure of the shares' store (the rooms' database): out of reach, a 503 that
// says to come back shortly; anything else is left as it is, a fault the error handler logs.
func storeError(err error) error {
	if errors.Is(err, rooms.ErrUnavailable) {
		return &web.Error{Status: http.StatusServiceUnavailable, RetryAfter: 5 * time.Second, Err: err,
			Msg: "The study rooms' database cannot be reached just now (it may be restarting)."}
	}
	return err
}
