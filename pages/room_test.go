package pages

import (
	"fmt"
	"image"
	"image/color"
	"reflect"
	"slices"
	"strings"
	"testing"

	qrcode "github.com/piglig/go-qr"

	"effectivelyonce/rooms"
)

// TestQRPathDecodes draws the SVG path NewQR makes onto a bitmap and reads it back with the
// library's decoder: the rectangles we write are the code a phone's camera will see.
func TestQRPathDecodes(t *testing.T) {
	const link = "https://eo.example.org/notebook/j/7K3QXM"
	q, err := NewQR(link)
	if err != nil {
		t.Fatal(err)
	}
	const scale = 6
	img := image.NewGray(image.Rect(0, 0, q.Size*scale, q.Size*scale))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for _, cmd := range strings.Split(strings.TrimSuffix(q.Path, "z"), "z") {
		var x, y, run, back int
		if _, err := fmt.Sscanf(cmd, "M%d %dh%dv1h-%d", &x, &y, &run, &back); err != nil || run != back {
			t.Fatalf("path command %q: %v", cmd, err)
		}
		for dx := range run * scale {
			for dy := range scale {
				img.SetGray(x*scale+dx, y*scale+dy, color.Gray{})
			}
		}
	}
	got, err := qrcode.Decode(img)
	if err != nil || got != link {
		t.Fatalf("decoded %q (%v), want %q", got, err, link)
	}
}

// TestHistogram checks that every guess is in a bar, the measured value is on the drawing even
// when every guess is far from it, and the alternative text states the numbers drawn.
func TestHistogram(t *testing.T) {
	res := &rooms.Result{Measured: 195, Median: 250, Min: 90, Max: 500,
		Guesses: []rooms.GuessView{{Value: 90}, {Value: 120}, {Value: 250}, {Value: 260}, {Value: 500}}}
	h := NewHistogram(res)
	n := 0
	for _, b := range h.Bars {
		n += b.Count
	}
	if n != len(res.Guesses) {
		t.Errorf("bars hold %d guesses, want %d", n, len(res.Guesses))
	}
	if h.TruthX <= 0 || h.TruthX >= float64(h.Width) || !strings.Contains(h.Alt, "195") || !strings.Contains(h.Alt, "250") {
		t.Errorf("truth at x=%v of %d, alt %q", h.TruthX, h.Width, h.Alt)
	}
	far := NewHistogram(&rooms.Result{Measured: 1e6, Median: 3, Min: 1, Max: 5,
		Guesses: []rooms.GuessView{{Value: 1}, {Value: 5}}})
	if far.TruthX <= 0 || far.TruthX > float64(far.Width) {
		t.Errorf("a truth far from every guess is drawn at x=%v, off a drawing %d wide", far.TruthX, far.Width)
	}
	second := &rooms.Result{Measured: 195, Median: 200, Min: 190, Max: 210, Guesses: []rooms.GuessView{{Value: 190}, {Value: 210}}}
	if a, b := NewHistogramOver(res, second), NewHistogramOver(second, res); a.Lo != b.Lo || a.Hi != b.Hi || a.TruthX != b.TruthX {
		t.Errorf("two votes on one axis: %s to %s and %s to %s, truth at %v and %v", a.Lo, a.Hi, b.Lo, b.Hi, a.TruthX, b.TruthX)
	}
	if none := NewHistogram(&rooms.Result{Measured: 7}); !strings.Contains(none.Alt, "Nobody guessed") {
		t.Errorf("no guesses: alt %q", none.Alt)
	}
	// One guess is "1 guess", in the alternative text and in the tooltip of the bar that holds it.
	one := NewHistogram(&rooms.Result{Measured: 7, Median: 5, Min: 5, Max: 5, Guesses: []rooms.GuessView{{Value: 5}}})
	if !strings.Contains(one.Alt, "Histogram of 1 guess from") {
		t.Errorf("one guess: alt %q", one.Alt)
	}
	for _, b := range one.Bars {
		if want := map[int]string{0: "0 guesses from ", 1: "1 guess from "}[b.Count]; !strings.HasPrefix(b.Tip, want) {
			t.Errorf("a bar of %d: tooltip %q, want it to start %q", b.Count, b.Tip, want)
		}
	}
}

// TestPartKeys checks what the board's, the history's and the count's keys follow: what they
// draw, and nothing else (a guess, the roster, whose view it is).
func TestPartKeys(t *testing.T) {
	one := 3.0
	v := RoomView{Room: rooms.View{Role: rooms.AsMember,
		Pins:   []rooms.PinView{{ID: "p1", Name: "Ada", Path: "/blocks/4", Note: "tail"}},
		Rounds: []rooms.RoundView{{Seq: 1, State: rooms.RoundRevealed}, {Seq: 2, State: rooms.RoundOpen, Answered: 1}}},
		Headlines: map[string]string{}, Titles: map[string]string{}}
	key := func(v RoomView, part string) uint64 {
		k, ok := v.PartKey(part)
		if !ok {
			t.Fatalf("no key for %s", part)
		}
		return k
	}
	board, history := key(v, PartBoard), key(v, PartHistory)
	same := v
	same.Room.Rounds = []rooms.RoundView{v.Room.Rounds[0], {Seq: 2, State: rooms.RoundOpen, Answered: 2, YourGuess: &one}}
	same.Room.Roster = []rooms.RosterEntry{{ID: "m", Name: "Bea", Present: true}}
	if key(same, PartBoard) != board || key(same, PartHistory) != history {
		t.Error("a guess on the open round or the roster changed the board's or the history's key")
	}
	for what, w := range map[string]RoomView{
		"a hidden pin": func() RoomView {
			w := v
			w.Room.Pins = []rooms.PinView{{ID: "p1", Name: "Ada", Path: "/blocks/4", Note: "tail", Hidden: true}}
			return w
		}(),
		"a headline":      func() RoomView { w := v; w.Headlines = map[string]string{"/blocks/4": "195 escaped."}; return w }(),
		"a closed room":   func() RoomView { w := v; w.Room.Closed = true; return w }(),
		"the host's view": func() RoomView { w := v; w.Room.Role = rooms.AsHost; return w }(),
	} {
		if key(w, PartBoard) == board {
			t.Errorf("%s left the board's key as it was", what)
		}
	}
	revealed := v
	revealed.Room.Rounds = []rooms.RoundView{{Seq: 1, State: rooms.RoundRevealed, Result: &rooms.Result{Measured: 5}}, v.Room.Rounds[1]}
	if key(revealed, PartHistory) == history {
		t.Error("a change to an earlier round left the history's key as it was")
	}
	// The count follows the answers, not whose view it is: a member's own guess leaves it alone,
	// so one drawing serves the whole room.
	count := key(v, PartCount)
	if key(same, PartCount) == count {
		t.Error("a second answer left the count's key as it was")
	}
	mine := v
	mine.Room.Rounds = []rooms.RoundView{v.Room.Rounds[0], {Seq: 2, State: rooms.RoundOpen, Answered: 1, YourGuess: &one}}
	if key(mine, PartCount) != count {
		t.Error("the caller's own guess changed the count's key")
	}
	if key(mine, PartRound) == key(v, PartRound) {
		t.Error("the caller's own guess left the round's key as it was")
	}
	if _, ok := v.PartKey("no such part"); ok {
		t.Error("a name that is no part has a key")
	}
}

// BenchmarkFullBoard compares what a stream spends on a full board (200 pins, the default bound)
// for a change elsewhere in the room: drawing it again, or only working out that its key is the
// same.
func BenchmarkFullBoard(b *testing.B) {
	v := RoomView{Room: rooms.View{Role: rooms.AsMember}, Headlines: map[string]string{}, Titles: map[string]string{},
		Site: Site{Base: ""}, Actions: "/rooms/abc"}
	for i := range 200 {
		path := fmt.Sprintf("/blocks/4?max_delay=%d", 1000+i)
		v.Room.Pins = append(v.Room.Pins, rooms.PinView{ID: fmt.Sprint(i), Name: "Member " + fmt.Sprint(i%60), Path: path,
			Note: "escapes climb with the delay, see the last row", At: "2026-03-01T09:00:00.000Z"})
		v.Headlines[path] = "At a max redelivery delay of 5,000 jobs, 195 duplicates escape a window of 1,000 ids: 0.98% of the redeliveries."
		v.Titles[path] = "4 · The bounded dedup window (max redelivery delay " + fmt.Sprint(1000+i) + " jobs)"
	}
	b.Run("draw", func(b *testing.B) {
		for b.Loop() {
			var sb strings.Builder
			if err := RoomPart(v, PartBoard).Render(b.Context(), &sb); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("key", func(b *testing.B) {
		for b.Loop() {
			v.PartKey(PartBoard)
		}
	})
}

// TestPartKeysCoverEveryField changes each field of a pin and of an earlier round, one at a time,
// and checks that the part's key changes with it: a field added to either later must be read by
// the key (or named here as one the part does not draw), or a board or history would go stale.
func TestPartKeysCoverEveryField(t *testing.T) {
	// The history draws neither the count of seats nor whether members see names; nor how an
	// earlier round ran (its votes, confidences, countdown, who had not answered), which only
	// the newest round's own parts show while it is asked.
	notDrawn := map[string]bool{"Of": true, "NamesVisible": true, "Votes": true, "Vote": true, "YourConfidence": true,
		"YourFirstGuess": true, "YourFirstConfidence": true, "First": true, "Seconds": true,
		"Deadline": true, "Paused": true, "Left": true, "TimeUp": true, "Unanswered": true}
	bump := func(f reflect.Value) bool {
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Int:
			f.SetInt(f.Int() + 1)
		case reflect.Pointer:
			v := 7.0
			f.Set(reflect.ValueOf(&v))
		case reflect.Struct: // the question: its text is what the history draws
			f.FieldByName("Text").SetString("Another question?")
		default:
			return false
		}
		return true
	}
	base := RoomView{Room: rooms.View{Role: rooms.AsMember,
		Pins:   []rooms.PinView{{ID: "p", Name: "Ada", Path: "/blocks/4", Note: "n", At: "t"}},
		Rounds: []rooms.RoundView{{Seq: 1, State: rooms.RoundLocked, Question: rooms.Question{Kind: rooms.KindCustom, Text: "How many?"}}, {Seq: 2}}}}
	check := func(part string, field string, change func(v *RoomView) bool) {
		v := base
		v.Room.Pins = slices.Clone(base.Room.Pins)
		v.Room.Rounds = slices.Clone(base.Room.Rounds)
		before, _ := v.PartKey(part)
		if !change(&v) {
			t.Errorf("%s: the test cannot change field %s; teach it", part, field)
			return
		}
		if after, _ := v.PartKey(part); after == before {
			t.Errorf("%s: changing %s leaves its key as it was", part, field)
		}
	}
	pin := reflect.TypeFor[rooms.PinView]()
	for i := range pin.NumField() {
		check(PartBoard, pin.Field(i).Name, func(v *RoomView) bool { return bump(reflect.ValueOf(&v.Room.Pins[0]).Elem().Field(i)) })
	}
	round := reflect.TypeFor[rooms.RoundView]()
	for i := range round.NumField() {
		name := round.Field(i).Name
		if notDrawn[name] {
			continue
		}
		check(PartHistory, name, func(v *RoomView) bool {
			if name == "Result" {
				v.Room.Rounds[0].Result = &rooms.Result{Measured: 3}
				return true
			}
			if name == "Handler" {
				v.Room.Rounds[0].Handler = &rooms.HandlerView{Reference: &rooms.Verdict{Points: 3, Survived: 3, Survives: true}}
				return true
			}
			return bump(reflect.ValueOf(&v.Room.Rounds[0]).Elem().Field(i))
		})
	}
	// The roster draws every seat's name and presence (the kick forms name its id), and the seats.
	base.Room.Roster, base.Room.Seated = []rooms.RosterEntry{{ID: "m", Name: "Ada"}}, 1
	entry := reflect.TypeFor[rooms.RosterEntry]()
	for i := range entry.NumField() {
		check(PartRoster, entry.Field(i).Name, func(v *RoomView) bool {
			v.Room.Roster = slices.Clone(base.Room.Roster)
			return bump(reflect.ValueOf(&v.Room.Roster[0]).Elem().Field(i))
		})
	}
	check(PartRoster, "Seated", func(v *RoomView) bool { v.Room.Seated++; return true })
	check(PartRoster, "Role", func(v *RoomView) bool { v.Room.Role = rooms.AsHost; return true })
	// The tools draw the pin and present forms: for the page the caller is on, in the bar or not,
	// and on the room's page the presented path as the pin's default.
	check(PartTools, "Presenting", func(v *RoomView) bool { v.Room.Presenting = "/assembly"; return true })
	check(PartTools, "Here", func(v *RoomView) bool { v.Here = "/blocks/2"; return true })
	check(PartTools, "Bar", func(v *RoomView) bool { v.Bar = true; return true })
	check(PartTools, "Closed", func(v *RoomView) bool { v.Room.Closed = true; return true })
	// Of a result, the history draws the measured value, the median and how many answered.
	revealed := func(r rooms.Result) uint64 {
		v := base
		v.Room.Rounds = []rooms.RoundView{{Seq: 1, State: rooms.RoundRevealed, Result: &r}, {Seq: 2}}
		k, _ := v.PartKey(PartHistory)
		return k
	}
	zero := revealed(rooms.Result{})
	for name, r := range map[string]rooms.Result{"Measured": {Measured: 1}, "Median": {Median: 1}, "Guesses": {Guesses: []rooms.GuessView{{Value: 1}}}} {
		if revealed(r) == zero {
			t.Errorf("history: changing Result.%s leaves its key as it was", name)
		}
	}
}

// TestAnswerHelp: the unit of a question is what is counted, so it stands beside "a number"
// ("Answer in duplicates escaped" read as if duplicates were a unit of measure).
func TestAnswerHelp(t *testing.T) {
	for _, c := range []struct {
		q    rooms.Question
		want string
	}{
		{rooms.Question{Unit: "duplicates escaped", Max: 1e9}, "Answer with a number (duplicates escaped)."},
		{rooms.Question{Unit: "jobs", Min: 0, Max: 50}, "Answer with a number (jobs), from 0 to 50."},
		{rooms.Question{Max: 1e9}, "Answer with a number."},
	} {
		if got := answerHelp(c.q); got != c.want {
			t.Errorf("answerHelp(%+v) = %q, want %q", c.q, got, c.want)
		}
	}
}

// TestHistoryAnswers: an earlier two-vote round counts both votes, so three first answers and two
// second ones no longer read as "2".
func TestHistoryAnswers(t *testing.T) {
	three, two := make([]rooms.GuessView, 3), make([]rooms.GuessView, 2)
	for _, c := range []struct {
		rd   rooms.RoundView
		want string
	}{
		{rooms.RoundView{Votes: 2, Result: &rooms.Result{Guesses: two, First: &rooms.Tally{Guesses: three}}}, "3, then 2"},
		{rooms.RoundView{Votes: 1, Result: &rooms.Result{Guesses: two}}, "2"},
		{rooms.RoundView{Votes: 2, Answered: 1, First: &rooms.Tally{Guesses: three}}, "3, then 1"},
		{rooms.RoundView{Votes: 1, Answered: 4}, "4"},
	} {
		if got := historyAnswers(c.rd); got != c.want {
			t.Errorf("historyAnswers(%+v) = %q, want %q", c.rd, got, c.want)
		}
	}
}
