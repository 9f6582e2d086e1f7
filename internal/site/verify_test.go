package site

import (
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// shrinkLink finds the permalink of a claim's smallest failing case on a verify page.
var shrinkLink = regexp.MustCompile(`(?s)id="exp-claims-shrink-([a-z0-9-]+)".*?class="shrink-link" href="([^"]+)"`)

// TestVerifyShrinksFailure reads the smallest failing case off the verify page with no crashes,
// follows its permalink, and checks through the API that the claim fails there too.
func TestVerifyShrinksFailure(t *testing.T) {
	s := newTestServer(t, testConfig())
	page := do(t, s, "GET", "/verify?crash_rate=0", nil)
	if page.status != 200 {
		t.Fatalf("status %d", page.status)
	}
	m := shrinkLink.FindStringSubmatch(page.body)
	if m == nil || m[1] != experiments.ClaimSmallWindowLeaks.String() {
		t.Fatalf("no smallest failing case for %s: %v", experiments.ClaimSmallWindowLeaks, m)
	}
	if !strings.Contains(page.body, "Smallest failing case") {
		t.Error("the section has no heading")
	}
	link, _, _ := strings.Cut(html.UnescapeString(m[2]), "#")
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if u.Path != "/verify" || q.Get("crash_rate") != "0" || q.Get("jobs") == "" || q.Get("jobs") == "20000" {
		t.Fatalf("permalink %s is not a shorter stream with no crashes", link)
	}
	again := do(t, s, "GET", link, nil)
	if again.status != 200 || !strings.Contains(again.body, `id="exp-claims-shrink-small-window-leaks"`) {
		t.Errorf("the permalink %s does not show the claim failing (status %d)", link, again.status)
	}
	api := do(t, s, "GET", "/api/experiments/claims?"+u.RawQuery, nil)
	var got struct {
		Result experiments.ClaimsResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(api.body), &got); err != nil {
		t.Fatal(err)
	}
	failed := false
	for _, c := range got.Result.Claims {
		if c.Kind == experiments.ClaimSmallWindowLeaks {
			failed = !c.Holds
		}
	}
	if !failed {
		t.Errorf("at %s the API says the claim holds", u.RawQuery)
	}
}

// TestVerifyTracesTheCulprit checks that a failing case with a job to blame draws that job's
// timeline in the case, and that it is the timeline its link opens: on the first 300 jobs the small
// window catches every repeat, and the case names the crashed job whose repeat it caught.
func TestVerifyTracesTheCulprit(t *testing.T) {
	s := newTestServer(t, testConfig())
	page := do(t, s, "GET", "/verify?jobs=300", nil)
	if page.status != 200 {
		t.Fatalf("status %d", page.status)
	}
	_, shrink, ok := strings.Cut(page.body, `class="shrink-case"`)
	if !ok {
		t.Fatal("no failing case on /verify?jobs=300")
	}
	link := regexp.MustCompile(`class="job-id" href="([^"]+)">(\d+)<`).FindStringSubmatch(shrink)
	if link == nil {
		t.Fatal("the case links no culprit")
	}
	trace := regexp.MustCompile(`<section class="job-trace"[^>]*>.*?</section>`).FindString(shrink)
	for _, want := range []string{"Job " + link[2] + ":", "crashed", "redelivered", "dedup_hit"} {
		if !strings.Contains(trace, want) {
			t.Errorf("the case's timeline lacks %q:\n%s", want, trace)
		}
	}
	opened := do(t, s, "GET", html.UnescapeString(link[1]), nil)
	if opened.status != 200 || !strings.Contains(opened.body, "Timeline of job "+link[2]) || !strings.Contains(opened.body, "dedup_hit") {
		t.Errorf("the culprit's link (status %d) does not open the same timeline", opened.status)
	}
}

// TestVerifyDefaultsNoShrink checks that a page where every claim holds shows no failing case.
func TestVerifyDefaultsNoShrink(t *testing.T) {
	s := newTestServer(t, testConfig())
	page := do(t, s, "GET", "/verify", nil)
	if page.status != 200 || !strings.Contains(page.body, "9/9 claims verified") {
		t.Fatalf("status %d, or not every claim verified", page.status)
	}
	if strings.Contains(page.body, "shrink-case") || strings.Contains(page.body, "Smallest failing case") {
		t.Error("a failing case on a page where every claim holds")
	}
}
