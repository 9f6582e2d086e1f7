package workbenchweb

import (
	"errors"
	"net/http"
	"time"

	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
)

// storeError is a failure of the shares' store (the rooms' database): out of reach, a 503 that
// says to come back shortly; anything else is left as it is, a fault the error handler logs.
func storeError(err error) error {
	if errors.Is(err, rooms.ErrUnavailable) {
		return &web.Error{Status: http.StatusServiceUnavailable, RetryAfter: 5 * time.Second, Err: err,
			Msg: "The study rooms' database cannot be reached just now (it may be restarting)."}
	}
	return err
}
