package main

import (
	"net/http"
	"strings"

	"effectivelyonce/pages"
)

// The htmx request headers the site reads, named once.
const (
	hxRequestHeader = "HX-Request"
	hxTargetHeader  = "HX-Target"
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

// htmxOf reads the htmx headers once.
func htmxOf(r *http.Request) htmxRequest {
	if r.Header.Get(hxRequestHeader) != "true" {
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
