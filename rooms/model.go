package rooms

import (
	"cmp"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"effectivelyonce/experiments"
)

// Room is one study session. ID never changes; Code does when the host rotates it, which is why
// everything else refers to the room by ID.
type Room struct {
	ID           string
	Code         string
	Title        string
	HostKeyHash  Hash
	Locked       bool // no new members
	Closed       bool // no changes at all; the host can still export
	CreatedAt    time.Time
	LastActivity time.Time
	Presenting   string // the notebook path (with query) the host is showing, "" when none
	HostLink     HostLink
	// LabRun is the live lab's run the room watches (the lab's id for it), "" when none: its
	// progress and table show to every member (see Service.WatchLab).
	LabRun string
}

// Member is a seat in a room. The seat's key is given to the member once; only its hash stays.
type Member struct {
	ID        string
	RoomID    string
	Name      string
	TokenHash Hash
	Kicked    bool
	// Hosting marks a member whose browser became the room's host (a host link): still seated,
	// their answers kept, but not someone the host waits for (Unanswered, a round's Of).
	Hosting  bool
	JoinedAt time.Time
	LastSeen time.Time // when an event stream of theirs last showed they were here; zero when gone
}

// RoundState is where a round is in its one-way life: open, then locked, then revealed.
type RoundState string

// The three states of a round. They are strings so that a SQL store can keep them readable.
const (
	RoundOpen     RoundState = "open"
	RoundLocked   RoundState = "locked"
	RoundRevealed RoundState = "revealed"
)

// QuestionKind says where a round's question comes from.
type QuestionKind string

// The kinds of question a host can ask.
const (
	// KindPrediction is one of the notebook's five "predict before you read" questions.
	KindPrediction QuestionKind = "prediction"
	// KindMeasure asks for a measure an experiment reports at the parameters given.
	KindMeasure QuestionKind = "measure"
	// KindCustom is the host's own question with its unit and accepted range.
	KindCustom QuestionKind = "custom"
	// KindHandler is a workbench challenge: members write a handler that must survive the
	// check at the question's parameters, and submit it (see handler.go).
	KindHandler QuestionKind = "handler"
)

// Prediction is one of the notebook's five questions as the rooms see it: an id and the unit its
// answer counts. The wording lives with the prose; a round needs only what makes a guess valid.
type Prediction struct {
	ID   string
	Unit string
}

// Predictions are the five question ids the home page already uses, in its order.
var Predictions = []Prediction{
	{ID: "q1", Unit: "jobs lost"},
	{ID: "q2", Unit: "jobs duplicated"},
	{ID: "q3", Unit: "duplicates caught"},
	{ID: "q4", Unit: "duplicates escaped"},
	{ID: "q5", Unit: "jobs run twice"},
}

// Question is what a round asks. Only the fields of its Kind are used. Min and Max bound the
// guesses; for predictions and measures they default to a wide non-negative range because every
// answer there is a count, a rate or a duration.
type Question struct {
	Kind       QuestionKind `json:"kind"`
	Prediction string       `json:"prediction,omitempty"` // q1..q5
	Experiment string       `json:"experiment,omitempty"` // experiment name, for KindMeasure
	Params     string       `json:"params,omitempty"`     // parameters as a URL query string, for KindMeasure
	Measure    string       `json:"measure,omitempty"`    // which reported measure, for KindMeasure
	Point      string       `json:"point,omitempty"`      // the row it is reported at, for KindMeasure
	Text       string       `json:"text,omitempty"`       // the question in words, for KindCustom, KindMeasure and KindHandler
	Unit       string       `json:"unit,omitempty"`
	Min        float64      `json:"min"`
	Max        float64      `json:"max"`
	// Template and Reference name workbench templates, for KindHandler: the one members start
	// from, and the one the reveal shows as an answer. Params are then the check's parameters.
	Template  string `json:"template,omitempty"`
	Reference string `json:"reference,omitempty"`
}

// Limits on what a question may carry; generous for a person, small for a database row.
const (
	maxQuestionText = 200
	maxMeasureText  = 500 // a measure's question names the experiment, its row and its parameters
	maxUnit         = 80
	maxParams       = 1000
	defaultMax      = 1e9
)

// Normalize checks a question and fills its defaults (a prediction's unit, the default range),
// answering the question a round will store.
func (q Question) Normalize() (Question, error) {
	switch q.Kind {
	case KindPrediction:
		i := slices.IndexFunc(Predictions, func(p Prediction) bool { return p.ID == q.Prediction })
		if i < 0 {
			return q, fieldErr("question", ErrInvalid, "the question is one of q1 to q5")
		}
		q = Question{Kind: KindPrediction, Prediction: q.Prediction, Unit: Predictions[i].Unit, Min: q.Min, Max: q.Max}
	case KindMeasure:
		if q.Experiment == "" || !plain(q.Experiment, 64) {
			return q, fieldErr("experiment", ErrInvalid, "an experiment name is needed")
		}
		if q.Measure == "" || !plain(q.Measure, 64) {
			return q, fieldErr("measure", ErrInvalid, "a measure name is needed")
		}
		if !plain(q.Point, 64) {
			return q, fieldErr("point", ErrInvalid, "a row is at most 64 characters of plain text")
		}
		if q.Text = strings.TrimSpace(q.Text); !plain(q.Text, maxMeasureText) {
			return q, fieldErr("text", ErrInvalid, "the question is at most %d characters of plain text", maxMeasureText)
		}
		if len(q.Params) > maxParams {
			return q, fieldErr("params", ErrInvalid, "the parameters are longer than %s bytes", experiments.Thousands(maxParams))
		}
		v, err := url.ParseQuery(q.Params)
		if err != nil {
			return q, fieldErr("params", ErrInvalid, "the parameters are not a query string")
		}
		q = Question{Kind: KindMeasure, Experiment: q.Experiment, Params: v.Encode(), Measure: q.Measure, Point: q.Point,
			Text: q.Text, Unit: q.Unit, Min: q.Min, Max: q.Max}
	case KindHandler:
		var err error
		if q, err = q.normalizeHandler(); err != nil {
			return q, err
		}
	case KindCustom:
		q.Text = strings.TrimSpace(q.Text)
		if q.Text == "" || !plain(q.Text, maxQuestionText) {
			return q, fieldErr("text", ErrInvalid, "the question is 1 to %d characters of plain text", maxQuestionText)
		}
		if q.Min == 0 && q.Max == 0 {
			return q, fieldErr("max", ErrInvalid, "a custom question states the range of answers it accepts")
		}
		q = Question{Kind: KindCustom, Text: q.Text, Unit: q.Unit, Min: q.Min, Max: q.Max}
	default:
		return q, fieldErr("question", ErrInvalid, "a question is a prediction, a measure, a custom question or a handler challenge")
	}
	q.Unit = strings.TrimSpace(q.Unit)
	if !plain(q.Unit, maxUnit) {
		return q, fieldErr("unit", ErrInvalid, "the unit is at most %d characters of plain text", maxUnit)
	}
	if q.Min == 0 && q.Max == 0 {
		q.Max = defaultMax
	}
	if !finite(q.Min) || !finite(q.Max) || q.Min >= q.Max {
		return q, fieldErr("max", ErrInvalid, "the range needs finite bounds with min below max")
	}
	return q, nil
}

// Accepts checks a guess against the question's stated range; NaN and infinities never pass.
func (q Question) Accepts(v float64) error {
	if !finite(v) {
		return fieldErr("value", ErrInvalid, "a guess is a finite number")
	}
	if v < q.Min || v > q.Max {
		return fieldErr("value", ErrInvalid, "a guess lies between %s and %s",
			experiments.Readable(q.Min), experiments.Readable(q.Max))
	}
	return nil
}

// truth checks the true value a host types for a custom question: finite, and inside the range
// the question takes answers in, which the host chose for it.
func (q Question) truth(v float64) error {
	if !finite(v) {
		return fieldErr("measured", ErrInvalid, "the true value is a finite number")
	}
	if v < q.Min || v > q.Max {
		return fieldErr("measured", ErrInvalid, "the true value lies in the round's answer range, %s to %s; %s is outside it",
			experiments.Readable(q.Min), experiments.Readable(q.Max), experiments.Readable(v))
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// plain reports whether s is valid text of at most max characters, every one of them in the PRECIS
// FreeformClass that names are drawn from (spaces of every width too): no control characters, no
// bidirectional overrides, nothing invisible such as U+200B. It is the rule for every string a
// person types that others will read (titles, notes, questions, units).
func plain(s string, max int) bool {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	for _, r := range s {
		if !nameRunes.Contains(r) && !unicode.Is(unicode.Zs, r) {
			return false
		}
	}
	return true
}

// Round is one question put to the room. Seq counts rounds within a room from 1.
//
// A round of two votes (peer instruction) takes answers twice: members answer alone in vote 1,
// the host sees how they spread and starts a discussion, then vote 2, in which members answer
// again. Vote says which vote is (or was last) taking answers. A store keeps a zero Votes or Vote
// as 1, the one-vote round every round was before there were two.
//
// A round with Seconds > 0 has a countdown. While it runs, Deadline is when it ends and PausedLeft
// is 0; while the host has it paused, Deadline is zero and PausedLeft is what remains. The
// deadline is kept with the round so that every replica, and every guess, is judged against the
// same instant by the Service's clock.
type Round struct {
	RoomID       string
	Seq          int
	Question     Question
	State        RoundState
	Measured     float64 // meaningful once State is RoundRevealed
	NamesVisible bool    // members see names beside values after reveal
	OpenedAt     time.Time
	RevealedAt   time.Time
	Votes        int           // 1 or 2
	Vote         int           // the vote taking answers now, or the last one that did
	Seconds      int           // the countdown each vote is given; 0 for none
	Deadline     time.Time     // when the running countdown ends; zero when none runs
	PausedLeft   time.Duration // what a paused countdown has left; 0 unless paused
	// Reference is a handler round's reference handler's verdict, set when it is revealed; Shown
	// is what the host puts on the projector after that: "" nothing, ShownReference, or the id
	// of the member whose submission it shows.
	Reference *Verdict
	Shown     string
}

// Timer bounds: a round's countdown is 15 s to 10 min, and what is left never grows past 10 min
// however often the host extends it.
const (
	MinSeconds = 15
	MaxSeconds = 600
)

// Timed reports whether the round has a countdown.
func (r Round) Timed() bool { return r.Seconds > 0 }

// Paused reports whether the round's countdown is paused.
func (r Round) Paused() bool { return r.Timed() && r.Deadline.IsZero() && r.PausedLeft > 0 }

// TimeUp reports whether the round's countdown has run out at now: the round then takes no more
// guesses, whatever its stored state says, until the host starts its second vote.
func (r Round) TimeUp(now time.Time) bool {
	return r.Timed() && !r.Deadline.IsZero() && !now.Before(r.Deadline)
}

// TimeLeft answers how long the countdown has left at now (0 once it is up, or without one).
func (r Round) TimeLeft(now time.Time) time.Duration {
	switch {
	case !r.Timed():
		return 0
	case r.Deadline.IsZero():
		return r.PausedLeft
	case now.Before(r.Deadline):
		return r.Deadline.Sub(now)
	}
	return 0
}

// StateAt is the round's state as people see it at now: an open round whose time is up is
// locked, though nothing was written when the clock reached zero.
func (r Round) StateAt(now time.Time) RoundState {
	if r.State == RoundOpen && r.TimeUp(now) {
		return RoundLocked
	}
	return r.State
}

// Takes answers nil when the round takes g as of g.At, and the refusal otherwise: the round must be
// open, on g's vote (a zero Vote is vote 1), and its countdown, if it has one, must not have run
// out by g.At. Every Store applies it in the same step as writing the guess, so a lock, a second
// vote or the clock reaching zero is never undone by a guess that raced it.
func (r Round) Takes(g Guess) error {
	vote, want := cmp.Or(g.Vote, 1), cmp.Or(r.Vote, 1)
	switch {
	case r.State != RoundOpen:
		return fieldErr("round", ErrRoundState, "the round is %s and takes no guesses", r.State)
	case vote != want:
		return fieldErr("round", ErrRoundState, "the round is on vote %d and takes no guesses for vote %d", want, vote)
	case r.TimeUp(g.At):
		return TimeUp(r.Seq, r.Deadline)
	}
	return nil
}

// Confidence is how sure a member says they are of a guess; the empty value means they did not
// say.
type Confidence string

// The three confidence levels a guess may carry, in order.
const (
	ConfidenceLow    Confidence = "low"
	ConfidenceMedium Confidence = "medium"
	ConfidenceHigh   Confidence = "high"
)

// Confidences are the levels in the order a calibration lists them.
var Confidences = []Confidence{ConfidenceLow, ConfidenceMedium, ConfidenceHigh}

// ParseConfidence checks a confidence as the transport received it; "" is no confidence.
func ParseConfidence(s string) (Confidence, error) {
	c := Confidence(strings.ToLower(strings.TrimSpace(s)))
	if c == "" || slices.Contains(Confidences, c) {
		return c, nil
	}
	return "", fieldErr("confidence", ErrInvalid, "a confidence is low, medium or high")
}

// Guess is a member's one number for one vote of a round; a later guess while that vote is open
// replaces it. A store keeps a zero Vote as 1.
type Guess struct {
	RoomID     string
	Seq        int
	MemberID   string
	Value      float64
	At         time.Time
	Vote       int        // 1, or 2 in a round's second vote
	Confidence Confidence // "" when the member did not say
}

// MaxNoteLength is the longest note on a pin, in characters: a remark, not an essay.
const MaxNoteLength = 140

// maxPath bounds a pinned or presented path; a permalink with every parameter fits easily.
const maxPath = 1000

// Pin is a run a member put on the room's board, with a note. The host can hide it.
type Pin struct {
	ID       string
	RoomID   string
	MemberID string
	Path     string
	Note     string
	Hidden   bool
	At       time.Time
}

// CleanPath checks that p is a path on this site ("/blocks/4?max_delay=5000"), never another
// origin: members following the presenter open it, so it must not lead them elsewhere.
func CleanPath(field, p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" || len(p) > maxPath || !plain(p, maxPath) {
		return "", fieldErr(field, ErrInvalid, "a path of this site is needed")
	}
	u, err := url.Parse(p)
	if err != nil || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.Contains(p, `\`) ||
		u.Scheme != "" || u.Host != "" {
		return "", fieldErr(field, ErrInvalid, "a path of this site starts with a single /")
	}
	return p, nil
}
