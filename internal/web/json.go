package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"
)

// ReadJSON decodes a request body into v, refusing unknown fields so that a typo in a script is
// an error rather than a silent default; optional lets an empty body mean v as it is. A body over
// the route's limit stays echo's 413; anything else that does not decode is a 400.
func ReadJSON(r *http.Request, v any, optional bool) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil || (optional && errors.Is(err, io.EOF)) {
		return nil
	}
	var ee *echo.HTTPError
	if errors.As(err, &ee) { // the body limit, which answers 413 itself
		return ee
	}
	return &Error{Status: http.StatusBadRequest, Msg: "the body is not the JSON object this route takes", Err: err}
}
