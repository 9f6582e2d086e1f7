package site

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestSubmissionTakesLongHandlers: a handler pasted far past its 16 KB and submitted to a handler
// round is refused in words that name the handler, from the workbench's form (with script or
// without) and from the API, never the site's bare 413; past what a submission reads (1 MB), the
// refusal still names the handler and says where it still is.
func TestSubmissionTakesLongHandlers(t *testing.T) {
	s := newTestServer(t, testConfig())
	room := createRoom(t, s, "Long handlers")
	u, err := url.Parse(room.HostURL)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/rooms/"), "/host")
	ada := join(t, s, room.Code, "Ada")
	must(t, call(t, s, "POST", "/api/rooms/"+room.Code+"/rounds", room.HostKey, `{"kind":"handler","template":"ack-after-work"}`), http.StatusCreated, nil)

	long := func(n int) string {
		var b strings.Builder
		b.WriteString(template(t, "ack-after-work"))
		for b.Len() < n {
			b.WriteString("# pasted by mistake, line after line of it\n")
		}
		return b.String()
	}
	seat := "eo_seat_" + id + "=" + ada
	for _, c := range []struct {
		name   string
		size   int
		status int
		htmx   bool
		says   string
	}{
		{"250 KB without script", 250 << 10, http.StatusUnprocessableEntity, false, "bytes long; a handler may have at most 16,384"},
		{"250 KB with htmx", 250 << 10, http.StatusUnprocessableEntity, true, "bytes long; a handler may have at most 16,384"},
		{"1.1 MB without script", 1100 << 10, http.StatusRequestEntityTooLarge, false, "go back to it"},
		{"1.1 MB with htmx", 1100 << 10, http.StatusUnprocessableEntity, true, "the handler was not read"},
	} {
		header := []string{"Cookie", seat}
		if c.htmx {
			header = append(header, "HX-Request", "true")
		}
		r := post(t, s, "/rooms/"+id+"/rounds/1/submission", url.Values{"source": {long(c.size)}}, header...)
		if r.status != c.status || !strings.Contains(r.body, c.says) || !strings.Contains(r.body, "Not submitted") {
			t.Errorf("%s: %d, want %d saying %q\n%.600s", c.name, r.status, c.status, c.says, r.body)
		}
	}
	for _, c := range []struct {
		size   int
		status int
	}{{250 << 10, http.StatusBadRequest}, {1100 << 10, http.StatusRequestEntityTooLarge}} {
		r := call(t, s, "POST", "/api/rooms/"+room.Code+"/rounds/1/submission", ada, `{"source":`+quote(long(c.size))+`}`)
		if r.status != c.status || !strings.Contains(r.body, `"field":"source"`) {
			t.Errorf("the API at %d bytes: %d, want %d naming source: %.300s", c.size, r.status, c.status, r.body)
		}
	}
}
