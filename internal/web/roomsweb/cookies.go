package roomsweb

import (
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/internal/web"
)

// A browser's standing in study rooms lives in cookies, one per room and role, named by the
// room's permanent id: eo_host_ID holds the host key, eo_seat_ID a member's key. eo_room names the
// room whose bar the notebook pages show. All are HttpOnly (no script reads a key) and
// SameSite=Lax (a link from elsewhere still opens the room; a form from elsewhere cannot post
// with them, and CrossOriginProtection refuses it anyway); web.Cookies sets them.
const (
	// HostCookie prefixes the name of the cookie that holds a room's host key (eo_host_ID).
	HostCookie = "eo_host_"
	// SeatCookie prefixes the name of the cookie that holds a member's key (eo_seat_ID).
	SeatCookie    = "eo_seat_"
	currentCookie = "eo_room"
	// hiddenCookie names the room whose bar the member hid ("Hide this bar"): the notebook's
	// pages then show one line that brings it back, instead of nothing.
	hiddenCookie = "eo_room_hidden"
	cookieMaxAge = 30 * 24 * time.Hour // as long as a closed room is kept
)

// setRoomCookies stores a key for the room (as host or seat) and makes the room this browser's
// current one.
func (h *Handlers) setRoomCookies(c echo.Context, roomID, role, key string) {
	h.cookies.Set(c, role+roomID, key, cookieMaxAge)
	h.setCurrentRoom(c, roomID)
}

func (h *Handlers) setCurrentRoom(c echo.Context, roomID string) {
	if currentRoom(c) != roomID {
		h.cookies.Set(c, currentCookie, roomID, cookieMaxAge)
	}
	if hiddenRoom(c) != "" {
		h.cookies.Set(c, hiddenCookie, "", -time.Second)
	}
}

// hideCurrentRoom takes the room's bar off the notebook's pages, remembering the room so that
// they can offer it back.
func (h *Handlers) hideCurrentRoom(c echo.Context, roomID string) {
	if currentRoom(c) == roomID {
		h.cookies.Set(c, currentCookie, "", -time.Second)
	}
	h.cookies.Set(c, hiddenCookie, roomID, cookieMaxAge)
}

// hiddenRoom is the id of the room whose bar this browser hid, or "".
func hiddenRoom(c echo.Context) string { return web.Cookie(c, hiddenCookie) }

// clearRoomCookies forgets a room whose keys no longer work.
func (h *Handlers) clearRoomCookies(c echo.Context, roomID string) {
	h.cookies.Set(c, HostCookie+roomID, "", -time.Second)
	h.cookies.Set(c, SeatCookie+roomID, "", -time.Second)
	if currentRoom(c) == roomID {
		h.cookies.Set(c, currentCookie, "", -time.Second)
	}
	if hiddenRoom(c) == roomID {
		h.cookies.Set(c, hiddenCookie, "", -time.Second)
	}
}

// currentRoom is the id of the room whose bar this browser's notebook pages show, or "".
func currentRoom(c echo.Context) string { return web.Cookie(c, currentCookie) }

// seatKey is this browser's member key for the room, or "".
func seatKey(c echo.Context, roomID string) string { return web.Cookie(c, SeatCookie+roomID) }

// roomKey is the key this request acts with in the room: the host's when the browser is the
// host, else its seat's, else one sent as "Authorization: Bearer" by a script.
func roomKey(c echo.Context, roomID string) string {
	if k := web.Cookie(c, HostCookie+roomID); k != "" {
		return k
	}
	if k := seatKey(c, roomID); k != "" {
		return k
	}
	return bearerKey(c.Request())
}
