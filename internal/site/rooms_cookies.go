package site

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// A browser's standing in study rooms lives in cookies, one per room and role, named by the
// room's permanent id: eo_host_ID holds the host key, eo_seat_ID a member's key. eo_room names the
// room whose bar the notebook pages show. All are HttpOnly (no script reads a key) and
// SameSite=Lax (a link from elsewhere still opens the room; a form from elsewhere cannot post
// with them, and CrossOriginProtection refuses it anyway).
const (
	hostCookie    = "eo_host_"
	seatCookie    = "eo_seat_"
	currentCookie = "eo_room"
	cookieMaxAge  = 30 * 24 * time.Hour // as long as a closed room is kept
)

func (s *server) cookie(c echo.Context, name, value string, maxAge time.Duration) {
	secure := c.Request().TLS != nil || strings.HasPrefix(s.cfg.PublicOrigin, "https://")
	c.SetCookie(&http.Cookie{Name: name, Value: value, Path: s.cfg.BasePath + "/", MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
}

// setRoomCookies stores a key for the room (as host or seat) and makes the room this browser's
// current one.
func (s *server) setRoomCookies(c echo.Context, roomID, role, key string) {
	s.cookie(c, role+roomID, key, cookieMaxAge)
	s.setCurrentRoom(c, roomID)
}

func (s *server) setCurrentRoom(c echo.Context, roomID string) {
	if s.currentRoom(c) != roomID {
		s.cookie(c, currentCookie, roomID, cookieMaxAge)
	}
}

// clearRoomCookies forgets a room whose keys no longer work.
func (s *server) clearRoomCookies(c echo.Context, roomID string) {
	s.cookie(c, hostCookie+roomID, "", -time.Second)
	s.cookie(c, seatCookie+roomID, "", -time.Second)
	if s.currentRoom(c) == roomID {
		s.cookie(c, currentCookie, "", -time.Second)
	}
}

func cookieValue(c echo.Context, name string) string {
	if ck, err := c.Cookie(name); err == nil {
		return ck.Value
	}
	return ""
}

func (s *server) currentRoom(c echo.Context) string { return cookieValue(c, currentCookie) }

// seatKey is this browser's member key for the room, or "".
func (s *server) seatKey(c echo.Context, roomID string) string {
	return cookieValue(c, seatCookie+roomID)
}

// roomKey is the key this request acts with in the room: the host's when the browser is the
// host, else its seat's, else one sent as "Authorization: Bearer" by a script.
func (s *server) roomKey(c echo.Context, roomID string) string {
	if k := cookieValue(c, hostCookie+roomID); k != "" {
		return k
	}
	if k := s.seatKey(c, roomID); k != "" {
		return k
	}
	return bearerKey(c.Request())
}

// memo is a small bounded map for values that are costly to make and never go stale for their
// key (a QR code for a link, a run's headline for a permalink). When full it starts over, which
// costs a few recomputations and keeps memory flat whatever visitors send.
type memo[V any] struct {
	mu  sync.Mutex
	max int
	m   map[string]V
}

func newMemo[V any](max int) *memo[V] { return &memo[V]{max: max, m: map[string]V{}} }

func (m *memo[V]) get(k string) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

func (m *memo[V]) put(k string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.m) >= m.max {
		clear(m.m)
	}
	m.m[k] = v
}

func (m *memo[V]) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
