package roomsweb

// Host links: how a host carries a room to another browser (see rooms.HostLink). The host key
// never travels in a URL and no GET sets it: a link names a single-use token, opening it asks
// first, and only the answer, a POST that CrossOriginProtection lets through from this site
// alone, puts the key in the browser's cookie.
//
// The page that shows a link is reached by a redirect after the POST that made it (starting the
// room, asking for a link, replacing the host key), and finds the link's token in a cookie of the
// host's own browser: a reload shows the same link and makes nothing twice.

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/rooms"
)

// linkCookie holds, for the host's browser, the token of the host link it was last shown, so that
// the host link page can show it again; it lasts as long as the link.
const linkCookie = "eo_link_"

// hostLink is a host link in full, for copying to another device.
func (h *Handlers) hostLink(r *http.Request, id, token string) string {
	return h.origin(r) + h.base + "/rooms/" + id + "/host?token=" + url.QueryEscape(token)
}

// showHostLink answers the POST that made a host link for room id: the token goes in this
// browser's link cookie and a 303 leads to the page that shows it (after says why it was made).
func (h *Handlers) showHostLink(c echo.Context, id, token string, expires time.Time, after string) error {
	h.cookies.Set(c, linkCookie+id, token, time.Until(expires))
	target := h.base + "/rooms/" + id + "/host-link"
	if after != "" {
		target += "?after=" + after
	}
	return c.Redirect(http.StatusSeeOther, target)
}

// HostLinkPage handles "GET /rooms/:id/host-link": the host link this browser was last
// given, for the host only, or word that it has been used or has run out.
func (h *Handlers) HostLinkPage() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		r, err := h.rooms.RoomByID(ctx, c.Param("id"))
		if err != nil {
			return Refusal(err)
		}
		if who, err := h.rooms.Identify(ctx, r, web.Cookie(c, HostCookie+r.ID)); err != nil || who.Role != rooms.AsHost {
			return &web.Error{Status: http.StatusForbidden, Msg: "only the room's host sees its host links"}
		}
		site := h.site("")
		site.InRoom = true
		v := pages.HostLinkView{Site: site, Title: r.Title, RoomURL: site.URL("/rooms/" + r.ID),
			Minutes: int(rooms.HostLinkTTL / time.Minute), NewLink: site.URL("/rooms/" + r.ID + "/host-link")}
		switch after := c.QueryParam("after"); after {
		case "opened", "replaced":
			v.After = after
		}
		if token := web.Cookie(c, linkCookie+r.ID); token != "" {
			if err := h.rooms.CheckHostLink(r, token); err == nil {
				v.Link = h.hostLink(c.Request(), r.ID, token)
			} else {
				h.cookies.Set(c, linkCookie+r.ID, "", -time.Second)
			}
		}
		c.Response().Header().Set("Cache-Control", "no-store") // the link is on this page
		return web.Render(c, http.StatusOK, pages.Layout(site, r.Title, pages.HostLink(v)))
	}
}

// HostConfirm handles "GET /rooms/:id/host?token=...": what a host link opens. It changes
// nothing: it asks whether this browser should become the host. A browser that is already the
// room's host goes straight to the room, leaving the link for another.
func (h *Handlers) HostConfirm() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		site := h.site("")
		c.Response().Header().Set("Cache-Control", "no-store") // the token is on this page
		r, err := h.rooms.RoomByID(ctx, c.Param("id"))
		if err == nil {
			if who, err := h.rooms.Identify(ctx, r, web.Cookie(c, HostCookie+r.ID)); err == nil && who.Role == rooms.AsHost {
				return c.Redirect(http.StatusSeeOther, h.base+"/rooms/"+r.ID)
			}
		}
		token := c.QueryParam("token")
		if err == nil {
			err = h.rooms.CheckHostLink(r, token)
		}
		if err != nil {
			he, ok := Refusal(err).(*web.Error)
			if !ok {
				return err
			}
			v := pages.HostConfirmView{Site: site, Problem: present.SayCap(he.Msg)}
			return web.Render(c, he.Status, pages.Layout(site, "Host link", pages.HostConfirm(v)))
		}
		v := pages.HostConfirmView{Site: site, Title: r.Title, Action: site.URL("/rooms/" + r.ID + "/host"), Token: token}
		return web.Render(c, http.StatusOK, pages.Layout(site, r.Title, pages.HostConfirm(v)))
	}
}

// HostUse handles "POST /rooms/:id/host": the visitor confirmed a host link. The link is
// used up, its host key goes into this browser's cookie, and a 303 leads to the room.
func (h *Handlers) HostUse() echo.HandlerFunc {
	return func(c echo.Context) error {
		r, key, err := h.rooms.UseHostLink(c.Request().Context(), c.Param("id"), c.FormValue("token"))
		if err != nil {
			return Refusal(err)
		}
		if seat := seatKey(c, r.ID); seat != "" {
			// A member who became the host is no longer waited for as a member.
			if err := h.rooms.SeatHosts(c.Request().Context(), r, key, seat); err != nil && !errors.Is(err, rooms.ErrRoomClosed) {
				return Refusal(err)
			}
		}
		h.setRoomCookies(c, r.ID, HostCookie, key)
		return c.Redirect(http.StatusSeeOther, h.base+"/rooms/"+r.ID)
	}
}

// APIHostLink handles "POST /api/rooms/:code/host-link" (host): 201 with a new host link for a
// browser, which works once within rooms.HostLinkTTL and replaces an unused earlier one.
func (h *Handlers) APIHostLink() echo.HandlerFunc {
	return func(c echo.Context) error {
		host := h.apiCaller(c)
		token, expires, err := h.rooms.NewHostLink(c.Request().Context(), host)
		if err != nil {
			return Refusal(err)
		}
		c.Response().Header().Set("Cache-Control", "no-store") // the answer holds a host link
		return c.JSON(http.StatusCreated, map[string]string{"host_url": h.hostLink(c.Request(), host.Room.ID, token),
			"expires": expires.UTC().Format(time.RFC3339)})
	}
}
