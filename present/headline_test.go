package present

import (
	"context"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestHeadlinesAsked: at the document's values each experiment's headline is the number the
// documents print, asked in words that state the run's parameters, with what it counts; the
// assembly asks each page's own design.
func TestHeadlinesAsked(t *testing.T) {
	for _, tc := range []struct {
		experiment, row, question, unit, measured string
	}{
		{"assembly", "", "With a dedup key written in its own statement after the effect, how many of 20,000 jobs run twice with 2% crashing?", "jobs duplicated", "398"},
		{"assembly", "at-most-once", "Acking each job before running it, how many of 20,000 jobs are lost with 2% crashing?", "jobs lost", "398"},
		{"assembly", "at-least-once", "Acking each job after running it, how many of 20,000 jobs run twice with 2% crashing?", "jobs duplicated", "398"},
		{"assembly", "dedup-transactional", "With the dedup key and the effect committed in one transaction, how many of 20,000 jobs run twice with 2% crashing?", "jobs duplicated", "0"},
		{"crash-sweep", "", "Acking each job before running it, with 20% crashing, how many of 20,000 jobs raise an error?", "errors raised", "0"},
		{"keys", "", "With a dedup key made of the job id and the attempt number, how many of 20,000 jobs run twice with 2% crashing?", "jobs duplicated", "398"},
		{"window", "", "How many duplicates escape a window of 1,000 ids when redeliveries come up to 2,000 jobs late, on 20,000 jobs with 2% crashing?", "escaped duplicates", "195"},
		{"window-grid", "", "How many duplicates escape a window of 2,000 ids when redeliveries come up to 5,000 jobs late, on 20,000 jobs with 2% crashing?", "escaped duplicates", "231"},
		{"window-time", "", "At 100 messages a second, how many ids does a dedup window of 5 min hold?", "ids the window holds", "30,000"},
		{"orderings", "", "Writing the dedup key first and the effect after it, how many of 20,000 jobs are lost with 2% crashing?", "jobs lost", "398"},
		{"lease", "", "Most jobs take about 2 s, but 5% take about 40 s. With a 5 s visibility timeout and no renewal, how many of 20,000 jobs run twice?", "jobs run twice without renewal", "2,448"},
		{"claims", "", "Of the 9 claims, how many hold on 20,000 jobs with 2% crashing and redeliveries up to 2,000 jobs late?", "claims that hold", "9"},
		{"scale", "", "At 1,000,000,000 messages a day, each with a 0.0001% chance that its worker dies in the crash window, how many duplicates a day?", "duplicates a day", "1,000"},
		{"outbox", "", "With a transactional outbox, and a consumer that keeps no dedup key, how many of 20,000 events are applied a second time with each step crashing 2% of the time?", "duplicate applications", "400"},
	} {
		t.Run(tc.experiment+"/"+tc.row, func(t *testing.T) {
			e, _ := experiments.Lookup(tc.experiment)
			p := e.Defaults()
			res, err := e.Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			h, ok := HeadlineOf(e, p, res, tc.row)
			if !ok {
				t.Fatal("no headline")
			}
			if h.Question != tc.question || h.Unit != tc.unit || h.Measured != tc.measured {
				t.Errorf("headline:\n got %q, %q, %q\nwant %q, %q, %q", h.Question, h.Unit, h.Measured, tc.question, tc.unit, tc.measured)
			}
		})
	}
}

// TestHeadlineAskedAtTheReadersRun: a reader who moved the parameters is asked about their run: the
// question states the new values, and a moved value it does not state (a seed) follows it.
func TestHeadlineAskedAtTheReadersRun(t *testing.T) {
	e, _ := experiments.Lookup("window")
	p := e.Defaults().(experiments.WindowParams)
	p.MaxDelay, p.Seed, p.DelaySeed = 5000, 14, 18
	res, err := e.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := HeadlineOf(e, p, res, "")
	want := "How many duplicates escape a window of 2,000 ids when redeliveries come up to 5,000 jobs late, on 20,000 jobs with 2% crashing? (With stream seed 14; delay seed 18.)"
	if !ok || h.Question != want {
		t.Errorf("question = %q, want %q", h.Question, want)
	}
	if h.Point != "2000" || h.Measured != GuessNumber(h.Value) {
		t.Errorf("headline %+v, want window 2,000 measured as GuessNumber writes it", h)
	}
}

// TestGuessVerdict: the verdict says the guess, the measurement and the gap, in the numbers app.js
// writes when it reveals a result (thousands separators, at most two decimals).
func TestGuessVerdict(t *testing.T) {
	for _, tc := range []struct {
		guess, measured float64
		want            string
	}{
		{300, 195, "You guessed 300; measured 195 (105 too high)."},
		{100, 195, "You guessed 100; measured 195 (95 too low)."},
		{195, 195, "You guessed 195; measured 195 (exactly right)."},
		{1e6, 2448, "You guessed 1,000,000; measured 2,448 (997,552 too high)."},
		{86, 86.4, "You guessed 86; measured 86.4 (0.4 too low)."},
		{0.125, 0, "You guessed 0.13; measured 0 (0.13 too high)."},
	} {
		if got := GuessVerdict(tc.guess, tc.measured); got != tc.want {
			t.Errorf("GuessVerdict(%v, %v) = %q, want %q", tc.guess, tc.measured, got, tc.want)
		}
	}
	if got := GuessNumber(1234567.891); got != "1,234,567.89" {
		t.Errorf("GuessNumber = %q", got)
	}
	if !strings.HasPrefix(GuessNumber(-2.5), "-2.5") {
		t.Errorf("GuessNumber(-2.5) = %q", GuessNumber(-2.5))
	}
	for v, want := range map[float64]string{-1234.5: "-1,234.5", -0.001: "0", 0: "0", 1e6: "1,000,000"} {
		if got := GuessNumber(v); got != want {
			t.Errorf("GuessNumber(%v) = %q, want %q", v, got, want)
		}
	}
}
