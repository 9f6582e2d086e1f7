package pages

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestReadGuessing: the cookies are read as app.js writes them, the last guess for a key wins, and
// whatever is malformed (a key that is no key, a value that is no count) is skipped, never an error;
// with the switch off no guess counts.
func TestReadGuessing(t *testing.T) {
	g := ReadGuessing("on", "3d55feb200f6:300|nonsense|ABCDEF123456:1|0123456789ab:-5|0123456789ac:1e999|0123456789ad:1e+21|3d55feb200f6:250")
	if v, ok := g.Guess("3d55feb200f6"); !ok || v != 250 {
		t.Errorf("guess = %v, %v; want the last one, 250", v, ok)
	}
	if v, ok := g.Guess("0123456789ad"); !ok || v != 1e21 {
		t.Errorf("1e+21 read as %v, %v", v, ok)
	}
	for _, key := range []string{"ABCDEF123456", "0123456789ab", "0123456789ac"} {
		if v, ok := g.Guess(key); ok {
			t.Errorf("%s read as %v, want it skipped", key, v)
		}
	}
	if off := ReadGuessing("", "3d55feb200f6:300"); off.On {
		t.Error("no opt-in cookie reads as on")
	} else if _, ok := off.Guess("3d55feb200f6"); ok {
		t.Error("a guess counts with the switch off")
	}
}

// TestGuessStates: a block draws its question hidden and its verdict empty for a reader who does
// not hide results; hidden behind the question (predict-pending) for one who does and has not
// guessed this run; and revealed with the verdict for one who has.
func TestGuessStates(t *testing.T) {
	r := windowRun()
	render := func(g Guessing) string {
		site := testSite()
		site.Guessing = g
		v, err := NewExperimentView(site, "/blocks/4", r, []Run{r})
		if err != nil {
			t.Fatal(err)
		}
		if v.Guess == nil {
			t.Fatal("the window block has no headline")
		}
		var buf bytes.Buffer
		if err := Experiment(v).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	off := render(Guessing{})
	on := render(ReadGuessing("on", ""))
	for _, tc := range []struct {
		name, html string
		want, not  []string
	}{
		{"off", off,
			[]string{`<section class="experiment" id="exp-window"`, `class="predict-ask" id="exp-window-guess-form"`, `data-measured="198" data-measured-text="198" novalidate hidden>`,
				`<label for="exp-window-guess" class="predict-q">How many duplicates escape a window of 500 ids when redeliveries come up to 1,000 jobs late, on 20,000 jobs with 2% crashing?</label>`,
				`<span class="unit">escaped duplicates</span>`, `id="exp-window-guessed" tabindex="-1" hidden>`},
			[]string{"predict-pending", "You guessed"}},
		{"on, no guess", on,
			[]string{`<section class="experiment predict-pending" id="exp-window"`, `data-measured-text="198" novalidate>`, `id="exp-window-guessed" tabindex="-1" hidden>`},
			[]string{"You guessed"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.html, w) {
				t.Errorf("%s: block lacks %q", tc.name, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(tc.html, n) {
				t.Errorf("%s: block has %q", tc.name, n)
			}
		}
	}
	// The key the page carries is the one a guess is kept under: guessed, the block opens with
	// the verdict and asks nothing.
	k := between(on, `data-predict-key="`, `"`)
	guessed := render(ReadGuessing("on", k+":300"))
	for _, w := range []string{`<section class="experiment" id="exp-window"`, `novalidate hidden>`,
		`<div class="predict-verdict" id="exp-window-guessed" tabindex="-1"><p class="predict-q">How many duplicates escape a window of 500 ids`,
		`<p class="predict-said">You guessed 300; measured 198 (102 too high).</p>`} {
		if !strings.Contains(guessed, w) {
			t.Errorf("guessed: block lacks %q", w)
		}
	}
	// A guess for another run (another key) reveals nothing here.
	if other := render(ReadGuessing("on", "0123456789ab:300")); !strings.Contains(other, "predict-pending") {
		t.Error("a guess for another run revealed this one")
	}
}
