package site

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/pages"
	"effectivelyonce/present"
)

// TestMalformedQueryIsRefused: a query that does not parse is never run on the defaults. The API
// answers 400 naming the field and the problem; a page keeps the value as typed in its form and
// marks it (422); a malformed key that belongs to no form is a 400 page.
func TestMalformedQueryIsRefused(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, tc := range []struct{ query, field, says string }{
		{"jobs=%zz", "jobs", "two hexadecimal digits"},
		{"jobs=1;seed=2", "jobs", "separate them with '&'"},
		{"seed=5&max_delay=10%", "max_delay", "two hexadecimal digits"},
		{"%zz=1", "%zz", "two hexadecimal digits"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := do(t, s, "GET", "/api/experiments/window?"+tc.query, nil)
			var body present.APIErrors
			if err := json.Unmarshal([]byte(r.body), &body); err != nil || r.status != 400 || len(body.Errors) == 0 {
				t.Fatalf("api: %d %s", r.status, r.body)
			}
			if body.Errors[0].Field != tc.field || !strings.Contains(body.Errors[0].Message, tc.says) {
				t.Errorf("api errors %+v, want field %s saying %q", body.Errors, tc.field, tc.says)
			}
		})
	}
	for _, tc := range []struct {
		query  string
		status int
		want   string
	}{
		{"jobs=%zz", 422, `value="%zz"`},
		{"jobs=%zz", 422, "two hexadecimal digits"}, // the problem is named on the field
		{"jobs=1;seed=2", 422, `value="1;seed=2"`},
		{"jobs=1;seed=2", 422, "separate them with"},
		{"window-grid.windows=5,%zz&seed=7", 422, `value="5,%zz"`},
		{"window-grid.windows=5,%zz&seed=7", 422, "two hexadecimal digits"},
		{"%zz=1", 400, "does not parse"},
		{"step=1;x", 400, "separate them with"},
	} {
		t.Run("page?"+tc.query, func(t *testing.T) {
			r := do(t, s, "GET", "/blocks/4?"+tc.query, nil)
			if r.status != tc.status || !strings.Contains(r.body, tc.want) {
				t.Errorf("status %d, want %d with %q", r.status, tc.status, tc.want)
			}
			if tc.status == 422 && !strings.Contains(r.body, `aria-invalid="true"`) {
				t.Error("the malformed value is not marked in the form")
			}
		})
	}
	if r := do(t, s, "GET", "/blocks/4?seed=7&jobs=20000", nil); r.status != 200 {
		t.Errorf("a well-formed query answered %d", r.status)
	}
}

// TestResponsesStaySmall: however long the query, an answer stays within a small multiple of what
// the page weighs at its defaults. Ten thousand unknown API keys get a handful of errors and a
// count; a page echoes each typed value clipped, and its timeline links carry only the page's own
// parameters.
func TestResponsesStaySmall(t *testing.T) {
	s := newTestServer(t, testConfig())
	var keys []string
	for i := range 10_000 {
		keys = append(keys, "k"+strings.Repeat("x", i%3)+string(rune('a'+i%26))+strconv.Itoa(i)+"=1")
	}
	r := do(t, s, "GET", "/api/experiments/window?"+strings.Join(keys, "&"), nil)
	var body present.APIErrors
	if err := json.Unmarshal([]byte(r.body), &body); err != nil || r.status != 400 {
		t.Fatalf("%d %.300s", r.status, r.body)
	}
	if len(body.Errors) != experiments.MaxFieldErrors+1 || body.Errors[experiments.MaxFieldErrors].Message != "and 9995 more" || len(r.body) > 4<<10 {
		t.Errorf("%d errors in %d bytes; last %+v", len(body.Errors), len(r.body), body.Errors[len(body.Errors)-1])
	}

	long := strings.Repeat("9", 30_000)
	for _, e := range content.Contents() {
		page, ok := s.book.Page(e.Slug)
		if !ok {
			t.Fatalf("no page %s", e.Slug)
		}
		normal := len(do(t, s, "GET", e.Path, nil).body)
		q := url.Values{"z": {strings.Repeat("z", 36_000)}, "step": {long}}
		for i, name := range pages.ExperimentsOn(page) {
			ex, _ := experiments.Lookup(name)
			for _, f := range ex.Fields {
				if i == 0 {
					q.Set(f.Name, long)
				} else {
					q.Set(ex.Name+"."+f.Name, long)
				}
			}
		}
		t.Run(e.Slug, func(t *testing.T) {
			r := do(t, s, "GET", e.Path+"?"+q.Encode(), nil)
			if r.status >= 500 {
				t.Fatalf("status %d", r.status)
			}
			t.Logf("%d bytes for a long query, %d at the defaults", len(r.body), normal)
			if len(r.body) > 3*normal {
				t.Errorf("%d bytes for a long query, %d at the defaults: over three times", len(r.body), normal)
			}
			if strings.Contains(r.body, "zzzzzzzzzz") {
				t.Error("a parameter that is no page's was copied into the page")
			}
			if strings.Contains(r.body, strings.Repeat("9", 1001)) {
				t.Error("a typed value echoed with more than the 1,000 characters shown")
			}
		})
	}
}

// TestConditionalAndEncoding: a static file answers 304 to any If-None-Match that names its tag,
// weak or strong, in a list, or "*"; gzip only when Accept-Encoding allows it with a q above 0;
// /metrics is compressed once.
func TestConditionalAndEncoding(t *testing.T) {
	s := newTestServer(t, testConfig())
	path := s.assets.URL("", "app.css")
	tag := `"` + s.assets.Hash("app.css") + `"`
	for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, `W/"other",W/` + tag, "*"} {
		if r := do(t, s, "GET", path, map[string]string{"If-None-Match": inm}); r.status != 304 {
			t.Errorf("If-None-Match %s: %d, want 304", inm, r.status)
		}
	}
	if r := do(t, s, "GET", path, map[string]string{"If-None-Match": `"other", W/"nope"`}); r.status != 200 {
		t.Errorf("a list without the tag: %d, want 200", r.status)
	}
	for ae, gz := range map[string]bool{
		"gzip": true, "gzip;q=0.5": true, "br, gzip": true, "*": true, "GZIP ; Q=1": true,
		"gzip;q=0": false, "gzip; q=0.0, identity": false, "identity": false, "": false, "*;q=0": false, "*, gzip;q=0": false,
	} {
		r := do(t, s, "GET", path, map[string]string{"Accept-Encoding": ae})
		if got := r.header.Get("Content-Encoding") == "gzip"; got != gz || r.status != 200 {
			t.Errorf("Accept-Encoding %q: %d gzip %v, want gzip %v", ae, r.status, got, gz)
		}
		if page := do(t, s, "GET", "/blocks/4", map[string]string{"Accept-Encoding": ae}); !gz && page.header.Get("Content-Encoding") == "gzip" {
			t.Errorf("page with Accept-Encoding %q was gzipped", ae)
		}
	}
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	if rec.Code != http.StatusOK || !strings.HasPrefix(string(b), "# HELP") {
		t.Errorf("/metrics gunzipped once is not text: %.40q", b)
	}
}
