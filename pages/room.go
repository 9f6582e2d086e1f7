package pages

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"strconv"
	"strings"
	"time"

	"effectivelyonce/present"
	"effectivelyonce/rooms"
)

// The study rooms' views. A room page and the bar that follows a member through the notebook
// are made of the same live parts, each an element that the room's event stream swaps whole
// when that part changes: the server renders a part once for the page and again for the stream,
// so the two can never disagree.

// The live parts of a room, by the name of the event that carries each. A stream sends a part
// again only when its HTML changed, so a member typing a guess is not interrupted by others'.
const (
	PartStatus     = "status"     // code, locked or closed, the host's room controls
	PartPresenting = "presenting" // the page the host is showing, for followers
	PartRound      = "round"      // the newest round: its question, the guess form or the result
	PartCount      = "count"      // "N of M answered" for the newest round
	PartRoster     = "roster"     // who is here
	PartHistory    = "history"    // earlier rounds
	PartBoard      = "board"      // the pins
	PartTools      = "tools"      // what the caller may do besides answering: pin a page, present one
	// PartTimer is the newest round's countdown: apart from the round, since the seconds left
	// it writes change at every redraw, and a member typing a guess must not be interrupted.
	PartTimer = "timer"
	// PartTally is the host's: who has not answered, and the first vote's spread in a two-vote
	// round. Apart from the round for the same reason, the host typing a custom round's truth.
	PartTally = "tally"
	// PartScreen is the projector's whole screen: how to join, the round, its count and
	// countdown, and after the reveal the histograms. It draws no name and no control.
	PartScreen = "screen"
)

// RoomParts are the parts a room page shows; BarParts those the bar on notebook pages shows.
var (
	RoomParts = []string{PartStatus, PartPresenting, PartRound, PartCount, PartTimer, PartTally, PartRoster, PartHistory, PartBoard, PartTools, PartLab}
	BarParts  = []string{PartStatus, PartPresenting, PartRound, PartCount, PartTimer, PartTools, PartLab}
	// ProjectorParts are the projector view's: one part, since nobody types on a big screen.
	ProjectorParts = []string{PartScreen}
)

// RoomView is everything a room's page, bar and stream render from: the room as its caller may
// see it, and where its forms post.
type RoomView struct {
	Site      Site
	Room      rooms.View
	URL       string // the room page
	Stream    string // the event stream for this view
	Actions   string // the prefix every form of the room posts under
	Questions []Asked
	// Numbers are what the host may open a round on, by experiment: the numbers of the page being
	// presented (when its runs are at hand), or of the experiment the host asked to list.
	Numbers []NumberGroup
	// Experiments are the experiments whose numbers the host may list, by title.
	Experiments []ExperimentChoice
	// ListExperiment and ListParams are what the host asked to list (kept in the form), and
	// ListError why it could not be.
	ListExperiment, ListParams, ListError string
	// Headlines are the first sentence of each pinned run's reading, by path, worked out on the
	// server when the pin was made.
	Headlines map[string]string
	// HeadlinesSealed withholds them from a member while a round asks a number: a pin's headline
	// can be the very count asked (the server's Sealed says why every result is withheld then).
	HeadlinesSealed bool
	// Titles name the presented page and each pinned one, by path: the page and the parameters
	// its path moves from their defaults, in words (see the server's pathTitle).
	Titles map[string]string
	Here   string // the path (with query) the caller is looking at, for "pin" and "present"
	Bar    bool   // rendered as the bar on a notebook page
	// Hidden is a bar its member hid: one line on the notebook's pages that offers it back.
	Hidden bool
	// JoinQR is the join link and its QR code, for the host's room page (zero elsewhere).
	JoinQR QR
	// Challenges are the workbench's templates a host may open a handler round from (the room
	// page's form only); Handlers what the newest round, a handler round, draws beside the room's
	// view (see HandlerRoundParts).
	Challenges []ChallengeTemplate
	Handlers   *HandlerRoundParts
	// SessionView is what the session adds (room_session.go): questions about the page on
	// screen, the lab run the room watches.
	SessionView
}

// NumberGroup is the numbers one experiment reports at some parameters, as a host picks one for a
// round: Title names the experiment and its parameters.
type NumberGroup struct {
	Title   string
	Numbers []NumberChoice
}

// NumberChoice is one number in a host's list: Words say it with its row ("escaped duplicates at
// window 1,000"), Value is what the round form posts (the experiment, its parameters, the count
// and its row, as a query string).
type NumberChoice struct {
	Value string
	Words string
}

// ExperimentChoice is an experiment a host may list the numbers of.
type ExperimentChoice struct {
	Name  string
	Title string
}

// Asked is a question a host may open a round with: one of the five predictions, in the words
// of the predictions page.
type Asked struct {
	ID    string
	Title string
}

// IsHost says whether the view is for the room's host, whose page carries the room's controls.
func (v RoomView) IsHost() bool { return v.Room.Role == rooms.AsHost }

// IsMember says whether the view is for a seated member, who may answer; the host is not one, and
// neither is a caller without a key, who sees the room from outside.
func (v RoomView) IsMember() bool { return v.Room.Role == rooms.AsMember }

// Current is the newest round, the one the room is answering now or has just revealed.
func (v RoomView) Current() *rooms.RoundView {
	if n := len(v.Room.Rounds); n > 0 {
		return &v.Room.Rounds[n-1]
	}
	return nil
}

// Answering reports whether the newest round is open, so a bar shows it unfolded.
func (v RoomView) Answering() bool {
	rd := v.Current()
	return rd != nil && rd.State == rooms.RoundOpen
}

// Earlier are the rounds before the newest, newest first.
func (v RoomView) Earlier() []rooms.RoundView {
	n := len(v.Room.Rounds)
	out := make([]rooms.RoundView, 0, max(0, n-1))
	for i := n - 2; i >= 0; i-- {
		out = append(out, v.Room.Rounds[i])
	}
	return out
}

// Present counts the roster's members with an open stream.
func (v RoomView) Present() int {
	n := 0
	for _, e := range v.Room.Roster {
		if e.Present {
			n++
		}
	}
	return n
}

// Action is the URL a room form posts to.
func (v RoomView) Action(p string) string { return v.Actions + p }

// Ask says a round's question in words.
func (v RoomView) Ask(q rooms.Question) string {
	switch q.Kind {
	case rooms.KindPrediction:
		for _, a := range v.Questions {
			if a.ID == q.Prediction {
				return a.Title
			}
		}
		return "Question " + strings.TrimPrefix(q.Prediction, "q")
	case rooms.KindMeasure:
		if q.Text != "" {
			return q.Text
		}
		// A round opened before questions were worded when opened.
		s := fmt.Sprintf("What will %s report as %s", q.Experiment, q.Measure)
		if q.Params != "" {
			s += " at " + strings.ReplaceAll(q.Params, "&", ", ")
		}
		return s + "?"
	}
	return q.Text
}

// PresentingTitle names the page the host is showing.
func (v RoomView) PresentingTitle() string { return v.Title(v.Room.Presenting) }

// Title names a notebook path of the room (the presented page, a pin) as Titles has it, else the
// path itself.
func (v RoomView) Title(path string) string {
	if t, ok := v.Titles[path]; ok {
		return t
	}
	return path
}

// Num writes a guess or a measured value as a person would type it, with separators.
func Num(v float64) string { return present.Exact(v) }

// Distance says how far a member's guess landed from the truth, in words.
func Distance(d float64) string {
	switch {
	case d == 0:
		return "exactly right"
	case d > 0:
		return Num(d) + " too high"
	}
	return Num(-d) + " too low"
}

// Clock writes a countdown's time left as a clock shows it: "1:05", "0:09".
func Clock(d time.Duration) string {
	s := int(math.Ceil(d.Seconds()))
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// ServerClock is the view's clock as the countdown's script reads it, beside the deadline: the
// time left is the difference of the two, whatever the reader's own clock says.
func (v RoomView) ServerClock() string {
	return v.Room.Clock.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// VoteText says which vote a two-vote round is on, for its badge; "" for one vote.
func VoteText(rd *rooms.RoundView) string {
	switch {
	case rd.Votes != 2:
		return ""
	case rd.Vote == 2:
		return "second vote"
	}
	return "first vote"
}

// ConfidenceText is a confidence level in words.
func ConfidenceText(c rooms.Confidence) string {
	switch c {
	case rooms.ConfidenceLow:
		return "not sure"
	case rooms.ConfidenceMedium:
		return "fairly sure"
	case rooms.ConfidenceHigh:
		return "sure"
	}
	return ""
}

// FirstTally is the first vote so far, for the host before the reveal, as a Result a histogram
// can draw (no measured value yet: the axis spans the guesses).
func FirstTally(rd *rooms.RoundView) *rooms.Result {
	f := rd.First
	if f == nil {
		return nil
	}
	r := &rooms.Result{Guesses: f.Guesses, Median: f.Median, Min: f.Min, Max: f.Max, Q1: f.Q1, Q3: f.Q3}
	if len(f.Guesses) > 0 {
		r.Measured = r.Median
	}
	return r
}

// FirstResult is a revealed two-vote round's first vote as a Result, to draw beside the second.
func FirstResult(res *rooms.Result) *rooms.Result {
	f := res.First
	return &rooms.Result{Measured: res.Measured, Guesses: f.Guesses, Median: f.Median, Min: f.Min, Max: f.Max, Q1: f.Q1, Q3: f.Q3,
		Calibration: f.Calibration}
}

// answerShown is the number a member's guess field starts with: their answer to this vote, or in
// a second vote their first, which they may send again as it is.
func answerShown(rd *rooms.RoundView) *float64 {
	if rd.YourGuess != nil || rd.Vote != 2 {
		return rd.YourGuess
	}
	return rd.YourFirstGuess
}

// confidenceShown is the confidence the member's form starts with, as answerShown.
func confidenceShown(rd *rooms.RoundView) rooms.Confidence {
	if rd.YourGuess != nil || rd.Vote != 2 {
		return rd.YourConfidence
	}
	return rd.YourFirstConfidence
}

// histAlt is a histogram's alternative text; a first vote read before the reveal has no
// measured value to state.
func histAlt(h Histogram, res *rooms.Result, truth bool) string {
	if truth {
		return h.Alt
	}
	return fmt.Sprintf("Histogram of %s from %s to %s; the median answer is %s.",
		present.Plural(int64(len(res.Guesses)), "answer", "answers"), Num(res.Min), Num(res.Max), Num(res.Median))
}

// firstAnswerNote follows a member's first answer in the second vote: its confidence, and while
// the vote is open that they may keep it.
func firstAnswerNote(rd *rooms.RoundView) string {
	s := ""
	if c := ConfidenceText(rd.YourFirstConfidence); c != "" {
		s = " (" + c + ")"
	}
	if rd.State == rooms.RoundOpen {
		return s + ". Keep it or change it after the discussion."
	}
	return s + "."
}

// yourCalibration says a member's own calibration over the session in a sentence.
func yourCalibration(cs []rooms.RelativeCalibration) string {
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		parts = append(parts, pct(c.MeanRelativeDistance)+" when "+ConfidenceText(c.Confidence))
	}
	return "Over every round you answered with a confidence, you were off on average by " + strings.Join(parts, ", ") + " of the measured value."
}

// barMore says what the room's page shows of a revealed round beyond the bar's drawing.
func barMore(res *rooms.Result) string {
	if res.First != nil {
		return "has every guess, the first vote and how sure people were."
	}
	return "has every guess and how sure people were."
}

// pct writes a relative distance as a percentage: 0.125 is "13%".
func pct(f float64) string { return strconv.Itoa(int(math.Round(f*100))) + "%" }

// The questions a host is asked before an action that cannot be undone: app.js asks them on the
// room's page, and the server's own confirmation page (for a browser without script) asks the same.
const (
	CloseQuestion   = "Close the room for good? Nobody can answer or pin after this; you can still download the session."
	HostKeyQuestion = "Replace the host key? Every other browser that is the host of this room stops being host, and an unused host link stops working."
)

// KickQuestion asks whether to remove the member called name.
func KickQuestion(name string) string {
	return "Remove " + name + " from the room? Their seat stops working at once, and their name stays taken."
}

// partSeed keys every PartKey: keys are compared only within this process.
var partSeed = maphash.MakeSeed()

// PartKey is a fingerprint of everything the part called name is drawn from: a stream that has
// sent a part with this key skips drawing it, and the streams of a room share one drawing of a
// part per key (room_keys.go has the parts drawn from the newest round). ok is false for a name
// that is no part. The key reads exactly what boardPart and historyPart read
// (TestPartKeysCoverEveryField holds it to every field of a pin and a round), and costs a
// fraction of drawing them.
func (v RoomView) PartKey(name string) (key uint64, ok bool) {
	var h maphash.Hash
	h.SetSeed(partSeed)
	k := keyWriter{&h}
	v.header(k)
	switch name {
	case PartBoard:
		k.int(int64(len(v.Room.Pins)))
		for _, p := range v.Room.Pins {
			k.str(p.ID)
			k.str(p.Name)
			k.str(p.Path)
			k.str(p.Note)
			k.bool(p.Hidden)
			k.str(p.At)
			k.str(v.Title(p.Path))
			k.str(v.Headlines[p.Path])
		}
		k.bool(v.HeadlinesSealed)
	case PartHistory:
		// The history draws each earlier round's number, question, answers, state and result
		// figures; not the count of seats, nor whether members see names.
		for i := len(v.Room.Rounds) - 2; i >= 0; i-- {
			rd := &v.Room.Rounds[i]
			k.int(int64(rd.Seq))
			k.str(v.Ask(rd.Question))
			k.str(string(rd.Question.Kind))
			k.str(string(rd.State))
			k.str(historyAnswers(*rd)) // both votes' counts, for a round of two
			k.bool(rd.YourGuess != nil)
			if rd.YourGuess != nil {
				k.num(*rd.YourGuess)
			}
			k.str(handlerKey(rd))
			k.bool(rd.Result != nil)
			if rd.Result != nil {
				k.num(rd.Result.Measured)
				k.num(rd.Result.Median)
				k.int(int64(len(rd.Result.Guesses)))
			}
		}
	case PartTools:
		// What the caller may do besides answering: the same forms at every change of the room.
		k.bool(v.Bar)
		k.str(v.Here)
		k.str(v.Room.Presenting)
	case PartRoster:
		// Who is here, drawn for every stream at every change: in a hall of 300 a burst of answers
		// changes nothing of it, and drawing 300 names for 300 streams ten times a second was an
		// eighth of the server's work.
		k.int(int64(v.Room.Seated))
		k.int(int64(len(v.Room.Roster)))
		for _, m := range v.Room.Roster {
			k.str(m.ID)
			k.str(m.Name)
			k.bool(m.Present)
		}
	default:
		if !v.sessionKey(k, name) { // room_keys.go
			return 0, false
		}
	}
	return h.Sum64(), true
}

// keyWriter writes values into a PartKey, each delimited, so that ("ab","c") and ("a","bc") differ.
type keyWriter struct{ h *maphash.Hash }

func (k keyWriter) str(s string) {
	k.h.WriteString(s)
	k.h.WriteByte(0)
}

func (k keyWriter) int(n int64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	k.h.Write(b[:])
}

func (k keyWriter) num(f float64) { k.int(int64(math.Float64bits(f))) }

func (k keyWriter) bool(b bool) {
	if b {
		k.h.WriteByte(1)
	} else {
		k.h.WriteByte(0)
	}
}
