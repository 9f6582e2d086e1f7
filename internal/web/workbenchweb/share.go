package workbenchweb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/rooms/sqlstore"
	"effectivelyonce/workbench"
)

// ShareStore keeps shared handlers: the rooms' database (sqlstore.Store) in the server.
type ShareStore interface {
	PutShare(ctx context.Context, source string, at time.Time) (string, error)
	Share(ctx context.Context, hash string) (string, error)
}

// shareHashPattern is what sqlstore.ShareHash writes; anything else is no share, answered
// without asking the database.
var shareHashPattern = regexp.MustCompile(`^[a-z2-7]{12}$`)

// sharePath is a share's permanent URL below the base path.
func sharePath(hash string) string { return workbenchPath + "/s/" + hash }

// putShare checks the source and keeps it, charged to the client's allowance of shares.
func (h *Handlers) putShare(ctx context.Context, src string) (string, error) {
	if strings.TrimSpace(src) == "" {
		return "", experiments.FieldErrors{{Field: "source", Message: "is empty; write a handler to share"}}
	}
	if len(src) > workbench.MaxSource {
		return "", experiments.FieldErrors{{Field: "source", Message: fmt.Sprintf("is %s bytes long; a shared handler may have at most %s (16 KB)",
			experiments.Thousands(int64(len(src))), experiments.Thousands(workbench.MaxSource))}}
	}
	if h.d.Shares == nil {
		return "", &web.Error{Status: http.StatusServiceUnavailable, Msg: "This server keeps no shares."}
	}
	if l := h.d.ShareCreates; l != nil {
		if ok, wait := l.Allow(web.ClientOf(ctx)); !ok {
			h.d.Rejected.WithLabelValues("rooms_rate_limited").Inc()
			return "", &web.Error{Status: http.StatusTooManyRequests, RetryAfter: wait, Msg: "Too many handlers shared from your network address this hour."}
		}
	}
	hash, err := h.d.Shares.PutShare(ctx, src, time.Now())
	if err != nil {
		return "", storeError(err)
	}
	return hash, nil
}

// Share handles "POST /workbench/share": keeps the posted handler and leads to its permanent URL,
// with the form's parameters, which checks it again there and opens at the status that gives its
// link. A refusal is said in that status, with the reader's handler and values kept: htmx gets the
// status alone (and a share, HX-Redirect to the same page); without script, the whole page.
func (h *Handlers) Share() echo.HandlerFunc {
	return func(c echo.Context) error {
		src, tmpl, raw, err := postedCheck(c)
		if err != nil {
			return h.unreadOr(c, err, true)
		}
		hx := web.HTMXOf(c.Request()).Active
		hash, err := h.putShare(c.Request().Context(), src)
		var fe experiments.FieldErrors
		var he *web.Error
		if errors.As(err, &fe) || web.As(err, &he) {
			site := h.d.Site(workbenchPath)
			v := h.workbenchBase(site, tmpl)
			v.Source, v.Fields = src, workbenchFields(raw, nil)
			status := http.StatusUnprocessableEntity
			if len(fe) > 0 {
				v.ShareError = "Not shared: the handler " + fe[0].Message + "."
			} else {
				v.ShareError, status = "Not shared. "+he.Msg, he.Status
				if he.RetryAfter > 0 {
					wait := web.RetrySeconds(he.RetryAfter)
					c.Response().Header().Set("Retry-After", fmt.Sprint(wait))
					v.ShareError += fmt.Sprintf(" Wait %d s, then press Share again.", wait)
				}
			}
			if hx {
				return web.Render(c, status, pages.WorkbenchShareStatus(v))
			}
			return h.render(c, site, status, &v)
		}
		if err != nil {
			return err
		}
		target := h.d.Base + sharePath(hash)
		if q := queryOf(raw); q != "" {
			target += "?" + q
		}
		target += "#" + pages.WorkbenchShareStatusID
		if hx {
			// A redirect would be followed inside the request and its page swapped in.
			c.Response().Header().Set("HX-Redirect", target)
			return c.NoContent(http.StatusNoContent)
		}
		return c.Redirect(http.StatusSeeOther, target)
	}
}

// queryOf writes the check's parameters as a permalink carries them: only those that differ
// from the defaults, or, when they do not parse, every one as given.
func queryOf(raw map[string][]string) string {
	if p, err := workbench.Parse(raw); err == nil {
		return p.Query()
	}
	q := url.Values{}
	for k, v := range raw {
		q[k] = v
	}
	return q.Encode()
}

// ShareAPI handles "POST /api/workbench/shares" with {"source": "..."}: 201 with the share's hash
// and URLs (the page, and the same check as JSON).
func (h *Handlers) ShareAPI() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in struct {
			Source string `json:"source"`
		}
		if err := web.ReadJSON(c.Request(), &in, false); err != nil {
			if bodyTooLarge(err) {
				return apiTooLarge(c)
			}
			return err
		}
		hash, err := h.putShare(c.Request().Context(), in.Source)
		var fe experiments.FieldErrors
		if errors.As(err, &fe) {
			return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: fe})
		}
		if err != nil {
			return err
		}
		u := h.d.Base + sharePath(hash)
		return c.JSON(http.StatusCreated, map[string]string{"hash": hash, "url": u, "json": u + "?format=json"})
	}
}

// Shared handles "GET /workbench/s/:hash": the shared handler in the editor, checked at the
// query's parameters; with format=json, the check as the API answers it. which=point:outcome
// asks for one count's jobs: in the page's jobs panel, or as JSON or CSV (format=csv).
func (h *Handlers) Shared() echo.HandlerFunc {
	return func(c echo.Context) error {
		hash := c.Param("hash")
		q := c.QueryParams()
		format := "html"
		if v, ok := q["format"]; ok {
			if len(v) != 1 || (v[0] != "json" && v[0] != "html" && v[0] != "csv") {
				return &web.Error{Status: http.StatusBadRequest, Msg: "format must be json, csv or html, given once"}
			}
			format = v[0]
		}
		which := q.Get("which")
		if format == "csv" && which == "" {
			return &web.Error{Status: http.StatusBadRequest, Msg: "format=csv answers one count's jobs: give which=point:outcome too"}
		}
		asJSON := format == "json"
		src, err := h.sharedSource(c.Request().Context(), hash)
		if err != nil {
			if asJSON {
				var he *web.Error
				if web.As(err, &he) && he.Status == http.StatusNotFound {
					return c.JSON(http.StatusNotFound, present.APIError("hash", "no handler was shared under this hash"))
				}
			}
			return err
		}
		raw := paramsOf("", q)
		if which != "" {
			return h.sharedJobs(c, hash, src, raw, which, format)
		}
		if asJSON {
			if _, fe := workbench.Parse(raw); fe != nil {
				return h.checkAPIError(c, fe)
			}
			res, err := h.checkParsed(c.Request().Context(), src, raw)
			if err != nil {
				return h.checkAPIError(c, err)
			}
			return c.JSON(http.StatusOK, checkJSON(src, res, h.d.Base+sharePath(hash)))
		}
		site := h.d.Site(workbenchPath)
		v := h.sharedView(site, hash, q)
		status, _ := h.fillCheck(c.Request().Context(), site, &v, src, raw, "")
		if status == 499 {
			return context.Canceled
		}
		return h.render(c, site, status, &v)
	}
}

// sharedView is the part of a share's page that does not depend on its check.
func (h *Handlers) sharedView(site pages.Site, hash string, q url.Values) pages.WorkbenchView {
	v := h.workbenchBase(site, "")
	v.ShareURL = site.URL(sharePath(hash))
	v.ShareLink = v.ShareURL
	if pq := queryOf(paramsOf("", q)); pq != "" {
		v.ShareLink += "?" + pq
	}
	v.JSONURL = v.ShareURL + "?" + withFormat(q)
	return v
}

// withFormat is q with format=json, for the page's JSON link (the check's, not a count's).
func withFormat(q url.Values) string {
	out := url.Values{}
	for k, v := range q {
		out[k] = v
	}
	out.Del("which")
	out.Set("format", "json")
	return out.Encode()
}

// sharedSource looks a share up, 404 for a hash nothing was shared under.
func (h *Handlers) sharedSource(ctx context.Context, hash string) (string, error) {
	notFound := &web.Error{Status: http.StatusNotFound, Msg: "No handler was shared under this address."}
	if !shareHashPattern.MatchString(hash) || h.d.Shares == nil {
		return "", notFound
	}
	src, err := h.d.Shares.Share(ctx, hash)
	if errors.Is(err, sqlstore.ErrNoShare) {
		return "", notFound
	}
	if err != nil {
		return "", storeError(err)
	}
	return src, nil
}
