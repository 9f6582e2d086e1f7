package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Cookies sets the site's cookies, all alike: HttpOnly (no script reads a key), SameSite=Lax (a
// link from elsewhere still carries them, a form from elsewhere does not), scoped to the base path,
// and Secure when the request came over TLS or the public origin is https.
type Cookies struct {
	Base  string // the base path the site is served under, "" at the root
	HTTPS bool   // the public origin is https, whatever the connection to a proxy is
}

// Set sets the cookie name to value for maxAge; a negative maxAge deletes it.
func (k Cookies) Set(c echo.Context, name, value string, maxAge time.Duration) {
	c.SetCookie(&http.Cookie{Name: name, Value: value, Path: k.Base + "/", MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, Secure: k.HTTPS || c.Request().TLS != nil, SameSite: http.SameSiteLaxMode})
}

// Cookie is the value of the request's cookie name, or "".
func Cookie(c echo.Context, name string) string {
	if ck, err := c.Cookie(name); err == nil {
		return ck.Value
	}
	return ""
}
