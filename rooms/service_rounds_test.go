package rooms

// The Service's rounds (states, questions, reveals, guesses at once), the board's pins, a room's
// lifecycle and the limits, on the fixture of service_test.go.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRoundStateMachine(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	seq := f.round(t, custom)
	steps := []struct {
		name string
		do   func() error
		want error
	}{
		{"guess while open", func() error { return f.svc.Guess(ctx, f.as(t, ada), seq, 300) }, nil},
		{"change guess while open", func() error { return f.svc.Guess(ctx, f.as(t, ada), seq, 400) }, nil},
		{"guess above range", func() error { return f.svc.Guess(ctx, f.as(t, ada), seq, 1001) }, ErrInvalid},
		{"guess below range", func() error { return f.svc.Guess(ctx, f.as(t, ada), seq, -1) }, ErrInvalid},
		{"guess NaN", func() error { return f.svc.Guess(ctx, f.as(t, ada), seq, math.NaN()) }, ErrInvalid},
		{"guess infinite", func() error { return f.svc.Guess(ctx, f.as(t, ada), seq, math.Inf(1)) }, ErrInvalid},
		{"guess unknown round", func() error { return f.svc.Guess(ctx, f.as(t, ada), 9, 1) }, ErrNotFound},
		{"lock", func() error { _, err := f.svc.LockRound(ctx, f.as(t, f.host), seq); return err }, nil},
		{"lock again is harmless", func() error { _, err := f.svc.LockRound(ctx, f.as(t, f.host), seq); return err }, nil},
		{"guess after lock", func() error { return f.svc.Guess(ctx, f.as(t, ada), seq, 500) }, ErrRoundState},
		{"measuring fails", func() error {
			_, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, MeasureFunc(func(context.Context, Question) (float64, error) {
				return 0, ErrNotFound
			}))
			return err
		}, ErrNotFound},
		{"measured NaN", func() error { _, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, measured(math.NaN())); return err }, ErrInvalid},
		{"reveal", func() error { _, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, measured(398)); return err }, nil},
		{"reveal again", func() error { _, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, measured(1)); return err }, ErrRoundState},
		{"lock after reveal", func() error { _, err := f.svc.LockRound(ctx, f.as(t, f.host), seq); return err }, ErrRoundState},
		{"guess after reveal", func() error { return f.svc.Guess(ctx, f.as(t, ada), seq, 1) }, ErrRoundState},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			err := s.do()
			if s.want == nil && err != nil || s.want != nil && !errors.Is(err, s.want) {
				t.Fatalf("error = %v, want %v", err, s.want)
			}
		})
	}
	ex, err := f.svc.Export(ctx, f.as(t, f.host))
	if err != nil {
		t.Fatal(err)
	}
	r := ex.Rounds[0]
	if r.State != RoundRevealed || *r.Measured != 398 || len(r.Guesses) != 1 || r.Guesses[0].Value != 400 {
		t.Fatalf("round ended as %+v", r)
	}
}

func TestRevealLocksAnOpenRound(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	seq := f.round(t, Question{Kind: KindPrediction, Prediction: "q1"})
	// The measurer runs between lock and reveal: a guess sent then must be refused.
	var during error
	rd, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, MeasureFunc(func(_ context.Context, q Question) (float64, error) {
		if q.Prediction != "q1" || q.Unit != "jobs lost" {
			t.Errorf("measurer got %+v", q)
		}
		during = f.svc.Guess(ctx, f.as(t, ada), seq, 10)
		return 398, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	is(t, during, ErrRoundState)
	if rd.State != RoundRevealed || rd.Measured != 398 {
		t.Fatalf("Reveal answered %+v", rd)
	}
}

func TestQuestions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		q     Question
		field string // "" when valid
		check func(Question) bool
	}{
		{"prediction fills unit and range", Question{Kind: KindPrediction, Prediction: "q5"}, "",
			func(q Question) bool { return q.Unit == "jobs run twice" && q.Min == 0 && q.Max == 1e9 }},
		{"unknown prediction", Question{Kind: KindPrediction, Prediction: "q6"}, "question", nil},
		{"measure canonicalises params", Question{Kind: KindMeasure, Experiment: "window", Params: "b=2&a=1", Measure: "escaped"}, "",
			func(q Question) bool { return q.Params == "a=1&b=2" }},
		{"measure without experiment", Question{Kind: KindMeasure, Measure: "escaped"}, "experiment", nil},
		{"measure without measure", Question{Kind: KindMeasure, Experiment: "window"}, "measure", nil},
		{"measure with bad params", Question{Kind: KindMeasure, Experiment: "w", Measure: "m", Params: "a=%zz"}, "params", nil},
		{"custom", custom, "", func(q Question) bool { return q.Max == 1000 && q.Unit == "jobs" }},
		{"custom negative range", Question{Kind: KindCustom, Text: "Skew?", Min: -5, Max: 5}, "",
			func(q Question) bool { return q.Min == -5 }},
		{"custom without range", Question{Kind: KindCustom, Text: "How many?"}, "max", nil},
		{"custom inverted range", Question{Kind: KindCustom, Text: "How many?", Min: 5, Max: 1}, "max", nil},
		{"custom infinite range", Question{Kind: KindCustom, Text: "How many?", Max: math.Inf(1)}, "max", nil},
		{"custom without text", Question{Kind: KindCustom, Max: 5}, "text", nil},
		{"unit with newline", Question{Kind: KindCustom, Text: "x", Unit: "a\nb", Max: 5}, "unit", nil},
		{"no kind", Question{}, "question", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := tc.q.Normalize()
			if tc.field == "" {
				if err != nil || !tc.check(q) {
					t.Fatalf("Normalize = %+v, %v", q, err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Normalize error = %v, want one naming %q", err, tc.field)
			}
		})
	}
}

func TestPins(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{MaxPins: 2})
	ada := f.join(t, "Ada")
	for _, tc := range []struct {
		name, path, note string
		want             error
		field            string
	}{
		{"pin", "/blocks/4?max_delay=5000", "Look at the tail", nil, ""},
		{"140 characters", "/assembly", strings.Repeat("n", 140), nil, ""},
		{"141 characters", "/assembly", strings.Repeat("n", 141), ErrInvalid, "note"},
		{"note with a newline", "/assembly", "a\nb", ErrInvalid, "note"},
		{"other origin", "https://example.com/", "", ErrInvalid, "path"},
		{"protocol-relative", "//example.com/x", "", ErrInvalid, "path"},
		{"javascript", "javascript:alert(1)", "", ErrInvalid, "path"},
		{"over the limit", "/blocks/1", "third", ErrLimit, "pins"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.svc.AddPin(ctx, f.as(t, ada), tc.path, tc.note)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			is(t, err, tc.want)
			var fe *FieldError
			var le *LimitError
			if !(errors.As(err, &fe) && fe.Field == tc.field || errors.As(err, &le) && le.Field == tc.field) {
				t.Fatalf("error %v does not name %q", err, tc.field)
			}
		})
	}
	is(t, f.svc.Present(ctx, f.as(t, f.host), "https://example.com"), ErrInvalid)
}

func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{IdleClose: 2 * time.Hour, DeleteAfter: 48 * time.Hour})
	ada := f.join(t, "Ada")
	seq := f.round(t, custom)

	// Activity keeps the room open past the idle time measured from its creation.
	f.clock.add(90 * time.Minute)
	if err := f.svc.Guess(ctx, f.as(t, ada), seq, 1); err != nil {
		t.Fatal(err)
	}
	f.clock.add(90 * time.Minute)
	if err := f.svc.Guess(ctx, f.as(t, ada), seq, 2); err != nil {
		t.Fatalf("room closed although active: %v", err)
	}

	f.clock.add(2*time.Hour + time.Second)
	is(t, f.svc.Guess(ctx, f.as(t, ada), seq, 3), ErrRoomClosed)
	var fe *FieldError
	if err := f.svc.Present(ctx, f.as(t, f.host), "/"); !errors.As(err, &fe) || !errors.Is(err, ErrRoomClosed) {
		t.Fatalf("closed room's refusal = %v, want a FieldError", err)
	}
	st, err := f.svc.State(ctx, f.as(t, ada), nil)
	if err != nil || !st.Closed {
		t.Fatalf("state of a closed room: %+v, %v", st.Closed, err)
	}
	ex, err := f.svc.Export(ctx, f.as(t, f.host))
	if err != nil || !ex.Closed || ex.Rounds[0].Guesses[0].Value != 2 {
		t.Fatalf("export of a closed room: %+v, %v", ex, err)
	}

	closed, deleted, err := f.svc.Sweep(ctx)
	if err != nil || closed != 0 || deleted != 0 {
		t.Fatalf("early sweep: %d closed, %d deleted, %v", closed, deleted, err)
	}
	f.clock.add(48 * time.Hour)
	if _, deleted, err = f.svc.Sweep(ctx); err != nil || deleted != 1 {
		t.Fatalf("sweep deleted %d, %v; want 1", deleted, err)
	}
	_, err = f.identify(f.host)
	is(t, err, ErrNotFound)
}

func TestDefaults(t *testing.T) {
	c := NewService(NewMemStore(), Config{}).Config()
	if c.MaxMembers != 100 || c.MaxOpenRooms != 200 || c.MaxPins != 20 || c.IdleClose != 24*time.Hour ||
		c.DeleteAfter != 30*24*time.Hour {
		t.Fatalf("defaults = %+v", c)
	}
}

// TestConcurrentGuessesThroughService is the class of 30 answering at once, through the rules.
func TestConcurrentGuessesThroughService(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	keys := make([]string, 30)
	for i := range keys {
		keys[i] = f.join(t, fmt.Sprintf("Member %d", i))
	}
	seq := f.round(t, custom)
	var wg sync.WaitGroup
	for i, k := range keys {
		c := f.as(t, k)
		wg.Go(func() {
			if err := f.svc.Guess(ctx, c, seq, float64(i)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st, err := f.svc.State(ctx, f.as(t, f.host), nil)
	if err != nil || st.Rounds[0].Answered != 30 || st.Rounds[0].Of != 30 {
		t.Fatalf("after 30 guesses: %+v, %v", st.Rounds, err)
	}
}

// TestMessagesWriteNumbersAsTheSiteDoes checks that the numbers in refusals read as every other
// number of the notebook: with thousands separators and never in the 1e+09 style.
func TestMessagesWriteNumbersAsTheSiteDoes(t *testing.T) {
	q, err := Question{Kind: KindPrediction, Prediction: "q1"}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	custom := Question{Kind: KindCustom, Text: "Share?", Min: 0.25, Max: 12500}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{q.Accepts(-1), "a guess lies between 0 and 1,000,000,000"},
		{custom.Accepts(20000), "a guess lies between 0.25 and 12,500"},
		{&LimitError{Field: "rooms", Max: 5000}, "rooms: at most 5,000 allowed"},
		{func() error {
			_, err := Question{Kind: KindMeasure, Experiment: "window", Measure: "escaped", Params: strings.Repeat("a", 1001)}.Normalize()
			return err
		}(), "the parameters are longer than 1,000 bytes"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("message %v, want it to say %q", tc.err, tc.want)
		}
	}
}

// TestRoundAndBoardLimits checks the bounds on a room's rounds and board: a refused round leaves
// the open one open, and the board's bound counts every member's pins.
func TestRoundAndBoardLimits(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{MaxRounds: 2, MaxBoard: 3})
	ada, bea := f.join(t, "Ada"), f.join(t, "Bea")
	f.round(t, custom)
	seq := f.round(t, custom)
	if _, err := f.svc.OpenRound(ctx, f.as(t, f.host), custom); !errors.Is(err, ErrLimit) {
		t.Fatalf("a third round of 2: %v", err)
	}
	if err := f.svc.Guess(ctx, f.as(t, ada), seq, 5); err != nil {
		t.Fatalf("the open round after a refused one: %v", err)
	}
	for i, key := range []string{ada, bea, ada} {
		if _, err := f.svc.AddPin(ctx, f.as(t, key), "/blocks/"+string(rune('1'+i)), ""); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.svc.AddPin(ctx, f.as(t, bea), "/blocks/6", "")
	var le *LimitError
	if !errors.As(err, &le) || le.Field != "board" || le.Max != 3 {
		t.Fatalf("a fourth pin on a board of 3: %v", err)
	}
}

// TestCallerPrintsNoKey: a Caller printed by any verb says who it is, never the key it holds.
func TestCallerPrintsNoKey(t *testing.T) {
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	for _, key := range []string{f.host, ada} {
		c := f.as(t, key)
		for _, verb := range []string{"%v", "%+v", "%s"} {
			if out := fmt.Sprintf(verb, c); strings.Contains(out, key) || !strings.Contains(out, c.Room.ID) {
				t.Errorf("%s of a caller: %q", verb, out)
			}
		}
	}
}

// TestRevealRefusesATruthOutsideTheRange: a custom round's true value, typed by its host, lies in
// the range the round takes answers in; one outside it (or no number) is refused naming the field,
// and the round keeps taking answers, as if the typo had not been sent. (QA report, item 12.)
func TestRevealRefusesATruthOutsideTheRange(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	seq := f.round(t, Question{Kind: KindCustom, Text: "How many?", Min: 0, Max: 50})
	for _, v := range []float64{60, -1, math.Inf(1)} {
		_, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, measured(v))
		is(t, err, ErrInvalid)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "measured" || (v == 60 && !strings.Contains(fe.Message, "0 to 50")) {
			t.Errorf("true value %v: %v, want a refusal naming measured and the range", v, err)
		}
	}
	if err := f.svc.Guess(ctx, f.as(t, ada), seq, 20); err != nil {
		t.Fatalf("a guess after the refused reveals: %v (the round should still be open)", err)
	}
	rd, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, measured(50))
	if err != nil || rd.State != RoundRevealed || rd.Measured != 50 {
		t.Fatalf("a true value at the range's end: %v %v %v", rd.State, rd.Measured, err)
	}
}
