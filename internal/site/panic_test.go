package site

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"effectivelyonce/content"
	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
	"effectivelyonce/rooms/live"
	"effectivelyonce/static"
)

// TestPanicIsLoggedOnce: a handler's panic answers 500 and leaves exactly one error line (with its
// stack) and one access line, instead of a "panic" line, a "request failed" line and no access line.
func TestPanicIsLoggedOnce(t *testing.T) {
	book, err := content.Load(content.Files)
	if err != nil {
		t.Fatal(err)
	}
	a, err := web.LoadAssets(static.Files)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s, err := New(testConfig(), Deps{Log: slog.New(slog.NewTextHandler(&logs, nil)), Book: book, Assets: a,
		Rooms: rooms.NewService(rooms.NewMemStore(), rooms.Config{}), Hub: live.NewLocal()})
	if err != nil {
		t.Fatal(err)
	}
	s.echo.GET("/boom", func(echo.Context) error { panic("boom") })
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, httptest.NewRequest("GET", "/boom", nil))
	if rec.Code != 500 {
		t.Errorf("status %d, want 500", rec.Code)
	}
	out := logs.String()
	if n := strings.Count(out, "level=ERROR"); n != 1 || !strings.Contains(out, "stack=") {
		t.Errorf("%d error lines (want one, with the stack):\n%s", n, out)
	}
	if !strings.Contains(out, `msg=request method=GET path=/boom status=500`) {
		t.Errorf("no access line for the panicking request:\n%s", out)
	}
}
