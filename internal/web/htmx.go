package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// The htmx request headers the site reads, named once.
const (
	HXRequestHeader = "HX-Request"
	HXTargetHeader  = "HX-Target"
	// HXRestoreHeader marks the request htmx makes for a page the back button returns to when it
	// keeps no copy of it (historyCacheSize 0): it swaps the answer in as the whole body.
	HXRestoreHeader = "HX-History-Restore-Request"
	// HXRetargetHeader is the response header that has htmx swap the answer into another element
	// than the request's target: a poll that finds its work done answers for the whole box around
	// the meter it named.
	HXRetargetHeader = "HX-Retarget"
	// HXReswapHeader is the response header that changes how htmx swaps the answer in (outerHTML
	// to replace that box rather than fill it), beside HXRetargetHeader.
	HXReswapHeader = "HX-Reswap"
)

// HTMX is what htmx says about a request: whether htmx sent it, and the id of the element
// it will swap the answer into.
type HTMX struct {
	Active bool
	Target string
}

// HTMXOf reads the htmx headers once. A history restore is no fragment request: it wants the page
// as a plain visit gets it, the room bar and every block included, or the back button would bring
// back a page without them.
func HTMXOf(r *http.Request) HTMX {
	if r.Header.Get(HXRequestHeader) != "true" || r.Header.Get(HXRestoreHeader) == "true" {
		return HTMX{}
	}
	return HTMX{Active: true, Target: r.Header.Get(HXTargetHeader)}
}

// VaryHTMX says on every answer that it may depend on the htmx headers, since the same URL answers
// a fragment to htmx and a whole page otherwise: a cache (the browser's own, for the back button,
// or a proxy's) must not hand one to the other.
func VaryHTMX(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Add("Vary", HXRequestHeader+", "+HXRestoreHeader)
		return next(c)
	}
}

// Retarget has htmx swap this answer into target (a CSS selector, or htmx's "closest ...") with
// swap, instead of where the request named: an answer that is not what the asking element
// expected, such as a refusal in words or a box that replaces the poll that asked.
func Retarget(c echo.Context, target, swap string) {
	h := c.Response().Header()
	h.Set(HXRetargetHeader, target)
	h.Set(HXReswapHeader, swap)
}
