package web

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
)

// CrossOrigin refuses a change (POST, PUT, DELETE, ...) that a browser says comes from another
// site, with net/http's CrossOriginProtection: it reads Sec-Fetch-Site, or compares Origin with
// Host for older browsers. Reads pass, and so do requests with neither header (curl, scripts),
// which carry no cookies of a victim's. Behind a proxy that rewrites Host, it compares Origin
// with the Host the proxy forwards; a proxy that rewrites Host too is covered by trusting the
// public origin (PUBLIC_ORIGIN) the site is reached at.
func CrossOrigin(publicOrigin string) (echo.MiddlewareFunc, error) {
	cop := http.NewCrossOriginProtection()
	if publicOrigin != "" {
		if err := cop.AddTrustedOrigin(publicOrigin); err != nil {
			return nil, fmt.Errorf("public-origin: %w", err)
		}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if err := cop.Check(c.Request()); err != nil {
				return &Error{Status: http.StatusForbidden, Msg: "a change from another site is refused", Err: err}
			}
			return next(c)
		}
	}, nil
}
