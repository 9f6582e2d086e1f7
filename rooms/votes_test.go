package rooms

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func (f *fixture) view(t *testing.T, key string) View {
	t.Helper()
	v, err := f.svc.State(context.Background(), f.as(t, key), nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (f *fixture) guess(t *testing.T, key string, seq int, v float64, c Confidence) {
	t.Helper()
	if err := f.svc.GuessWith(context.Background(), f.as(t, key), seq, v, c); err != nil {
		t.Fatalf("guess %v: %v", v, err)
	}
}

func values(gs []GuessView) []float64 {
	var out []float64
	for _, g := range gs {
		out = append(out, g.Value)
	}
	return out
}

// TestTwoVotes runs a peer-instruction round: alone, then after discussion. The host alone sees
// the first spread before the reveal; members see their own first answer in the second vote;
// the reveal shows both votes, who moved closer and the calibration per confidence level.
func TestTwoVotes(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada, bo, cy := f.join(t, "Ada"), f.join(t, "Bo"), f.join(t, "Cy")
	rd, err := f.svc.OpenRoundWith(ctx, f.as(t, f.host), custom, RoundOptions{Votes: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rd.Votes != 2 || rd.Vote != 1 {
		t.Fatalf("opened as vote %d of %d", rd.Vote, rd.Votes)
	}
	seq := rd.Seq
	f.guess(t, ada, seq, 50, ConfidenceHigh)
	f.guess(t, bo, seq, 200, ConfidenceLow)
	f.guess(t, cy, seq, 90, ConfidenceMedium)

	host, mine := f.view(t, f.host).Rounds[0], f.view(t, ada).Rounds[0]
	if f := host.First; f == nil || !slices.Equal(values(f.Guesses), []float64{50, 90, 200}) || f.Guesses[0].Name != "Ada" ||
		f.Median != 90 || f.Min != 50 || f.Max != 200 || f.Q1 != 70 || f.Q3 != 145 {
		t.Fatalf("host's first spread: %+v", host.First)
	}
	if mine.First != nil || mine.Result != nil {
		t.Fatalf("a member sees the first spread before the reveal: %+v", mine)
	}
	if mine.YourGuess == nil || *mine.YourGuess != 50 || mine.YourConfidence != ConfidenceHigh {
		t.Fatalf("member's own first answer: %v %q", mine.YourGuess, mine.YourConfidence)
	}

	if _, err := f.svc.LockRound(ctx, f.as(t, f.host), seq); err != nil { // the discussion
		t.Fatal(err)
	}
	_, err = f.svc.SecondVote(ctx, f.as(t, ada), seq)
	is(t, err, ErrForbidden)
	for range 2 { // a double click is harmless
		if rd, err = f.svc.SecondVote(ctx, f.as(t, f.host), seq); err != nil {
			t.Fatal(err)
		}
	}
	if rd.State != RoundOpen || rd.Vote != 2 {
		t.Fatalf("after SecondVote: %s, vote %d", rd.State, rd.Vote)
	}
	mine = f.view(t, ada).Rounds[0]
	if mine.State != RoundOpen || mine.Vote != 2 || mine.YourGuess != nil || mine.YourFirstGuess == nil || *mine.YourFirstGuess != 50 ||
		mine.YourFirstConfidence != ConfidenceHigh || mine.Answered != 0 {
		t.Fatalf("member's view of the second vote: %+v", mine)
	}
	f.guess(t, ada, seq, 95, ConfidenceHigh) // closer
	f.guess(t, bo, seq, 250, ConfidenceLow)  // farther
	// Cy keeps quiet: the host sees it, members never do.
	hv := f.view(t, f.host)
	if !slices.Equal(hv.Unanswered, []string{"Cy"}) || !slices.Equal(hv.Rounds[0].Unanswered, []string{"Cy"}) || hv.Rounds[0].Answered != 2 {
		t.Fatalf("host's unanswered in vote 2: %v (answered %d)", hv.Unanswered, hv.Rounds[0].Answered)
	}
	if f := hv.Rounds[0].First; f == nil || !slices.Equal(values(f.Guesses), []float64{50, 90, 200}) {
		t.Fatalf("host's first spread in vote 2: %+v", f)
	}
	if mv := f.view(t, ada); mv.Unanswered != nil || mv.Rounds[0].Unanswered != nil {
		t.Fatalf("a member learns who has not answered: %v", mv.Unanswered)
	}

	if _, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, measured(100)); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.SecondVote(ctx, f.as(t, f.host), seq)
	is(t, err, ErrRoundState)
	res := f.view(t, f.host).Rounds[0].Result
	if !slices.Equal(values(res.Guesses), []float64{95, 250}) || res.Median != 172.5 {
		t.Fatalf("second vote revealed as %v median %v", values(res.Guesses), res.Median)
	}
	if res.First == nil || !slices.Equal(values(res.First.Guesses), []float64{50, 90, 200}) || res.First.Median != 90 {
		t.Fatalf("first vote revealed as %+v", res.First)
	}
	if res.MovedCloser != 1 || res.BothVotes != 2 {
		t.Fatalf("moved closer = %d of %d, want 1 of 2 (Ada 50 -> 95; Bo moved away, Cy did not vote again)", res.MovedCloser, res.BothVotes)
	}
	wantCal := []Calibration{{ConfidenceLow, 1, 150}, {ConfidenceHigh, 1, 5}}
	if !reflect.DeepEqual(res.Calibration, wantCal) {
		t.Fatalf("calibration %+v, want %+v", res.Calibration, wantCal)
	}
	wantFirst := []Calibration{{ConfidenceLow, 1, 100}, {ConfidenceMedium, 1, 10}, {ConfidenceHigh, 1, 50}}
	if !reflect.DeepEqual(res.First.Calibration, wantFirst) {
		t.Fatalf("first vote's calibration %+v, want %+v", res.First.Calibration, wantFirst)
	}
	mv := f.view(t, ada)
	mres := mv.Rounds[0].Result
	if mres.First == nil || mres.First.Guesses[0].Name != "" || mres.YourConfidence != ConfidenceHigh ||
		mres.YourCalibration == nil || *mres.YourCalibration != (Calibration{ConfidenceHigh, 1, 5}) ||
		mres.YourFirstDistance == nil || *mres.YourFirstDistance != -50 || *mres.YourDistance != -5 {
		t.Fatalf("Ada's reveal: %+v", mres)
	}
	if want := []RelativeCalibration{{ConfidenceHigh, 1, 0.05}}; !reflect.DeepEqual(mv.YourCalibration, want) {
		t.Fatalf("Ada's own calibration over the session %+v, want %+v", mv.YourCalibration, want)
	}
}

// TestSecondVoteOnlyOnTheNewest: a second vote on a round the host has since moved on from is
// refused naming the round's number, and the newer round keeps taking answers.
func TestSecondVoteOnlyOnTheNewest(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	older, err := f.svc.OpenRoundWith(ctx, f.as(t, f.host), custom, RoundOptions{Votes: 2})
	if err != nil {
		t.Fatal(err)
	}
	newer := f.round(t, custom)
	_, err = f.svc.SecondVote(ctx, f.as(t, f.host), older.Seq)
	is(t, err, ErrRoundState)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "seq" {
		t.Fatalf("refusal %v does not name seq", err)
	}
	if err := f.svc.Guess(ctx, f.as(t, ada), newer, 3); err != nil {
		t.Fatalf("the newer round after the refused second vote: %v", err)
	}
}

// TestMovedCloserOfBothVotes: "moved closer N of M" reads N against the members who answered both
// votes, not against everyone who answered the second: who joined the discussion late had no first
// answer to move from.
func TestMovedCloserOfBothVotes(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada, bo := f.join(t, "Ada"), f.join(t, "Bo")
	rd, err := f.svc.OpenRoundWith(ctx, f.as(t, f.host), custom, RoundOptions{Votes: 2})
	if err != nil {
		t.Fatal(err)
	}
	f.guess(t, ada, rd.Seq, 10, "")
	if _, err := f.svc.SecondVote(ctx, f.as(t, f.host), rd.Seq); err != nil {
		t.Fatal(err)
	}
	f.guess(t, ada, rd.Seq, 90, "")
	f.guess(t, bo, rd.Seq, 95, "")
	if _, err := f.svc.Reveal(ctx, f.as(t, f.host), rd.Seq, measured(100)); err != nil {
		t.Fatal(err)
	}
	res := f.view(t, f.host).Rounds[0].Result
	if len(res.Guesses) != 2 || res.MovedCloser != 1 || res.BothVotes != 1 {
		t.Fatalf("%d second answers, moved closer %d of %d; want 2 answers, 1 of 1", len(res.Guesses), res.MovedCloser, res.BothVotes)
	}
}

// TestOneVoteRoundAsBefore holds a one-vote round to what it always showed.
func TestOneVoteRoundAsBefore(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	seq := f.round(t, custom)
	_, err := f.svc.SecondVote(ctx, f.as(t, f.host), seq)
	is(t, err, ErrRoundState)
	if err := f.svc.Guess(ctx, f.as(t, ada), seq, 7); err != nil {
		t.Fatal(err)
	}
	if hv := f.view(t, f.host).Rounds[0]; hv.First != nil || hv.Votes != 1 || hv.Vote != 1 || hv.Seconds != 0 || hv.Deadline != "" {
		t.Fatalf("a one-vote round shows %+v", hv)
	}
	if _, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, measured(10)); err != nil {
		t.Fatal(err)
	}
	res := f.view(t, ada).Rounds[0].Result
	if res.First != nil || res.MovedCloser != 0 || res.Calibration != nil || res.YourCalibration != nil ||
		len(res.Guesses) != 1 || res.Median != 7 || *res.YourDistance != -3 {
		t.Fatalf("a one-vote round revealed as %+v", res)
	}
	err = f.svc.GuessWith(ctx, f.as(t, ada), seq, 7, "certain")
	is(t, err, ErrInvalid)
}

// TestCountdown runs a round's clock on a fake one: every view reads the time left from the
// server's clock, pause stands it still, extend adds to it, and at zero the round is locked with
// an ErrTimeUp that a transport maps as it maps ErrRoundState.
func TestCountdown(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada, bo := f.join(t, "Ada"), f.join(t, "Bo")
	for _, bad := range []RoundOptions{{Seconds: 14}, {Seconds: 601}, {Votes: 3}, {Seconds: -1}} {
		_, err := f.svc.OpenRoundWith(ctx, f.as(t, f.host), custom, bad)
		is(t, err, ErrInvalid)
	}
	rd, err := f.svc.OpenRoundWith(ctx, f.as(t, f.host), custom, RoundOptions{Seconds: 30})
	if err != nil {
		t.Fatal(err)
	}
	seq := rd.Seq
	start := f.clock.Now()
	f.clock.add(10 * time.Second)
	f.guess(t, ada, seq, 1, "")
	mv := f.view(t, bo)
	if r := mv.Rounds[0]; r.Seconds != 30 || r.Left != 20*time.Second || r.Paused || r.TimeUp ||
		r.Deadline != start.Add(30*time.Second).Format(timeFormat) || !mv.Clock.Equal(f.clock.Now()) {
		t.Fatalf("member's countdown at 10 s: %+v (clock %v)", r, mv.Clock)
	}
	if sn, _ := f.svc.Snapshot(ctx, mv.RoomID); true {
		if at, ok := sn.NextDeadline(); !ok || !at.Equal(start.Add(30*time.Second)) {
			t.Fatalf("NextDeadline = %v %v", at, ok)
		}
	}

	f.clock.add(5 * time.Second)
	if _, err := f.svc.SetPaused(ctx, f.as(t, f.host), seq, true); err != nil {
		t.Fatal(err)
	}
	f.clock.add(time.Hour) // paused: the time stands still and guesses are still taken
	f.guess(t, bo, seq, 2, "")
	if r := f.view(t, bo).Rounds[0]; !r.Paused || r.Left != 15*time.Second || r.Deadline != "" || r.State != RoundOpen {
		t.Fatalf("paused countdown an hour later: %+v", r)
	}
	if sn, _ := f.svc.Snapshot(ctx, mv.RoomID); true {
		if _, ok := sn.NextDeadline(); ok {
			t.Fatal("a paused countdown has a next deadline")
		}
	}
	if _, err := f.svc.SetPaused(ctx, f.as(t, f.host), seq, false); err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.ExtendTimer(ctx, f.as(t, f.host), seq, 600) // 15 s + 600 s is past 10 min
	is(t, err, ErrInvalid)
	_, err = f.svc.ExtendTimer(ctx, f.as(t, f.host), seq, 0)
	is(t, err, ErrInvalid)
	if rd, err = f.svc.ExtendTimer(ctx, f.as(t, f.host), seq, 10); err != nil {
		t.Fatal(err)
	}
	if left := rd.TimeLeft(f.clock.Now()); left != 25*time.Second {
		t.Fatalf("after extending by 10 s: %v left, want 25 s", left)
	}

	f.clock.add(25 * time.Second) // zero
	err = f.svc.GuessWith(ctx, f.as(t, ada), seq, 3, ConfidenceHigh)
	is(t, err, ErrTimeUp)
	is(t, err, ErrRoundState)
	var te *TimeUpError
	var fe *FieldError
	if !errors.As(err, &te) || te.Seq != seq || !te.Deadline.Equal(f.clock.Now()) || !errors.As(err, &fe) || fe.Field != "round" {
		t.Fatalf("refusal at zero: %v", err)
	}
	hv := f.view(t, f.host)
	if r := hv.Rounds[0]; r.State != RoundLocked || !r.TimeUp || r.Left != 0 || r.Unanswered != nil || hv.Unanswered != nil {
		t.Fatalf("host's view at zero: %+v, unanswered %v", r, hv.Unanswered)
	}
	if g := f.view(t, ada).Rounds[0].YourGuess; g == nil || *g != 1 {
		t.Fatalf("the refused guess replaced Ada's: %v", g)
	}
	_, err = f.svc.ExtendTimer(ctx, f.as(t, f.host), seq, 30)
	is(t, err, ErrTimeUp)
	_, err = f.svc.SetPaused(ctx, f.as(t, f.host), seq, true)
	is(t, err, ErrTimeUp)
	// The host can still reveal what was answered in time.
	if _, err := f.svc.Reveal(ctx, f.as(t, f.host), seq, measured(2)); err != nil {
		t.Fatal(err)
	}
	if res := f.view(t, ada).Rounds[0].Result; len(res.Guesses) != 2 {
		t.Fatalf("revealed %d guesses, want the 2 made in time", len(res.Guesses))
	}
	// A round without a countdown has nothing to pause.
	plain := f.round(t, custom)
	_, err = f.svc.SetPaused(ctx, f.as(t, f.host), plain, true)
	is(t, err, ErrRoundState)
}

// TestSecondVoteRestartsTheCountdown: a first vote that ran out goes to a second vote with the
// full time again, and the first vote's answers stay.
func TestSecondVoteRestartsTheCountdown(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	rd, err := f.svc.OpenRoundWith(ctx, f.as(t, f.host), custom, RoundOptions{Votes: 2, Seconds: 20})
	if err != nil {
		t.Fatal(err)
	}
	f.guess(t, ada, rd.Seq, 5, ConfidenceLow)
	f.clock.add(21 * time.Second)
	is(t, f.svc.Guess(ctx, f.as(t, ada), rd.Seq, 6), ErrTimeUp)
	if rd, err = f.svc.SecondVote(ctx, f.as(t, f.host), rd.Seq); err != nil {
		t.Fatal(err)
	}
	if !rd.Deadline.Equal(f.clock.Now().Add(20 * time.Second)) {
		t.Fatalf("second vote's deadline %v, want 20 s from now", rd.Deadline)
	}
	f.guess(t, ada, rd.Seq, 6, ConfidenceMedium)
	v := f.view(t, ada).Rounds[0]
	if *v.YourGuess != 6 || *v.YourFirstGuess != 5 || v.Left != 20*time.Second {
		t.Fatalf("second vote: %+v", v)
	}
}

// TestSnapshotViewIsState holds the snapshot's views to State's on a round with two votes and a
// countdown: the live streams draw from the snapshot, so they must not differ.
func TestSnapshotViewIsState(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada, bo := f.join(t, "Ada"), f.join(t, "Bo")
	rd, err := f.svc.OpenRoundWith(ctx, f.as(t, f.host), custom, RoundOptions{Votes: 2, Seconds: 60})
	if err != nil {
		t.Fatal(err)
	}
	f.guess(t, ada, rd.Seq, 5, ConfidenceLow)
	if _, err := f.svc.SecondVote(ctx, f.as(t, f.host), rd.Seq); err != nil {
		t.Fatal(err)
	}
	f.guess(t, bo, rd.Seq, 8, ConfidenceHigh)
	f.clock.add(7 * time.Second)
	for _, key := range []string{f.host, ada, bo} {
		want := f.view(t, key)
		sn, err := f.svc.Snapshot(ctx, want.RoomID)
		if err != nil {
			t.Fatal(err)
		}
		c, err := sn.Caller(key, HashKey(key))
		if err != nil {
			t.Fatal(err)
		}
		if got := sn.View(c, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("snapshot view differs from State:\n got %+v\nwant %+v", got, want)
		}
		// Drawn later from the same snapshot, the countdown reads the later clock.
		if got := sn.ViewAt(c, nil, f.clock.Now().Add(time.Minute)); got.Rounds[0].State != RoundLocked || !got.Rounds[0].TimeUp {
			t.Fatalf("a snapshot's view a minute on: %+v", got.Rounds[0])
		}
	}
}

// TestMemberCap: the cap is the Service's setting, up to MaxMembersLimit, and holds.
func TestMemberCap(t *testing.T) {
	if got := NewService(NewMemStore(), Config{MaxMembers: 10_000}).Config().MaxMembers; got != MaxMembersLimit {
		t.Fatalf("a cap of 10,000 runs as %d, want %d", got, MaxMembersLimit)
	}
	is(t, Config{MaxMembers: 501}.Validate(), ErrLimit)
	if err := (Config{MaxMembers: 500}).Validate(); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Config{MaxMembers: MaxMembersLimit})
	ctx := context.Background()
	for i := range MaxMembersLimit {
		if _, err := f.svc.Join(ctx, f.room(t), fmt.Sprintf("Member %d", i)); err != nil {
			t.Fatalf("member %d of %d: %v", i+1, MaxMembersLimit, err)
		}
	}
	_, err := f.svc.Join(ctx, f.room(t), "One too many")
	is(t, err, ErrLimit)
	var le *LimitError
	if !errors.As(err, &le) || le.Max != MaxMembersLimit {
		t.Fatalf("refusal %v does not name the cap", err)
	}
}

// TestExportCarriesVotesAndTimer: the record of a session names each round's question in full,
// its experiment, parameters and row, both votes with their confidences, the countdown, and the
// room's title and code, in JSON and in the CSV.
func TestExportCarriesVotesAndTimer(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada, bo := f.join(t, "Ada"), f.join(t, "Bo")
	q := Question{Kind: KindMeasure, Experiment: "window", Params: "max_delay=5000", Measure: "escaped", Point: "1000",
		Text: "How many duplicates escape a window of 1,000 ids when redeliveries come up to 5,000 jobs late?", Unit: "duplicates"}
	rd, err := f.svc.OpenRoundWith(ctx, f.as(t, f.host), q, RoundOptions{Votes: 2, Seconds: 45})
	if err != nil {
		t.Fatal(err)
	}
	f.guess(t, ada, rd.Seq, 100, ConfidenceLow)
	f.guess(t, bo, rd.Seq, 300, "")
	if _, err := f.svc.SecondVote(ctx, f.as(t, f.host), rd.Seq); err != nil {
		t.Fatal(err)
	}
	f.guess(t, ada, rd.Seq, 190, ConfidenceHigh)
	if _, err := f.svc.Reveal(ctx, f.as(t, f.host), rd.Seq, measured(195)); err != nil {
		t.Fatal(err)
	}
	ex, err := f.svc.Export(ctx, f.as(t, f.host))
	if err != nil {
		t.Fatal(err)
	}
	r := ex.Rounds[0]
	if ex.Title != "Delivery semantics" || ex.Code != f.code || r.Text != q.Text || r.Votes != 2 || r.Vote != 2 ||
		r.MovedCloser == nil || *r.MovedCloser != 1 || r.Timer == nil || r.Timer.Seconds != 45 || r.Revealed == nil {
		t.Fatalf("export round %+v", r)
	}
	type g struct {
		name string
		vote int
		val  float64
		conf Confidence
	}
	var got []g
	for _, x := range r.Guesses {
		got = append(got, g{x.Name, x.Vote, x.Value, x.Confidence})
	}
	if want := []g{{"Ada", 1, 100, ConfidenceLow}, {"Bo", 1, 300, ""}, {"Ada", 2, 190, ConfidenceHigh}}; !slices.Equal(got, want) {
		t.Fatalf("export guesses %+v, want %+v", got, want)
	}
	b, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"experiment":"window"`, `"params":"max_delay=5000"`, `"point":"1000"`, `"votes":2`,
		`"moved_closer":1`, `"timer":{"seconds":45`, `"confidence":"high"`, `"vote":1`, `"text":"How many duplicates escape`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	var buf bytes.Buffer
	if err := ex.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(row []string, name string) string { return row[slices.Index(csvHeader, name)] }
	var room, round []string
	var guesses [][]string
	for _, row := range rows[1:] {
		switch row[0] {
		case "room":
			room = row
		case "round":
			round = row
		case "guess":
			guesses = append(guesses, row)
		}
	}
	if room == nil || col(room, "name") != "Delivery semantics" || col(room, "code") != f.code {
		t.Fatalf("CSV room row %v", room)
	}
	if col(round, "experiment") != "window" || col(round, "params") != "max_delay=5000" || col(round, "point") != "1000" ||
		col(round, "text") != q.Text || col(round, "votes") != "2" || col(round, "seconds") != "45" || col(round, "moved_closer") != "1" ||
		col(round, "measured") != "195" {
		t.Fatalf("CSV round row %v", round)
	}
	if len(guesses) != 3 || col(guesses[2], "vote") != "2" || col(guesses[2], "confidence") != "high" || col(guesses[1], "confidence") != "" {
		t.Fatalf("CSV guess rows %v", guesses)
	}
}
