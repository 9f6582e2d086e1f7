package site

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/internal/web"
	"effectivelyonce/internal/web/roomsweb"
)

// What the workbench and the lab still take from the rooms' former files in this package, until
// they have handler packages of their own (then this file goes): the workbench's shares live in
// the rooms' database and are limited like the rooms' creations, its API reads JSON bodies as the
// rooms' does, and the lab keeps its owner in a cookie like the rooms' ones.

// roomError is roomsweb.Refusal: the rooms' database out of reach is a 503 that says so.
func roomError(err error) error { return roomsweb.Refusal(err) }

// admitRoom charges one creation to the client of ctx on l; a refusal is a 429 that says when
// to try again.
func (s *server) admitRoom(ctx context.Context, l *web.RateLimiter[netip.Addr], msg string) error {
	ok, wait := l.Allow(web.ClientOf(ctx))
	if ok {
		return nil
	}
	s.metrics.Rejected.WithLabelValues("rooms_rate_limited").Inc()
	return &web.Error{Status: http.StatusTooManyRequests, RetryAfter: wait, Msg: msg}
}

// cookie sets a cookie as every cookie of the site is set (see web.Cookies).
func (s *server) cookie(c echo.Context, name, value string, maxAge time.Duration) {
	web.Cookies{Base: s.cfg.BasePath, HTTPS: strings.HasPrefix(s.cfg.PublicOrigin, "https://")}.Set(c, name, value, maxAge)
}

// cookieValue is web.Cookie.
func cookieValue(c echo.Context, name string) string { return web.Cookie(c, name) }

// readJSON decodes a request body into v, refusing unknown fields so that a typo in a script is
// an error rather than a silent default. An empty body is allowed when optional is set.
func readJSON(r *http.Request, v any, optional bool) error {
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
	return &web.Error{Status: http.StatusBadRequest, Msg: "the body is not the JSON object this route takes", Err: err}
}
