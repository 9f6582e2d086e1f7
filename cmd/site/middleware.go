package main

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"golang.org/x/time/rate"
)

// securityHeaders sets the strict CSP and its companions on every answer.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		return next(c)
	}
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

// rateLimit limits experiment runs per client. Plain page views at the document's values come
// from the cache and are not limited.
func (s *server) rateLimit() echo.MiddlewareFunc {
	store := middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
		Rate: rate.Limit(s.cfg.RatePerSec), Burst: s.cfg.RateBurst,
	})
	return middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
		Skipper: func(c echo.Context) bool { return len(c.QueryParams()) == 0 },
		Store:   store,
		IdentifierExtractor: func(c echo.Context) (string, error) {
			return c.RealIP(), nil
		},
		ErrorHandler: func(c echo.Context, err error) error {
			return &httpError{Status: http.StatusForbidden, Msg: "could not tell who is asking", Err: err}
		},
		DenyHandler: func(c echo.Context, id string, err error) error {
			s.metrics.rejected.WithLabelValues("rate_limited").Inc()
			c.Response().Header().Set("Retry-After", "2")
			return &httpError{Status: http.StatusTooManyRequests, Msg: "too many runs from your address in a short time; wait a moment and run again"}
		},
	})
}
