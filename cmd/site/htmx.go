package main

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/pages"
)

// The htmx request headers the site reads, named once.
const (
	hxRequestHeader = "HX-Request"
	hxTargetHeader  = "HX-Target"
	// hxRestoreHeader marks the request htmx makes for a page the back button returns to when it
	// keeps no copy of it (historyCacheSize 0): it swaps the answer in as the whole body.
	hxRestoreHeader = "HX-History-Restore-Request"
	// The response headers that move a swap elsewhere than the request's target.
	hxRetargetHeader = "HX-Retarget"
	hxReswapHeader   = "HX-Reswap"
)

// htmxRequest is what htmx says about a request: whether htmx sent it, and the id of the element
// it will swap the answer into.
type htmxRequest struct {
	Active bool
	Target string
}

// htmxOf reads the htmx headers once. A history restore is no fragment request: it wants the page
// as a plain visit gets it, the room bar and every block included, or the back button would bring
// back a page without them.
func htmxOf(r *http.Request) htmxRequest {
	if r.Header.Get(hxRequestHeader) != "true" || r.Header.Get(hxRestoreHeader) == "true" {
		return htmxRequest{}
	}
	return htmxRequest{Active: true, Target: r.Header.Get(hxTargetHeader)}
}

// experiment names the experiment whose block an htmx request will swap, if it targets one.
func (h htmxRequest) experiment() (string, bool) {
	if !h.Active {
		return "", false
	}
	return strings.CutPrefix(h.Target, pages.DOMIDPrefix)
}

// varyHTMX says on every answer that it may depend on the htmx headers, since the same URL answers
// a fragment to htmx and a whole page otherwise: a cache (the browser's own, for the back button,
// or a proxy's) must not hand one to the other.
func varyHTMX(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Add("Vary", hxRequestHeader+", "+hxRestoreHeader)
		return next(c)
	}
}
