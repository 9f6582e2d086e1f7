package site

import (
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/content"
)

// urlAttr finds every URL a page hands the browser: links, scripts, styles, form actions and the
// htmx attributes that fetch.
var urlAttr = regexp.MustCompile(`\s(href|src|action|hx-get|hx-post|hx-push-url|data-permalink)="([^"]*)"`)

// TestBasePathCrawl serves the site under /notebook, as the README's reverse-proxy recipe does, and
// follows every URL of every page: each must carry the base path and answer, so a link that forgot
// the base (in the prose, a form, the API, a permalink) fails here.
func TestBasePathCrawl(t *testing.T) {
	const base = "/notebook"
	cfg := testConfig()
	cfg.BasePath = base
	s := newTestServer(t, cfg)

	seen := map[string]bool{}
	var queue []string
	for _, e := range content.Contents() {
		queue = append(queue, base+e.Path)
	}
	// follow checks one URL found on a page and queues it to be fetched. Only pages without a
	// query have their own links followed: a permalink's page links to the same places again.
	follow := func(from, attr, raw string) {
		u, err := url.Parse(html.UnescapeString(raw))
		if err != nil {
			t.Errorf("%s: bad URL %q: %v", from, raw, err)
			return
		}
		if u.Scheme != "" || u.Host != "" || u.Path == "" || raw == "true" {
			return // another site, a fragment of this page, or hx-push-url="true"
		}
		if !strings.HasPrefix(u.Path, base+"/") && u.Path != base {
			t.Errorf("%s links to %q, which lacks the base path %s", from, raw, base)
			return
		}
		u.Fragment = ""
		if attr == "action" || attr == "hx-post" {
			return // a form's target: its base path is checked, but a GET of it means nothing
		}
		if k := u.String(); !seen[k] {
			seen[k] = true
			queue = append(queue, k)
		}
	}
	for len(queue) > 0 {
		target := queue[0]
		queue = queue[1:]
		r := do(t, s, "GET", target, nil)
		if r.status != 200 {
			t.Errorf("GET %s: status %d", target, r.status)
			continue
		}
		if strings.Contains(r.header.Get("Content-Type"), "text/html") && !strings.Contains(target, "?") {
			for _, m := range urlAttr.FindAllStringSubmatch(r.body, -1) {
				follow(target, m[1], m[2])
			}
		}
	}
	for _, e := range content.Contents() {
		if !seen[base+e.Path] && e.Path != "/" {
			t.Errorf("no page links to %s%s", base, e.Path)
		}
	}

	var list struct {
		Experiments []struct{ URL string } `json:"experiments"`
	}
	r := do(t, s, "GET", base+"/api/experiments", nil)
	if err := json.Unmarshal([]byte(r.body), &list); err != nil || len(list.Experiments) == 0 {
		t.Fatalf("api list: %v %.100s", err, r.body)
	}
	for _, e := range list.Experiments {
		if !strings.HasPrefix(e.URL, base+"/api/") {
			t.Errorf("the API lists %q without the base path", e.URL)
		}
	}
	for _, target := range []string{"/", base} {
		if r := do(t, s, "HEAD", target, nil); r.status != 302 || r.header.Get("Location") != base+"/" {
			t.Errorf("HEAD %s: status %d; want the same redirect as GET", target, r.status)
		}
		r := do(t, s, "GET", target, nil)
		if r.status < 300 || r.status > 399 || r.header.Get("Location") != base+"/" {
			t.Errorf("GET %s: status %d, Location %q; want a redirect to %s/", target, r.status, r.header.Get("Location"), base)
		}
	}
}
