package main

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
)

// securityHeaderList is the strict CSP and its companions, set on every answer: by the middleware
// on the handlers' answers, by withSecurityHeaders on what reaches the server outside echo, and by
// the connection limiter on net/http's own error answers.
var securityHeaderList = [][2]string{
	{"Content-Security-Policy", csp},
	{"X-Content-Type-Options", "nosniff"},
	{"X-Frame-Options", "DENY"},
	{"Referrer-Policy", "no-referrer"},
	{"Permissions-Policy", "camera=(), microphone=(), geolocation=()"},
	{"Cross-Origin-Opener-Policy", "same-origin"},
}

func setSecurityHeaders(h http.Header) {
	for _, kv := range securityHeaderList {
		h.Set(kv[0], kv[1])
	}
}

// securityHeaders sets the security headers on every answer echo gives.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		setSecurityHeaders(c.Response().Header())
		return next(c)
	}
}

// withSecurityHeaders is the HTTP server's handler around echo: it sets the security headers
// before anything else runs, and answers "OPTIONS *" itself (net/http's built-in answer to it
// would carry none).
func withSecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		if r.Method == http.MethodOptions && r.RequestURI == "*" {
			w.Header().Set("Allow", "GET, HEAD")
			w.Header().Set("Content-Length", "0")
			w.WriteHeader(http.StatusOK)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requestLog logs every request once with slog, and counts it for /metrics by route.
func (s *server) requestLog(next echo.HandlerFunc) echo.HandlerFunc {
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
		s.metrics.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
		s.log.Info("request", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status,
			"bytes", c.Response().Size, "ms", float64(time.Since(start).Microseconds())/1000, "ip", c.RealIP())
		return nil
	}
}
