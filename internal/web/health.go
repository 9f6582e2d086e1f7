package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// HandleHealth handles "GET /healthz": the server is up and its default results are warm.
func HandleHealth() echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-store")
		return c.String(http.StatusOK, "ok\n")
	}
}
