package roomsweb

import "effectivelyonce/rooms"

// The room as the API writes it: snake_case names, as every other answer of the API has, and
// nothing a rooms.View does not already let the caller see. The types are exported for the
// clients that read the answers (the site's integration tests among them).

// RoomJSON is the answer of "GET /api/rooms/:code".
type RoomJSON struct {
	Code       string      `json:"code"`
	Title      string      `json:"title"`
	Locked     bool        `json:"locked"`
	Closed     bool        `json:"closed"`
	Role       string      `json:"role"` // "host", "member" or "nobody"
	You        *SeatJSON   `json:"you,omitempty"`
	Presenting string      `json:"presenting"`
	Seated     int         `json:"seated"`
	Roster     []SeatJSON  `json:"roster"`
	Rounds     []RoundJSON `json:"rounds"`
	Pins       []PinJSON   `json:"pins"`
	// Unanswered names, for the host alone while a round takes answers, the seated members who
	// have not answered its current vote; absent for a member, and when no round takes answers.
	Unanswered *[]string `json:"unanswered,omitempty"`
	// Clock is the server's clock when the answer was made: a countdown's deadline is read
	// against it rather than against the client's own clock.
	Clock string `json:"clock"`
	// YourCalibration is a member's own record over every revealed round they answered with a
	// confidence: how far off they were at each level, relative to each round's measured value
	// (rounds ask in different units), unlike a round's calibration, which is in its unit.
	YourCalibration []YourCalibrationJSON `json:"your_calibration,omitempty"`
	// LabRun is the id of the live lab's run the room watches (its host started it from the
	// room's page); absent when none.
	LabRun string `json:"lab_run,omitempty"`
}

// YourCalibrationJSON is one confidence level of a member's record across rounds: how many of
// their answers chose it, and how far those were from the measured value on average as a fraction
// of it (0.1: 10% off).
type YourCalibrationJSON struct {
	Confidence           string  `json:"confidence"`
	Guesses              int     `json:"guesses"`
	MeanRelativeDistance float64 `json:"mean_relative_distance"`
}

// SeatJSON is a member in the roster, or the caller.
type SeatJSON struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Present bool   `json:"present"`
}

// RoundJSON is one round as the caller may see it.
type RoundJSON struct {
	Seq          int            `json:"seq"`
	Question     rooms.Question `json:"question"`
	State        string         `json:"state"`
	Answered     int            `json:"answered"`
	Of           int            `json:"of"`
	YourGuess    *float64       `json:"your_guess,omitempty"`
	NamesVisible bool           `json:"names_visible"`
	Result       *ResultJSON    `json:"result,omitempty"`
	// Votes is 1 or 2; Vote the vote taking answers (or the last that did).
	Votes          int    `json:"votes"`
	Vote           int    `json:"vote"`
	YourConfidence string `json:"your_confidence,omitempty"`
	// YourFirstGuess is a member's first answer, in a second vote.
	YourFirstGuess *float64 `json:"your_first_guess,omitempty"`
	// First is the first vote for the host alone, before the reveal: the spread a host reads to
	// decide whether the room should discuss.
	First *TallyJSON `json:"first,omitempty"`
	// The countdown, for a round that has one: seconds per vote, the deadline (RFC 3339, while it
	// runs), paused, what is left at the answer's clock, and whether it has run out.
	Seconds     int      `json:"seconds,omitempty"`
	Deadline    string   `json:"deadline,omitempty"`
	Paused      bool     `json:"paused,omitempty"`
	LeftSeconds *float64 `json:"left_seconds,omitempty"`
	TimeUp      bool     `json:"time_up,omitempty"`
	// Unanswered names, for the host while the round takes answers.
	Unanswered *[]string `json:"unanswered,omitempty"`
	// Handler is a handler round's submissions as the caller may see them (handlerjson.go).
	Handler *HandlerJSON `json:"handler,omitempty"`
}

// TallyJSON is one vote's answers and their summary.
type TallyJSON struct {
	Guesses     []GuessJSON       `json:"guesses"`
	Median      float64           `json:"median"`
	Min         float64           `json:"min"`
	Max         float64           `json:"max"`
	Q1          float64           `json:"q1"`
	Q3          float64           `json:"q3"`
	Calibration []CalibrationJSON `json:"calibration"`
}

// CalibrationJSON is one confidence level's record in one round: how many answers chose it and
// their mean distance from the measured value, in the round's unit.
type CalibrationJSON struct {
	Confidence   string  `json:"confidence"`
	Guesses      int     `json:"guesses"`
	MeanDistance float64 `json:"mean_distance"`
}

// ResultJSON is a revealed round; it is also the whole answer of a reveal.
type ResultJSON struct {
	Measured     float64     `json:"measured"`
	Guesses      []GuessJSON `json:"guesses"`
	Median       float64     `json:"median"`
	Min          float64     `json:"min"`
	Max          float64     `json:"max"`
	Q1           float64     `json:"q1"`
	Q3           float64     `json:"q3"`
	YourDistance *float64    `json:"your_distance,omitempty"`
	// Of a two-vote round, guesses and median are the second vote's; first is the first vote's,
	// moved_closer counts the members whose second answer is nearer the measured value, and
	// answered_both those who answered both votes (the "of M" moved_closer is read against).
	First        *TallyJSON `json:"first,omitempty"`
	MovedCloser  int        `json:"moved_closer"`
	AnsweredBoth int        `json:"answered_both"`
	// Calibration is the mean distance from the measured value per confidence level chosen.
	Calibration       []CalibrationJSON `json:"calibration"`
	YourConfidence    string            `json:"your_confidence,omitempty"`
	YourFirstDistance *float64          `json:"your_first_distance,omitempty"`
}

// GuessJSON is one revealed guess; name is empty when the caller may not see names.
type GuessJSON struct {
	Name       string  `json:"name"`
	Value      float64 `json:"value"`
	Confidence string  `json:"confidence,omitempty"`
}

// PinJSON is a pinned run.
type PinJSON struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Path   string `json:"path"`
	Note   string `json:"note"`
	Hidden bool   `json:"hidden"`
	At     string `json:"at"`
}

var roleNames = map[rooms.Role]string{rooms.Nobody: "nobody", rooms.AsMember: "member", rooms.AsHost: "host"}

func roomJSONOf(v rooms.View) RoomJSON {
	out := RoomJSON{Code: v.Code, Title: v.Title, Locked: v.Locked, Closed: v.Closed, Role: roleNames[v.Role],
		Presenting: v.Presenting, LabRun: v.LabRun, Seated: v.Seated, Roster: []SeatJSON{}, Rounds: []RoundJSON{}, Pins: []PinJSON{},
		Unanswered: names(v.Unanswered), Clock: v.Clock.UTC().Format(timeFormat)}
	for _, c := range v.YourCalibration {
		out.YourCalibration = append(out.YourCalibration, YourCalibrationJSON{Confidence: string(c.Confidence), Guesses: c.Guesses,
			MeanRelativeDistance: c.MeanRelativeDistance})
	}
	if v.You != nil {
		out.You = &SeatJSON{ID: v.You.ID, Name: v.You.Name, Present: v.You.Present}
	}
	for _, e := range v.Roster {
		out.Roster = append(out.Roster, SeatJSON{ID: e.ID, Name: e.Name, Present: e.Present})
	}
	for _, rd := range v.Rounds {
		r := RoundJSON{Seq: rd.Seq, Question: rd.Question, State: string(rd.State), Answered: rd.Answered, Of: rd.Of,
			YourGuess: rd.YourGuess, NamesVisible: rd.NamesVisible, Votes: rd.Votes, Vote: rd.Vote,
			YourConfidence: string(rd.YourConfidence), YourFirstGuess: rd.YourFirstGuess, Seconds: rd.Seconds,
			Deadline: rd.Deadline, Paused: rd.Paused, TimeUp: rd.TimeUp, Unanswered: names(rd.Unanswered)}
		if rd.Seconds > 0 && rd.State == rooms.RoundOpen {
			left := rd.Left.Seconds()
			r.LeftSeconds = &left
		}
		if rd.First != nil {
			t := tallyJSONOf(*rd.First)
			r.First = &t
		}
		if rd.Result != nil {
			res := resultJSONOf(rd.Result)
			r.Result = &res
		}
		if rd.Handler != nil {
			hj := handlerJSONOf(rd.Handler)
			r.Handler = &hj
		}
		out.Rounds = append(out.Rounds, r)
	}
	for _, p := range v.Pins {
		out.Pins = append(out.Pins, PinJSON{ID: p.ID, Name: p.Name, Path: p.Path, Note: p.Note, Hidden: p.Hidden, At: p.At})
	}
	return out
}

func resultJSONOf(r *rooms.Result) ResultJSON {
	out := ResultJSON{Measured: r.Measured, Median: r.Median, Min: r.Min, Max: r.Max, Q1: r.Q1, Q3: r.Q3,
		YourDistance: r.YourDistance, Guesses: guessesJSONOf(r.Guesses), MovedCloser: r.MovedCloser, AnsweredBoth: r.BothVotes,
		Calibration: calibrationJSONOf(r.Calibration), YourConfidence: string(r.YourConfidence), YourFirstDistance: r.YourFirstDistance}
	if out.Calibration == nil {
		out.Calibration = []CalibrationJSON{}
	}
	if r.First != nil {
		t := tallyJSONOf(*r.First)
		out.First = &t
	}
	return out
}

func tallyJSONOf(t rooms.Tally) TallyJSON {
	out := TallyJSON{Guesses: guessesJSONOf(t.Guesses), Median: t.Median, Min: t.Min, Max: t.Max, Q1: t.Q1, Q3: t.Q3,
		Calibration: calibrationJSONOf(t.Calibration)}
	if out.Calibration == nil {
		out.Calibration = []CalibrationJSON{}
	}
	return out
}

func guessesJSONOf(gs []rooms.GuessView) []GuessJSON {
	out := []GuessJSON{}
	for _, g := range gs {
		out = append(out, GuessJSON{Name: g.Name, Value: g.Value, Confidence: string(g.Confidence)})
	}
	return out
}

func calibrationJSONOf(cs []rooms.Calibration) []CalibrationJSON {
	var out []CalibrationJSON
	for _, c := range cs {
		out = append(out, CalibrationJSON{Confidence: string(c.Confidence), Guesses: c.Guesses, MeanDistance: c.MeanDistance})
	}
	return out
}

// names keeps a list of names that is there but empty ("everyone has answered") apart from one
// that is not there at all (a member's answer, or no round taking answers).
func names(ns []string) *[]string {
	if ns == nil {
		return nil
	}
	return &ns
}
