package site

import (
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/pages"
)

// blockOf is the markup of the experiment block with DOM id domID on a page.
func blockOf(t *testing.T, body, domID string) string {
	t.Helper()
	i := strings.Index(body, `id="`+domID+`"`)
	if i < 0 {
		t.Fatalf("no %s on the page", domID)
	}
	i = strings.LastIndex(body[:i], "<section")
	j := strings.Index(body[i:], "</section>")
	if j < 0 {
		t.Fatalf("%s does not end", domID)
	}
	return body[i : i+j]
}

// guessKeyOf is the key a block's question keeps its guess under.
func guessKeyOf(t *testing.T, block string) string {
	t.Helper()
	m := regexp.MustCompile(`data-predict-key="([0-9a-f]{12})"`).FindStringSubmatch(block)
	if m == nil {
		t.Fatalf("no guess key in %.300s", block)
	}
	return m[1]
}

// TestHideResultsUntilIGuess (issue 23): block 4 through the whole stack. Without the opt-in every
// result is drawn as before with its question hidden beside it, carrying the measured value; with
// it, each block is drawn hidden behind its question from the server's markup; a guess kept for
// the run draws the verdict instead; a rerun at other values, whole page or htmx fragment, asks
// again; and the answer says it varies with the cookies.
func TestHideResultsUntilIGuess(t *testing.T) {
	s := newTestServer(t, testConfig())
	off := do(t, s, "GET", "/blocks/4", nil)
	if off.status != 200 {
		t.Fatalf("status %d", off.status)
	}
	if !strings.Contains(strings.Join(off.header.Values("Vary"), ","), "Cookie") {
		t.Errorf("Vary %q, want it to name Cookie", off.header.Values("Vary"))
	}
	for _, want := range []string{
		`<div class="predict-toggle" data-cookie-path="/"><input type="checkbox" id="predict-toggle" data-predict-toggle aria-describedby="predict-toggle-help">`,
		`<label for="predict-toggle">Hide results until I guess</label>`,
	} {
		if !strings.Contains(off.body, want) {
			t.Errorf("block 4 without the opt-in lacks %q", want)
		}
	}
	window := blockOf(t, off.body, "exp-window")
	for _, want := range []string{`<section class="experiment" id="exp-window"`, `data-measured="195" data-measured-text="195" novalidate hidden>`,
		`>How many duplicates escape a window of 1,000 ids when redeliveries come up to 2,000 jobs late, on 20,000 jobs with 2% crashing?</label>`,
		`<div class="reading">`} {
		if !strings.Contains(window, want) {
			t.Errorf("window block without the opt-in lacks %q", want)
		}
	}
	if strings.Contains(off.body, "predict-pending") {
		t.Error("a block is hidden for a reader who did not opt in")
	}

	on := do(t, s, "GET", "/blocks/4", map[string]string{"Cookie": pages.GuessOptInCookie + "=on"})
	if !strings.Contains(on.body, `data-predict-toggle aria-describedby="predict-toggle-help" checked>`) {
		t.Error("the switch is not drawn on for a reader who opted in")
	}
	for _, id := range []string{"exp-window", "exp-window-grid"} {
		b := blockOf(t, on.body, id)
		if !strings.Contains(b, `<section class="experiment predict-pending" id="`+id+`"`) || strings.Contains(b, "novalidate hidden>") {
			t.Errorf("%s is not drawn waiting for a guess: %.200s", id, b)
		}
	}
	key := guessKeyOf(t, blockOf(t, on.body, "exp-window"))
	// The prose that discusses each result is hidden with it from the first paint.
	for _, id := range []string{"exp-window", "exp-window-grid"} {
		if !strings.Contains(on.body, `<div class="prose after-result predict-pending" data-result-of="`+id+`">`) {
			t.Errorf("the discussion of %s is not drawn hidden while it waits for a guess", id)
		}
	}

	cookies := map[string]string{"Cookie": pages.GuessOptInCookie + "=on; " + pages.GuessesCookie + "=" + key + ":300"}
	guessed := do(t, s, "GET", "/blocks/4", cookies)
	window = blockOf(t, guessed.body, "exp-window")
	for _, want := range []string{`<section class="experiment" id="exp-window"`, `novalidate hidden>`,
		`<p class="predict-said">You guessed 300; measured 195 (105 too high).</p>`} {
		if !strings.Contains(window, want) {
			t.Errorf("guessed window block lacks %q", want)
		}
	}
	if !strings.Contains(blockOf(t, guessed.body, "exp-window-grid"), "predict-pending") {
		t.Error("a guess for the window revealed the grid")
	}
	if !strings.Contains(guessed.body, `<div class="prose after-result" data-result-of="exp-window">`) ||
		!strings.Contains(guessed.body, `<div class="prose after-result predict-pending" data-result-of="exp-window-grid">`) {
		t.Error("a guess for the window does not show its discussion alone")
	}

	// A rerun at other values is another run: asked again, in a fragment as on a page.
	for _, hx := range []map[string]string{nil, {"HX-Request": "true", "HX-Target": "exp-window"}} {
		h := map[string]string{"Cookie": cookies["Cookie"]}
		for k, v := range hx {
			h[k] = v
		}
		again := do(t, s, "GET", "/blocks/4?max_delay=5000", h)
		b := blockOf(t, again.body, "exp-window")
		if !strings.Contains(b, `predict-pending`) || guessKeyOf(t, b) == key ||
			!strings.Contains(b, "a window of 2,000 ids when redeliveries come up to 5,000 jobs late") {
			t.Errorf("rerun at max delay 5,000 (htmx %v) not asked again: %.400s", hx != nil, b)
		}
	}
}

// TestEveryBlockAsksItsHeadline: every page with experiments draws the switch once and every
// experiment block on it a question with a measured value, so no experiment a page shows is left
// out when a reader hides results.
func TestEveryBlockAsksItsHeadline(t *testing.T) {
	s := newTestServer(t, testConfig())
	asked := 0
	for _, p := range pagePaths() {
		r := do(t, s, "GET", p, map[string]string{"Cookie": pages.GuessOptInCookie + "=on"})
		if r.status != 200 {
			t.Fatalf("%s: status %d", p, r.status)
		}
		blocks := strings.Count(r.body, `<section class="experiment`)
		questions := regexp.MustCompile(`class="predict-ask" id="[^"]+" data-predict-key="[0-9a-f]{12}" data-measured="[0-9.e+]+" data-measured-text="[^"]+" novalidate>`).FindAllString(r.body, -1)
		if len(questions) != blocks {
			t.Errorf("%s: %d experiment blocks, %d waiting behind a question", p, blocks, len(questions))
		}
		if toggles := strings.Count(r.body, `data-predict-toggle`); (blocks > 0) != (toggles == 1) || toggles > 1 {
			t.Errorf("%s: %d experiment blocks and %d switches", p, blocks, toggles)
		}
		asked += len(questions)
	}
	if asked < 14 {
		t.Errorf("%d blocks asked across the notebook, want every experiment block (at least 14)", asked)
	}
}

// TestPendingProseGivesNothingAway: on every page with experiments, for a reader who hides results
// and has guessed nothing, the prose a reader sees (the page without its blocks and without the
// discussions hidden with them) states no block's headline, written as the page writes it; zero
// and one-digit counts are left out, since "0" and "9" stand in prose for many other things.
func TestPendingProseGivesNothingAway(t *testing.T) {
	s := newTestServer(t, testConfig())
	measured := regexp.MustCompile(`data-measured-text="([^"]+)"`)
	pendingBody := regexp.MustCompile(`(?s)<div class="prose after-result[^"]*predict-pending[^"]*" data-result-of="[^"]*"><p class="after-note">.*?</p><div class="after-body">.*?</div></div>`)
	checked := 0
	for _, p := range pagePaths() {
		r := do(t, s, "GET", p, map[string]string{"Cookie": pages.GuessOptInCookie + "=on"})
		if r.status != 200 {
			t.Fatalf("%s: status %d", p, r.status)
		}
		seen := r.body
		if i := strings.Index(seen, `<article class="page">`); i >= 0 {
			seen = seen[i:]
		}
		for {
			i := strings.Index(seen, `<section class="experiment`)
			if i < 0 {
				break
			}
			j := strings.Index(seen[i:], "</section>")
			if j < 0 {
				t.Fatalf("%s: a block does not end", p)
			}
			seen = seen[:i] + seen[i+j+len("</section>"):]
		}
		seen = pendingBody.ReplaceAllString(seen, "")
		for _, m := range measured.FindAllStringSubmatch(r.body, -1) {
			v := m[1]
			if len(v) < 3 {
				continue
			}
			checked++
			if regexp.MustCompile(`(^|[^0-9.,])` + regexp.QuoteMeta(v) + `($|[^0-9]|[.,][^0-9])`).MatchString(seen) {
				t.Errorf("%s: the prose beside a hidden result states its headline, %s", p, v)
			}
		}
	}
	if checked < 8 {
		t.Errorf("checked %d headlines, want every block's of three digits or more", checked)
	}
}
