package workbenchweb

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
)

// apiErrors is the body of every refused API request, in the site's one shape: one entry per
// field, with an empty field name when the fault is not one parameter's.
type apiErrors struct {
	Errors experiments.FieldErrors `json:"errors"`
}

// apiError is an apiErrors of one message.
func apiError(field, msg string) apiErrors {
	return apiErrors{Errors: experiments.FieldErrors{{Field: field, Message: msg}}}
}

// maxFieldErrors is how many field errors one answer lists, as the experiments' API does.
const maxFieldErrors = 5

// capErrors keeps the first maxFieldErrors errors and says how many more there were.
func capErrors(fe experiments.FieldErrors) experiments.FieldErrors {
	if len(fe) <= maxFieldErrors {
		return fe
	}
	out := append(experiments.FieldErrors{}, fe[:maxFieldErrors]...)
	return append(out, experiments.FieldError{Message: fmt.Sprintf("and %d more", len(fe)-maxFieldErrors)})
}

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
