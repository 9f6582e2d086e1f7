package web

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
)

// CSP is the strict policy of DESIGN.md: no inline script anywhere; inline style attributes only,
// which echarts' tooltips need.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// securityHeaderList is the strict CSP and its companions, set on every answer: by the middleware
// on the handlers' answers, by WithSecurityHeaders on what reaches the server outside echo, and by
// the connection limiter on net/http's own error answers.
var securityHeaderList = [][2]string{
	{"Content-Security-Policy", CSP},
	{"X-Content-Type-Options", "nosniff"},
	{"X-Frame-Options", "DENY"},
	{"Referrer-Policy", "no-referrer"},
	{"Permissions-Policy", "camera=(), microphone=(), geolocation=()"},
	{"Cross-Origin-Opener-Policy", "same-origin"},
}

// SetSecurityHeaders sets every security header, the CSP among them, on h.
func SetSecurityHeaders(h http.Header) {
	for _, kv := range securityHeaderList {
		h.Set(kv[0], kv[1])
	}
}

// SecurityHeaders sets the security headers on every answer echo gives.
func SecurityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		SetSecurityHeaders(c.Response().Header())
		return next(c)
	}
}

// WithSecurityHeaders is the HTTP server's handler around echo: it sets the security headers
// before anything else runs, and answers "OPTIONS *" itself (net/http's built-in answer to it
// would carry none).
func WithSecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetSecurityHeaders(w.Header())
		if r.Method == http.MethodOptions && r.RequestURI == "*" {
			w.Header().Set("Allow", "GET, HEAD")
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusOK)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// RequestLog logs every request once with slog, and counts it for /metrics by route. It hands
// an error to echo's error handler itself, so the line it logs carries the status the reader got.
func RequestLog(log *slog.Logger, m *Metrics) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			status := c.Response().Status
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			m.Requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
			log.Info("request", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status,
				"bytes", c.Response().Size, "ms", float64(time.Since(start).Microseconds())/1000, "ip", c.RealIP())
			return nil
		}
	}
}
