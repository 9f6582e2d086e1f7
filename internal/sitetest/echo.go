package sitetest

import (
	"io"
	"log/slog"

	"github.com/labstack/echo/v4"

	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
)

// Echo is an echo server behind the site's one error handler, for a test of one domain's handlers
// without the rest of the site: refused API requests (under /api/) get the API's body, a page's
// refusal the site's error page; fieldOf names the field of a domain's refusal (nil for none).
func Echo(fieldOf func(error) string) *echo.Echo {
	e := echo.New()
	e.HTTPErrorHandler = web.Errors{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), APIPrefix: "/api/", FieldOf: fieldOf,
		APIBody: func(field, msg string) any { return present.APIError(field, msg) },
		Page:    pages.ErrorPages(func() pages.Site { return pages.Site{} })}.Handler
	e.Use(web.Identify)
	return e
}
