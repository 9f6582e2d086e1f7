package workbenchweb

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// longHandler is a handler of about n bytes that ends with a line a test can look for: the
// reader's code, kept whole, ends with it.
func longHandler(n int) string {
	var b strings.Builder
	b.WriteString("def handle(job, queue, db, bus):\n    db.apply(job.id)\n    queue.ack()\n")
	for b.Len() < n {
		b.WriteString("# a long comment line, pasted from somewhere else by mistake\n")
	}
	b.WriteString("# the last line of the paste\n")
	return b.String()
}

// postForm posts form to target, as htmx does when hx is set.
func postForm(e *echo.Echo, target string, form url.Values, hx bool) response {
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if hx {
		req.Header.Set("HX-Request", "true")
	}
	return send(e, req)
}

// TestLongHandlerEveryPost: a handler pasted far past its 16 KB (250 KB here) is refused by
// every post of the workbench's form in the workbench's own words, naming its size, with the
// reader's code and values kept: without script the page comes back whole, code in the editor;
// htmx gets the refusal in place of the old result (Share's beside its button), never a stale
// result, and never the 413 of a body limit.
func TestLongHandlerEveryPost(t *testing.T) {
	e := newTestEcho(t, 1000)
	src := longHandler(250 << 10)
	size := regexp.MustCompile(`The handler is 25\d,\d{3} bytes long; the limit is 16,384 \(16 KB\)\.`)
	form := url.Values{"source": {src}, "template": {"ack-after-work"}, "jobs": {"5000"}, "trace": {"1:16"}, "which": {"1:duplicated"}, "lab_point": {"1"}}
	for _, path := range []string{"/workbench", "/workbench/trace", "/workbench/jobs", "/workbench/lab"} {
		r := postForm(e, path, form, false)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "<h1>The workbench</h1>") || !size.MatchString(r.body) {
			t.Errorf("%s without script: %d, not the page with the size named", path, r.status)
			continue
		}
		if !strings.Contains(r.body, "# the last line of the paste") || !strings.Contains(r.body, `name="jobs" value="5000"`) {
			t.Errorf("%s without script: the reader's code or jobs=5000 are not kept", path)
		}
		if !strings.Contains(r.body, "The handler was refused as a whole, for the reason below, so no line is marked") || strings.Contains(r.body, "the editor marks its line") {
			t.Errorf("%s without script: the alert promises a line to mark", path)
		}
		if strings.Contains(r.body, `class="wb-verdict`) {
			t.Errorf("%s without script: a result stands beside the refusal", path)
		}

		r = postForm(e, path, form, true)
		if r.status != http.StatusUnprocessableEntity || strings.Contains(r.body, "<h1>") || !size.MatchString(r.body) ||
			!strings.HasPrefix(r.body, `<section class="wb-result" id="wb-result"`) || strings.Contains(r.body, `class="wb-verdict`) {
			t.Errorf("%s with htmx: %d, not the result panel with the refusal alone:\n%.600s", path, r.status, r.body)
		}
		if path != "/workbench" && (r.header.Get("HX-Retarget") != "#wb-result" || !strings.HasPrefix(r.header.Get("HX-Reswap"), "outerHTML")) {
			t.Errorf("%s with htmx: the refusal goes to %q (%q), not in place of the result", path, r.header.Get("HX-Retarget"), r.header.Get("HX-Reswap"))
		}
	}

	r := postForm(e, "/workbench/share", form, false)
	shareRefusal := `<p class="wb-share-status problem" id="wb-share-status" role="alert" tabindex="-1">Not shared: the handler is 25`
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, shareRefusal) || !strings.Contains(r.body, "# the last line of the paste") {
		t.Errorf("Share without script: %d, not the page with the code and the refusal beside Share", r.status)
	}
	r = postForm(e, "/workbench/share", form, true)
	if r.status != http.StatusUnprocessableEntity || !strings.HasPrefix(r.body, shareRefusal) || strings.Contains(r.body, "<h1>") {
		t.Errorf("Share with htmx: %d %.300s", r.status, r.body)
	}

	for path, body := range map[string]map[string]any{"/api/workbench/check": {"source": src},
		"/api/workbench/jobs": {"source": src, "point": 1, "outcome": "lost"}} {
		r := postJSON(t, e, path, body)
		var got struct {
			Errors []codeErrorJSON `json:"errors"`
		}
		if r.status != http.StatusUnprocessableEntity || json.Unmarshal([]byte(r.body), &got) != nil || len(got.Errors) != 1 ||
			got.Errors[0].Field != "source" || !strings.Contains(got.Errors[0].Message, "bytes long; the limit is 16,384 (16 KB)") {
			t.Errorf("%s: %d %s", path, r.status, r.body)
		}
	}
}

// TestFormTooLargeToRead: past MaxBody the workbench reads nothing, and still answers in its own
// words, naming the source and the size: htmx in place of the result (the editor, which it does
// not swap, keeps the code), without script a page that says where the code still is, the API a
// 413 in its {"errors"} shape.
func TestFormTooLargeToRead(t *testing.T) {
	e := newTestEcho(t, 1000)
	src := longHandler(MaxBody + 100<<10)
	form := url.Values{"source": {src}, "jobs": {"5000"}}
	said := regexp.MustCompile(`the form sent is 1,\d{3},\d{3} bytes, more than the 1 MB \(1,048,576 bytes\) the workbench reads, and a handler may have at most 16,384 bytes \(16 KB\)`)

	r := postForm(e, "/workbench", form, false)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "<h1>The workbench</h1>") || !said.MatchString(r.body) ||
		!strings.Contains(r.body, "It is not in the editor below, nor are your parameters: go back") ||
		!strings.Contains(r.body, "The form was too large for the server to read") {
		t.Errorf("Check without script: %d\n%.3000s", r.status, r.body)
	}
	if strings.Contains(r.body, "# the last line of the paste") || strings.Contains(r.body, "the form keeps what you wrote") {
		t.Error("Check without script: the page claims to keep a form it never read")
	}
	for _, path := range []string{"/workbench", "/workbench/trace", "/workbench/jobs", "/workbench/lab"} {
		r := postForm(e, path, form, true)
		if r.status != http.StatusUnprocessableEntity || !strings.HasPrefix(r.body, `<section class="wb-result" id="wb-result"`) || !said.MatchString(r.body) ||
			!strings.Contains(r.body, "The editor still holds it") || strings.Contains(r.body, `id="wb-params"`) || r.header.Get("HX-Retarget") != "#wb-result" {
			// The parameters are not swapped out of band: the server has not read them.
			t.Errorf("%s with htmx: %d %v\n%.600s", path, r.status, r.header, r.body)
		}
	}
	r = postForm(e, "/workbench/share", form, true)
	if r.status != http.StatusUnprocessableEntity || !strings.HasPrefix(r.body, `<p class="wb-share-status problem"`) || !said.MatchString(r.body) {
		t.Errorf("Share with htmx: %d %.600s", r.status, r.body)
	}
	r = postForm(e, "/workbench/share", form, false)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, `<p class="wb-share-status problem"`) || !said.MatchString(r.body) {
		t.Errorf("Share without script: %d", r.status)
	}
	for _, path := range []string{"/api/workbench/check", "/api/workbench/jobs", "/api/workbench/shares"} {
		r := postJSON(t, e, path, map[string]any{"source": src})
		if r.status != http.StatusRequestEntityTooLarge || !strings.HasPrefix(r.body, `{"errors":[{"field":"source","message":"the handler was not read: the body sent is 1,`) {
			t.Errorf("%s: %d %.300s", path, r.status, r.body)
		}
	}
	// A body that does not say its length is cut at MaxBody all the same.
	req := httptest.NewRequest(http.MethodPost, "/workbench", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.ContentLength = -1
	r = send(e, req)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, "the form sent is larger than the 1 MB") {
		t.Errorf("a body of unknown length: %d", r.status)
	}
}
