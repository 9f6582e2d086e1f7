package pages

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"effectivelyonce/rooms"
)

// part draws one live part of v.
func part(t *testing.T, v RoomView, name string) string {
	t.Helper()
	var b strings.Builder
	if err := RoomPart(v, name).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// twoVoteView is a timed two-vote round on its vote, as role sees it.
func twoVoteView(role rooms.Role, vote int) RoomView {
	first, mine := 10.0, 40.0
	clock := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	rd := rooms.RoundView{Seq: 1, State: rooms.RoundOpen, Question: rooms.Question{Kind: rooms.KindCustom, Text: "How many?", Max: 1000},
		Answered: 1, Of: 3, Votes: 2, Vote: vote, Seconds: 60, Left: 42 * time.Second, Deadline: "2026-12-03T09:00:42.000Z"}
	if role == rooms.AsHost {
		med := 30.0
		rd.Unanswered = []string{"Bob", "Cy"}
		rd.First = &rooms.Tally{Guesses: []rooms.GuessView{{Name: "Ada", Value: 10}, {Name: "Bob", Value: 50}}, Median: med, Min: 10, Max: 50, Q1: 20, Q3: 40}
	} else if vote == 2 {
		rd.YourFirstGuess, rd.YourFirstConfidence = &first, rooms.ConfidenceLow
	} else {
		rd.YourGuess, rd.YourConfidence = &mine, rooms.ConfidenceHigh
	}
	return RoomView{Room: rooms.View{Role: role, Rounds: []rooms.RoundView{rd}, Clock: clock}, Actions: "/rooms/r"}
}

// TestMemberSeesTwoVotes: a member answers with a confidence, sees their first answer in the
// second vote, and the countdown; never who has not answered, nor the first vote's spread.
func TestMemberSeesTwoVotes(t *testing.T) {
	v := twoVoteView(rooms.AsMember, 2)
	round := part(t, v, PartRound)
	for _, want := range []string{"second vote", "Your first answer: <strong>10</strong> (not sure). Keep it", `name="confidence" value="low" checked`,
		`name="value" type="text" inputmode="decimal" required autocomplete="off" value="10"`, "Your answer after the discussion"} {
		if !strings.Contains(round, want) {
			t.Errorf("member's round lacks %q:\n%s", want, round)
		}
	}
	if strings.Contains(round, "second-vote") || strings.Contains(round, "/timer") {
		t.Error("a member is offered the host's controls")
	}
	timer := part(t, v, PartTimer)
	if !strings.Contains(timer, `data-deadline="2026-12-03T09:00:42.000Z"`) || !strings.Contains(timer, `data-clock="2026-12-03T09:00:00.000Z"`) ||
		!strings.Contains(timer, ">0:42<") {
		t.Errorf("countdown: %s", timer)
	}
	if tally := part(t, v, PartTally); strings.TrimSpace(tally) != "" {
		t.Errorf("a member's tally is not empty: %s", tally)
	}
	one := part(t, twoVoteView(rooms.AsMember, 1), PartRound)
	if !strings.Contains(one, "first vote") || !strings.Contains(one, `value="high" checked`) || !strings.Contains(one, "(sure)") {
		t.Errorf("first vote, answered: %s", one)
	}
}

// TestHostSeesTwoVotes: the host sees who has not answered, the first vote's spread before the
// reveal, the second vote's button and the countdown's controls.
func TestHostSeesTwoVotes(t *testing.T) {
	v := twoVoteView(rooms.AsHost, 1)
	tally := part(t, v, PartTally)
	for _, want := range []string{"Not answered yet (2)", "Bob, Cy", `data-histogram="first"`, "median 30"} {
		if !strings.Contains(tally, want) {
			t.Errorf("host's tally lacks %q:\n%s", want, tally)
		}
	}
	if strings.Contains(tally, "hist-truth") {
		t.Error("the first vote's spread draws a measured value before there is one")
	}
	round := part(t, v, PartRound)
	for _, want := range []string{"/rounds/1/second-vote", "Start the second vote", "Pause the countdown", "30 s more"} {
		if !strings.Contains(round, want) {
			t.Errorf("host's round lacks %q", want)
		}
	}
	if second := part(t, twoVoteView(rooms.AsHost, 2), PartRound); strings.Contains(second, "Start the second vote") {
		t.Error("the second vote's button stays once it has begun")
	}
	paused := twoVoteView(rooms.AsHost, 1)
	paused.Room.Rounds[0].Paused, paused.Room.Rounds[0].Deadline = true, ""
	if r, tm := part(t, paused, PartRound), part(t, paused, PartTimer); !strings.Contains(r, "Resume the countdown") || !strings.Contains(tm, "paused with <strong>0:42") {
		t.Errorf("paused: %s\n%s", r, tm)
	}
	up := twoVoteView(rooms.AsHost, 1)
	up.Room.Rounds[0].State, up.Room.Rounds[0].TimeUp, up.Room.Rounds[0].Left = rooms.RoundLocked, true, 0
	if tm := part(t, up, PartTimer); !strings.Contains(tm, "Time is up") || strings.Contains(tm, "data-deadline") {
		t.Errorf("time up: %s", tm)
	}
	if r := part(t, up, PartRound); strings.Contains(r, "Pause the countdown") {
		t.Error("a countdown that ran out can still be paused")
	}
}

// TestRevealShowsBothVotes: the reveal of a two-vote round draws both histograms with the
// measured value, how many moved closer, and the calibration with the member's own level.
func TestRevealShowsBothVotes(t *testing.T) {
	d, fd := 3.0, 5.0
	// One of the two answered the first vote too: "moved closer" is read against them, not both.
	res := &rooms.Result{Measured: 45, Median: 44, Min: 40, Max: 48, MovedCloser: 1, BothVotes: 1,
		Guesses:      []rooms.GuessView{{Value: 40, Confidence: rooms.ConfidenceMedium}, {Value: 48, Confidence: rooms.ConfidenceHigh}},
		Calibration:  []rooms.Calibration{{Confidence: rooms.ConfidenceMedium, Guesses: 1, MeanDistance: 5}, {Confidence: rooms.ConfidenceHigh, Guesses: 1, MeanDistance: 3}},
		First:        &rooms.Tally{Guesses: []rooms.GuessView{{Value: 10}, {Value: 50}, {Value: 100}}, Median: 50, Min: 10, Max: 100},
		YourDistance: &d, YourFirstDistance: &fd, YourConfidence: rooms.ConfidenceHigh,
		YourCalibration: &rooms.Calibration{Confidence: rooms.ConfidenceHigh, Guesses: 1, MeanDistance: 3}}
	v := RoomView{Room: rooms.View{Role: rooms.AsMember, Rounds: []rooms.RoundView{{Seq: 1, State: rooms.RoundRevealed, Votes: 2, Vote: 2,
		Question: rooms.Question{Kind: rooms.KindCustom, Text: "How many?"}, Result: res}},
		YourCalibration: []rooms.RelativeCalibration{{Confidence: rooms.ConfidenceHigh, Guesses: 1, MeanRelativeDistance: 0.0667}}}}
	round := part(t, v, PartRound)
	for _, want := range []string{`data-histogram="first"`, `data-histogram="second"`, "First vote, alone", "Second vote, after discussion",
		"data-moved-closer>1 of 1<", "data-calibration", "fairly sure", "(you: 3 off)", "5 too high", "you were off on average by 7% when sure of"} {
		if !strings.Contains(round, want) {
			t.Errorf("reveal lacks %q", want)
		}
	}
	if n := strings.Count(round, `class="hist-truth"`); n != 2 {
		t.Errorf("%d measured lines, want one on each histogram", n)
	}
}

// TestBarShowsTheHistogram: after a reveal the bar on notebook pages draws the spread with the
// measured value, of a two-vote round the second vote on the axis both share.
func TestBarShowsTheHistogram(t *testing.T) {
	res := &rooms.Result{Measured: 45, Median: 44, Min: 40, Max: 48, Guesses: []rooms.GuessView{{Value: 40}, {Value: 48}},
		First: &rooms.Tally{Guesses: []rooms.GuessView{{Value: 10}, {Value: 100}}, Median: 55, Min: 10, Max: 100}}
	v := RoomView{Bar: true, Room: rooms.View{Role: rooms.AsMember, Rounds: []rooms.RoundView{{Seq: 1, State: rooms.RoundRevealed, Votes: 2, Vote: 2,
		Question: rooms.Question{Kind: rooms.KindCustom, Text: "How many?"}, Result: res}}}}
	bar := part(t, v, PartRound)
	for _, want := range []string{`data-histogram="bar"`, `class="hist-truth"`, "data-measured>45<", "has every guess, the first vote"} {
		if !strings.Contains(bar, want) {
			t.Errorf("the bar lacks %q", want)
		}
	}
	if strings.Contains(bar, `data-histogram="first"`) || strings.Contains(bar, "data-calibration") {
		t.Error("the bar draws what only the room's page has room for")
	}
	if !strings.Contains(bar, ">10<") || !strings.Contains(bar, ">100<") {
		t.Error("the bar's axis is not the one both votes share (10 to 100)")
	}
}

// TestProjectorHandlerTableHasNoControls: the projector's table of submissions after a handler
// round's reveal has no host control ("Show on the projector") and no link (the projector's view
// holds no share, so a link went to /workbench/s/ with no hash and read "Open's handler" to a
// screen reader); names only when the host shows them to members. The host's own table keeps its
// links and buttons. (QA report, item 8.)
func TestProjectorHandlerTableHasNoControls(t *testing.T) {
	draw := func(c templ.Component) string {
		var b strings.Builder
		if err := c.Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	round := func(names bool, member, hash, name string) *rooms.RoundView {
		return &rooms.RoundView{Seq: 2, State: rooms.RoundRevealed, NamesVisible: names,
			Question: rooms.Question{Kind: rooms.KindHandler, Params: "key_window=1000"},
			Handler: &rooms.HandlerView{Submissions: []rooms.SubmissionView{
				{MemberID: member, Name: name, Hash: hash, Verdict: rooms.Verdict{Survives: true}},
				{MemberID: member, Name: name, Hash: hash, Verdict: rooms.Verdict{Lost: 3}}}}}
	}
	host := RoomView{Room: rooms.View{Role: rooms.AsHost, RoomID: "r"}, Actions: "/rooms/r", URL: "/rooms/r"}
	for _, names := range []bool{false, true} {
		name := ""
		if names {
			name = "Ada" // the projector's view keeps names only when the host shows them (roomsweb's projectorRound)
		}
		screen := draw(handlerScreen(host, round(names, "", "", name)))
		for _, bad := range []string{"Show on the projector", "/workbench/s/", "'s handler", "&#39;s handler", "<a ", "<button", "<form"} {
			if strings.Contains(screen, bad) {
				t.Errorf("names %v: the projector's table carries %q:\n%s", names, bad, screen)
			}
		}
		if has := strings.Contains(screen, ">Who<"); has != names {
			t.Errorf("names %v: the projector's table has a Who column: %v", names, has)
		}
		if names && !strings.Contains(screen, ">Ada<") {
			t.Error("the host shows names to members, and the projector leaves them out")
		}
	}
	own := draw(submissionsTable(host, round(false, "m1", "abc123", "Ada"), "Every handler submitted", false))
	for _, want := range []string{`href="/workbench/s/abc123?key_window=1000"`, "Show on the projector", ">Who<", "Open<span class=\"offscreen\"> Ada&#39;s handler</span>"} {
		if !strings.Contains(own, want) {
			t.Errorf("the host's own table lacks %q:\n%s", want, own)
		}
	}
}
