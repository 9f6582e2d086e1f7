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
}

// GuessJSON is one revealed guess; name is empty when the caller may not see names.
type GuessJSON struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
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
		Presenting: v.Presenting, Seated: v.Seated, Roster: []SeatJSON{}, Rounds: []RoundJSON{}, Pins: []PinJSON{}}
	if v.You != nil {
		out.You = &SeatJSON{ID: v.You.ID, Name: v.You.Name, Present: v.You.Present}
	}
	for _, e := range v.Roster {
		out.Roster = append(out.Roster, SeatJSON{ID: e.ID, Name: e.Name, Present: e.Present})
	}
	for _, rd := range v.Rounds {
		r := RoundJSON{Seq: rd.Seq, Question: rd.Question, State: string(rd.State), Answered: rd.Answered, Of: rd.Of,
			YourGuess: rd.YourGuess, NamesVisible: rd.NamesVisible}
		if rd.Result != nil {
			res := resultJSONOf(rd.Result)
			r.Result = &res
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
		YourDistance: r.YourDistance, Guesses: []GuessJSON{}}
	for _, g := range r.Guesses {
		out.Guesses = append(out.Guesses, GuessJSON{Name: g.Name, Value: g.Value})
	}
	return out
}
