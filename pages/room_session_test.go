package pages

import (
	"context"
	"strings"
	"testing"

	"effectivelyonce/rooms"
)

// barHTML draws the whole bar of v.
func barHTML(t *testing.T, v RoomView) string {
	t.Helper()
	var b strings.Builder
	if err := RoomBar(v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestBarKeepsTheRevealOpen: the bar's round is drawn open while a round takes answers and once the
// newest is revealed (its histogram is where people are), and folded while answers are locked.
func TestBarKeepsTheRevealOpen(t *testing.T) {
	res := &rooms.Result{Measured: 45, Median: 44, Min: 40, Max: 48, Guesses: []rooms.GuessView{{Value: 40}, {Value: 48}}}
	for _, c := range []struct {
		state rooms.RoundState
		open  bool
	}{{rooms.RoundOpen, true}, {rooms.RoundLocked, false}, {rooms.RoundRevealed, true}} {
		rd := rooms.RoundView{Seq: 3, State: c.state, Question: rooms.Question{Kind: rooms.KindCustom, Text: "How many?", Max: 100}}
		if c.state == rooms.RoundRevealed {
			rd.Result = res
		}
		v := RoomView{Bar: true, Room: rooms.View{Role: rooms.AsMember, Rounds: []rooms.RoundView{rd}}}
		bar := barHTML(t, v)
		if got := strings.Contains(bar, `<details class="roombar-round" open>`); got != c.open {
			t.Errorf("%s: the bar's round open %v, want %v", c.state, got, c.open)
		}
	}
}

// TestAskAndSealedMarkup: the host's bar offers the page's numbers in a form that works without
// script; a member's open round about an experiment says which, so the page can ask for that
// block again; a hidden result says so and links to the block.
func TestAskAndSealedMarkup(t *testing.T) {
	v := RoomView{Bar: true, Actions: "/rooms/r", Here: "/blocks/4?max_delay=5000", Room: rooms.View{RoomID: "r", Role: rooms.AsHost},
		SessionView: SessionView{AskURL: "/rooms/r/ask", AskNumbers: []NumberGroup{{Title: "Escape rate versus dedup window",
			Numbers: []NumberChoice{{Value: "experiment=window&measure=escaped&point=1000", Words: "escaped duplicates at window 1,000"}}}}}}
	bar := barHTML(t, v)
	for _, want := range []string{`<summary>Ask about this page</summary>`, `method="post" action="/rooms/r/rounds"`,
		`name="return" value="/blocks/4?max_delay=5000"`, `<option value="experiment=window&amp;measure=escaped&amp;point=1000">escaped duplicates at window 1,000</option>`,
		`hx-get="/rooms/r/ask"`} {
		if !strings.Contains(bar, want) {
			t.Errorf("the host's bar lacks %q", want)
		}
	}
	v.Room.Role = rooms.AsMember
	if strings.Contains(barHTML(t, v), "Ask about this page") {
		t.Error("a member's bar offers to ask")
	}
	rd := rooms.RoundView{Seq: 2, State: rooms.RoundOpen, Question: rooms.Question{Kind: rooms.KindMeasure, Experiment: "window", Measure: "escaped", Point: "1000", Text: "How many?"}}
	v.Room.Rounds = []rooms.RoundView{rd}
	if round := part(t, v, PartRound); !strings.Contains(round, `data-asks="window"`) {
		t.Errorf("a member's open round does not name its experiment: %s", round)
	}
	v.Room.Role = rooms.AsHost
	if round := part(t, v, PartRound); strings.Contains(round, `data-asks`) {
		t.Error("the host's round names its experiment for a page that never hides the host's results")
	}

	ev := ExperimentView{Name: "window", DOMID: "exp-window", Sealed: &Sealed{Room: "r", Round: 2, Question: "How many escaped duplicates at window 1,000?", Show: "/blocks/4?max_delay=5000#exp-window"}}
	var b strings.Builder
	if err := Experiment(ev).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Hidden until the host reveals the answer", `data-sealed-round="2"`, `hx-trigger="eo-revealed"`,
		`href="/blocks/4?max_delay=5000#exp-window">Show the result</a>`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the hidden block lacks %q", want)
		}
	}
}
