package site

// Axe and the screenshots: the slow part of the browser suite, which TestBrowser starts first and
// runs beside the functional scenarios.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"effectivelyonce/content"
)

// browserAxe runs axe-core on every page, in the light and the dark theme and on a phone, and fails
// on serious and critical violations.
func browserAxe(t *testing.T, b *browserSuite) {
	src, err := os.ReadFile(filepath.Join("..", "..", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("axe-core missing (npm ci): %v", err)
		}
		t.Skipf("axe-core missing (run npm ci): %v", err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	// The desktop in both themes, and a phone, whose narrower column makes tables and code scroll
	// (a box that scrolls must take keyboard focus).
	for _, v := range []struct {
		name, scheme  string
		width, height int64
		mobile        bool
	}{
		{"light", "light", 1280, 900, false},
		{"dark", "dark", 1280, 900, false},
		{"phone", "light", 390, 844, true},
	} {
		scheme := v.scheme
		wg.Go(func() {
			t.Run(v.name, func(t *testing.T) {
				// axe takes a second or more a page, and much longer on a loaded machine.
				tb := b.newTab(t, tabOption{deadline: 100 * time.Second})
				tb.emulate(v.width, v.height, v.mobile, scheme)
				for _, p := range pagePaths() {
					tb.open(p)
					tb.waitCharts()
					if dark := browserEval[bool](tb, `matchMedia("(prefers-color-scheme: dark)").matches`); dark != (scheme == "dark") {
						t.Fatalf("prefers-color-scheme emulation failed: dark=%v", dark)
					}
					browserEval[chromedp.Void](tb, string(src))
					// violation is what testdata/browser/axe-violations.js reports for each rule broken.
					type violation struct {
						ID      string   `json:"id"`
						Impact  string   `json:"impact"`
						Help    string   `json:"help"`
						Targets []string `json:"targets"`
					}
					// Only colour differs between the themes, so the dark run checks colour alone.
					opts := `{resultTypes: ["violations"]}`
					if scheme == "dark" {
						opts = `{resultTypes: ["violations"], runOnly: {type: "rule", values: ["color-contrast", "link-in-text-block"]}}`
					}
					vs := browserEval[[]violation](tb, tb.script("axe-violations.js")+"("+opts+")", chromedp.EvalAwaitPromise)
					for _, v := range vs {
						if v.Impact == "serious" || v.Impact == "critical" {
							t.Errorf("%s (%s): %s [%s] on %d nodes:\n\t%s", p, scheme, v.ID, v.Impact, len(v.Targets), strings.Join(v.Targets[:min(len(v.Targets), 6)], "\n\t"))
						} else {
							t.Logf("%s (%s): %s [%s] %s: %s", p, scheme, v.ID, v.Impact, v.Help, strings.Join(v.Targets[:min(len(v.Targets), 3)], "; "))
						}
					}
				}
			})
		})
	}
}

// browserScreenshots writes full-page screenshots for a person to look at, and fails if anything
// sticks out sideways on a phone.
func browserScreenshots(t *testing.T, b *browserSuite) {
	dir := os.Getenv("ARTIFACTS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata-artifacts", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{
		{"desktop", 1280, 900, false},
		{"mobile", 390, 844, true},
	} {
		for _, scheme := range []string{"light", "dark"} {
			wg.Go(func() {
				t.Run(vp.name+"-"+scheme, func(t *testing.T) {
					// Own storage, so the home page never shows what other subtests measured.
					tb := b.newTab(t, tabOption{ownStorage: true, deadline: 100 * time.Second})
					tb.emulate(vp.width, vp.height, vp.mobile, scheme)
					// Every page in the light theme; in the dark one, the pages with each kind of
					// chart, the timeline and the contents (only colour differs).
					pages := pagePaths()
					if scheme == "dark" {
						pages = []string{"/", "/blocks/1", "/blocks/4", "/blocks/6", "/semantics", "/assembly"}
					}
					for _, p := range pages {
						tb.open(p)
						tb.waitCharts()
						if vp.mobile {
							// Nothing may stick out sideways except inside a box that scrolls and
							// shows it, and no caption or heading may be cut off.
							wide := browserEval[[]string](tb, tb.script("sideways-overflow.js"))
							for _, w := range wide {
								t.Errorf("%s at %dpx: overflows sideways: %s", p, vp.width, w)
							}
						}
						png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
						if err != nil {
							t.Fatalf("%s: %v", p, err)
						}
						if len(png) < 8 || string(png[1:4]) != "PNG" {
							t.Fatalf("%s: screenshot is not a PNG", p)
						}
						name := fmt.Sprintf("%dx%d-%s-%s.png", vp.width, vp.height, scheme, pageSlug(t, p))
						if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
							t.Fatal(err)
						}
						for _, prob := range tb.takeProblems() {
							t.Errorf("%s (%s): %s", p, vp.name, prob)
						}
					}
				})
			})
		}
	}
	t.Cleanup(func() { t.Logf("screenshots in %s", dir) })
}

// pageSlug names a screenshot after the page's slug in content.Contents(): "/" is "index",
// "/blocks/4" is "blocks-4". A path that is no page of the contents fails the test, so a renamed
// page cannot leave a screenshot named after a page that no longer exists.
func pageSlug(t testing.TB, path string) string {
	t.Helper()
	for _, e := range content.Contents() {
		if e.Path == path {
			return strings.ReplaceAll(e.Slug, "/", "-")
		}
	}
	t.Fatalf("screenshot of %s: no page of content.Contents() is at that path", path)
	return ""
}
