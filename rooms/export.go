package rooms

import (
	"cmp"
	"context"
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"
)

// Export is a whole session for its host to keep: every round with every guess and its measured
// value, every pin (hidden ones marked), and the roster with kicked members marked. Times are
// UTC. It marshals as JSON as it stands; WriteCSV flattens it into one table.
type Export struct {
	// Version is the notebook's version that wrote the export; the site fills it in, since a
	// room knows nothing of builds.
	Version string         `json:"version"`
	Code    string         `json:"code"`
	Title   string         `json:"title"`
	Created time.Time      `json:"created"`
	Closed  bool           `json:"closed"`
	Roster  []ExportMember `json:"roster"`
	Rounds  []ExportRound  `json:"rounds"`
	Pins    []ExportPin    `json:"pins"`
}

// ExportMember is one seat in an export.
type ExportMember struct {
	Name   string    `json:"name"`
	Joined time.Time `json:"joined"`
	Kicked bool      `json:"kicked"`
}

// ExportRound is one round in an export; Measured is nil until the round is revealed. Its
// question carries the experiment, its parameters, the measure and the row it was asked at;
// Text is the question in full words as the room saw it. A prediction's wording lives with the
// prose, so Export leaves its id there and the site, which holds the prose, puts the predictions
// page's words in its place (as it fills in Version). Guesses are of every vote, the first vote's
// first.
type ExportRound struct {
	Seq      int           `json:"seq"`
	Question Question      `json:"question"`
	Text     string        `json:"text"`
	State    RoundState    `json:"state"`
	Measured *float64      `json:"measured"`
	Guesses  []ExportGuess `json:"guesses"`
	Opened   time.Time     `json:"opened"`
	Revealed *time.Time    `json:"revealed"`
	Votes    int           `json:"votes"`
	Vote     int           `json:"vote"` // the last vote that took answers
	// MovedCloser is a revealed two-vote round's count of members whose second answer was nearer
	// the measured value than their first.
	MovedCloser *int         `json:"moved_closer"`
	Timer       *ExportTimer `json:"timer"` // nil for a round without a countdown
	// Challenge and Submissions are a handler round's (absent for every other round): what it
	// asked, and every handler submitted, kicked members' too.
	Challenge   *ExportChallenge   `json:"challenge,omitempty"`
	Submissions []ExportSubmission `json:"submissions,omitempty"`
}

// ExportTimer is a round's countdown as the export found it: the seconds each vote was given,
// and the deadline of the last one (nil if it was paused, with what it had left).
type ExportTimer struct {
	Seconds    int        `json:"seconds"`
	Deadline   *time.Time `json:"deadline"`
	PausedLeft float64    `json:"paused_left_seconds"`
}

// ExportGuess is one member's guess in an export, in one vote, with their confidence ("" unsaid).
type ExportGuess struct {
	Name       string     `json:"name"`
	Value      float64    `json:"value"`
	At         time.Time  `json:"at"`
	Vote       int        `json:"vote"`
	Confidence Confidence `json:"confidence"`
}

// ExportPin is one pin in an export.
type ExportPin struct {
	Name   string    `json:"name"`
	Path   string    `json:"path"`
	Note   string    `json:"note"`
	Hidden bool      `json:"hidden"`
	At     time.Time `json:"at"`
}

// Export gathers the session for its host. It works on a closed room too: that is when a host
// most wants it.
func (s *Service) Export(ctx context.Context, host Caller) (Export, error) {
	if err := host.may(AsHost); err != nil {
		return Export{}, err
	}
	r := host.Room
	ms, err := s.store.Members(ctx, r.ID)
	if err != nil {
		return Export{}, err
	}
	rounds, err := s.store.Rounds(ctx, r.ID)
	if err != nil {
		return Export{}, err
	}
	guesses, err := s.store.Guesses(ctx, r.ID)
	if err != nil {
		return Export{}, err
	}
	pins, err := s.store.Pins(ctx, r.ID)
	if err != nil {
		return Export{}, err
	}
	subs, _, err := s.handlerReads(ctx, r.ID, rounds, false)
	if err != nil {
		return Export{}, err
	}
	e := Export{Code: r.Code, Title: r.Title, Created: r.CreatedAt.UTC(), Closed: r.Closed,
		Roster: []ExportMember{}, Rounds: []ExportRound{}, Pins: []ExportPin{}}
	names := map[string]string{}
	for _, m := range ms {
		names[m.ID] = m.Name
		e.Roster = append(e.Roster, ExportMember{Name: m.Name, Joined: m.JoinedAt.UTC(), Kicked: m.Kicked})
	}
	ix := newViewIndex(ms, guesses)
	now := s.cfg.Now()
	for _, rd := range rounds {
		er := ExportRound{Seq: rd.Seq, Question: rd.Question, Text: cmp.Or(rd.Question.Text, rd.Question.Label()),
			State: rd.StateAt(now), Guesses: []ExportGuess{}, Opened: rd.OpenedAt.UTC(), Votes: cmp.Or(rd.Votes, 1), Vote: cmp.Or(rd.Vote, 1)}
		if rd.Question.Kind == KindHandler {
			exportHandler(&er, rd, subs, names)
		} else if rd.State == RoundRevealed {
			v, at := rd.Measured, rd.RevealedAt.UTC()
			er.Measured, er.Revealed = &v, &at
			if res := roundView(rd, ix, Caller{Role: AsHost}, now).Result; res.First != nil {
				er.MovedCloser = &res.MovedCloser
			}
		}
		if rd.Timed() {
			er.Timer = &ExportTimer{Seconds: rd.Seconds, PausedLeft: rd.PausedLeft.Seconds()}
			if !rd.Deadline.IsZero() {
				d := rd.Deadline.UTC()
				er.Timer.Deadline = &d
			}
		}
		// Every guess, kicked members' too: the record is of what was said.
		for _, g := range guesses {
			if g.Seq == rd.Seq {
				er.Guesses = append(er.Guesses, ExportGuess{Name: names[g.MemberID], Value: g.Value, At: g.At.UTC(),
					Vote: cmp.Or(g.Vote, 1), Confidence: g.Confidence})
			}
		}
		e.Rounds = append(e.Rounds, er)
	}
	for _, p := range pins {
		e.Pins = append(e.Pins, ExportPin{Name: names[p.MemberID], Path: p.Path, Note: p.Note, Hidden: p.Hidden, At: p.At.UTC()})
	}
	return e, nil
}

// csvHeader is the one table an export flattens into: a "record" column says which columns of
// a row are filled, so a spreadsheet can filter by it.
// Columns are only ever added at the end, so a spreadsheet built on an older export still reads.
var csvHeader = []string{"record", "round", "question", "state", "measured", "name", "value", "path", "note",
	"hidden", "kicked", "at", "code", "text", "experiment", "params", "measure", "point", "votes", "vote",
	"confidence", "seconds", "deadline", "moved_closer",
	"template", "reference", "hash", "crash_points", "survived", "lost", "duplicated", "events", "survives"}

// WriteCSV writes the export as one CSV table: a row for the room (its title and code), a row
// per member, per guess (with its vote and confidence), per round (its question, measured value,
// votes and countdown, a handler round's template, parameters and reference with its verdict),
// per handler submitted (its share's hash and verdict) and per pin. Text that a spreadsheet would take for a formula is prefixed
// with an apostrophe, since names and notes come from anyone in the room.
func (e Export) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	row := func(kv map[string]string) {
		rec := make([]string, len(csvHeader))
		for i, h := range csvHeader {
			rec[i] = kv[h]
		}
		cw.Write(rec)
	}
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	row(map[string]string{"record": "room", "name": cell(e.Title), "code": e.Code, "at": ts(e.Created)})
	for _, m := range e.Roster {
		row(map[string]string{"record": "member", "name": cell(m.Name), "kicked": strconv.FormatBool(m.Kicked), "at": ts(m.Joined)})
	}
	for _, r := range e.Rounds {
		seq := strconv.Itoa(r.Seq)
		q := r.Question
		kv := map[string]string{"record": "round", "round": seq, "question": cell(q.Label()), "state": string(r.State),
			"text": cell(r.Text), "experiment": q.Experiment, "params": cell(q.Params), "measure": q.Measure, "point": cell(q.Point),
			"votes": strconv.Itoa(r.Votes), "vote": strconv.Itoa(r.Vote), "at": ts(r.Opened)}
		if r.Measured != nil {
			kv["measured"] = num(*r.Measured)
		}
		if r.MovedCloser != nil {
			kv["moved_closer"] = strconv.Itoa(*r.MovedCloser)
		}
		if r.Timer != nil {
			kv["seconds"] = strconv.Itoa(r.Timer.Seconds)
			if r.Timer.Deadline != nil {
				kv["deadline"] = ts(*r.Timer.Deadline)
			}
		}
		csvChallenge(kv, r.Challenge)
		row(kv)
		for _, sub := range r.Submissions {
			row(csvSubmission(seq, sub))
		}
		for _, g := range r.Guesses {
			row(map[string]string{"record": "guess", "round": seq, "name": cell(g.Name), "value": num(g.Value), "at": ts(g.At),
				"vote": strconv.Itoa(g.Vote), "confidence": string(g.Confidence)})
		}
	}
	for _, p := range e.Pins {
		row(map[string]string{"record": "pin", "name": cell(p.Name), "path": cell(p.Path), "note": cell(p.Note),
			"hidden": strconv.FormatBool(p.Hidden), "at": ts(p.At)})
	}
	cw.Flush()
	return cw.Error()
}

// cell defuses text that spreadsheets evaluate (=, +, -, @ and the tab and return that some
// treat alike).
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// Label names a question in one line for an export or a heading: the prediction id, the
// experiment's measure with its parameters and its row, or the host's own words.
func (q Question) Label() string {
	switch q.Kind {
	case KindPrediction:
		return q.Prediction
	case KindHandler:
		l := "handler from " + q.Template
		if q.Params != "" {
			l += "?" + q.Params
		}
		return l
	case KindMeasure:
		l := q.Experiment
		if q.Params != "" {
			l += "?" + q.Params
		}
		l += " " + q.Measure
		if q.Point != "" {
			l += " at " + q.Point // the row: without it the label would name several numbers
		}
		return l
	}
	return q.Text
}
