package workbenchweb

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/workbench"
)

// MaxBody is the most a workbench post may carry, where the site's other routes take 64 KB. A
// handler may have 16 KB, but a reader who pastes far more (a whole file, a log) must hear so in
// the workbench's words, beside the editor, with what they wrote kept; and a form encodes many
// bytes of a source as three, so a paste of 250 KB may send 750 KB.
const MaxBody = 1 << 20

// LimitBody bounds the body of a workbench post at MaxBody, in place of the site's limit, whose
// 413 would answer before the workbench could name the field and keep the reader's code. A body
// that says it is larger is not read at all; one that grows past MaxBody stops there. Either way
// the handler answers the refusal itself (unreadForm, or apiTooLarge).
func LimitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.ContentLength > MaxBody {
			r.Body = tooLargeBody{}
		} else {
			r.Body = http.MaxBytesReader(c.Response(), r.Body, MaxBody)
		}
		return next(c)
	}
}

// tooLargeBody is the body of a request that said it is over MaxBody: every read fails as
// http.MaxBytesReader's does past its limit.
type tooLargeBody struct{}

func (tooLargeBody) Read([]byte) (int, error) { return 0, &http.MaxBytesError{Limit: MaxBody} }
func (tooLargeBody) Close() error             { return nil }

// bodyTooLarge reports whether err comes from a body over MaxBody.
func bodyTooLarge(err error) bool {
	var mb *http.MaxBytesError
	return errors.As(err, &mb)
}

// tooLargeMessage is the refusal of a body over MaxBody (what names the request's kind: "form",
// "body"), for the source field, since the handler is what makes a workbench post that large: its
// size when the request said it, else only that it passed MaxBody.
func tooLargeMessage(r *http.Request, what string) string {
	size := "is larger than"
	if r.ContentLength > MaxBody {
		size = "is " + experiments.Thousands(r.ContentLength) + " bytes, more than"
	}
	return "the handler was not read: the " + what + " sent " + size + " the 1 MB (" + experiments.Thousands(MaxBody) +
		" bytes) the workbench reads, and a handler may have at most " + experiments.Thousands(workbench.MaxSource) + " bytes (16 KB)"
}

// unreadForm answers a workbench post whose body was over MaxBody, so that neither the handler
// nor the parameters were read. htmx gets the refusal in place of the result (or beside Share,
// for a share), and the editor and the parameters, which it does not swap, keep what the reader
// wrote. Without script the page comes back with the refusal and an empty editor, saying where
// the reader's handler still is: in the page they came from.
func (h *Handlers) unreadForm(c echo.Context, share bool) error {
	msg := tooLargeMessage(c.Request(), "form")
	site := h.d.Site(workbenchPath)
	v := h.workbenchBase(site, "")
	v.Unread, v.Fields = true, workbenchFields(nil, nil)
	if web.HTMXOf(c.Request()).Active {
		if share {
			v.ShareError = "Not shared: " + msg + ". The editor still holds it: shorten it, then press Share again."
			return web.Render(c, http.StatusUnprocessableEntity, pages.WorkbenchShareStatus(v))
		}
		v.CodeErrors = []pages.CodeErrorView{{Message: msg + ". The editor still holds it: shorten it, then try again."}}
		retargetResult(c)
		return web.Render(c, http.StatusUnprocessableEntity, pages.WorkbenchResultPanel(v))
	}
	back := ". It is not in the editor below, nor are your parameters: go back to the page you sent them from (your browser keeps what you wrote there), shorten the handler, and send it again."
	if share {
		v.ShareError = "Not shared: " + msg + back
	} else {
		v.CodeErrors = []pages.CodeErrorView{{Message: msg + back}}
	}
	return h.render(c, site, http.StatusUnprocessableEntity, &v)
}

// apiTooLarge answers an API post whose body was over MaxBody: 413, in the API's {"errors"}
// shape, naming the source.
func apiTooLarge(c echo.Context) error {
	return c.JSON(http.StatusRequestEntityTooLarge, map[string]any{"errors": []codeErrorJSON{{Field: "source", Message: tooLargeMessage(c.Request(), "body")}}})
}
