package site

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTimelineLabelsTracksAndState holds issue 8 item 25: the crash-window timeline names its two
// tracks in text (not only by colour), numbers its steps 1 to 12 without restarting, and shows beside
// every step the state the concept document draws: committed offset, rows, processed keys.
func TestTimelineLabelsTracksAndState(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, "GET", "/semantics", nil)
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	_, tl, _ := strings.Cut(r.body, `<section class="timeline"`)
	tl, _, _ = strings.Cut(tl, "</section>")
	for _, want := range []string{">Without the fix</text>", ">With the fix</text>"} {
		if strings.Count(tl, want) != 1 {
			t.Errorf("the timeline does not label a track in text: %q", want)
		}
	}
	if i, j := strings.Index(tl, ">With the fix</text>"), strings.Index(tl, `aria-label="Step 7: begin a transaction`); i < 0 || j < i {
		t.Error("the fix track's label does not come before its first step, step 7")
	}
	labels := regexp.MustCompile(`aria-label="Step (\d+): ([^"]*)"`).FindAllStringSubmatch(tl, -1)
	if len(labels) != 12 {
		t.Fatalf("%d steps, want 12", len(labels))
	}
	for i, m := range labels {
		if m[1] != strconv.Itoa(i+1) {
			t.Errorf("step %d is numbered %s", i+1, m[1])
		}
		if regexp.MustCompile(`^t\d`).MatchString(m[2]) {
			t.Errorf("step %s still carries its own time label: %q", m[1], m[2])
		}
		if !strings.Contains(m[2], ", offset ") {
			t.Errorf("step %s does not tell a screen reader its state: %q", m[1], m[2])
		}
	}
	state := regexp.MustCompile(`<text[^>]*class="state"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(tl, -1)
	if len(state) != 12 {
		t.Fatalf("%d steps show their state, want all 12", len(state))
	}
	for i, want := range map[int]string{0: "offset 41 · 0 rows · no keys", 5: "offset 41 · 2 rows · no keys", 8: "offset 41 · 1 row · key 42", 9: "offset 41 · 1 row · key 42", 11: "offset 42 · 1 row · key 42"} {
		if state[i][1] != want {
			t.Errorf("state beside step %d = %q, want %q", i+1, state[i][1], want)
		}
	}
	last := do(t, s, "GET", "/semantics?step=12", map[string]string{"HX-Request": "true", "HX-Target": "timeline"})
	for _, want := range []string{"Step 12 of 12 · with the fix", "<dt>Committed offset</dt><dd>42</dd>", "<dt>Rows written</dt><dd>1</dd>", "<dt>processed_keys</dt><dd>42</dd>"} {
		if !strings.Contains(last.body, want) {
			t.Errorf("the panel of step 12 lacks %q", want)
		}
	}
}
