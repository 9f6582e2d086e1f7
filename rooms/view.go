package rooms

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// View is a room as one caller may see it. It is built in one place so that the API, the page
// and the event stream cannot disagree on who sees what.
type View struct {
	RoomID     string // permanent, unlike Code; the event stream and cookies use it
	Code       string
	Title      string
	Locked     bool
	Closed     bool
	Role       Role
	You        *RosterEntry // the caller's own seat, for a member
	Presenting string
	Seated     int           // members not kicked; also what nobody may know
	Roster     []RosterEntry // empty for nobody
	Rounds     []RoundView   // empty for nobody
	Pins       []PinView     // empty for nobody; hidden pins for the host only
}

// RosterEntry is one seat on the roster. Present comes from the transport (an open stream),
// which the domain cannot know.
type RosterEntry struct {
	ID      string
	Name    string
	Present bool
}

// RoundView is a round as the caller may see it. While the round is open or locked only the
// counts show; Result is set once it is revealed.
type RoundView struct {
	Seq          int
	Question     Question
	State        RoundState
	Answered     int      // guesses from seated members: the "N" of "N of M answered"
	Of           int      // seated members: the "M"
	YourGuess    *float64 // the caller's own guess, which they may always see
	NamesVisible bool
	Result       *Result
}

// Result is a revealed round: every guess, its summary, and the truth.
type Result struct {
	Measured     float64
	Guesses      []GuessView // ascending by value, so order says nothing about who guessed first
	Median       float64     // of the guesses; 0 when there are none
	Min, Max     float64     // the spread's ends
	Q1, Q3       float64     // quartiles; Q3-Q1 is the spread a histogram's reader sees
	YourDistance *float64    // the caller's guess minus the measured value (positive: too high)
}

// GuessView is one revealed guess; Name is empty unless the caller may see names.
type GuessView struct {
	Name  string
	Value float64
}

// PinView is one pin on the board with its author's name.
type PinView struct {
	ID     string
	Name   string
	Path   string
	Note   string
	Hidden bool
	At     string // RFC 3339, so a view marshals the same from every store
}

// State builds the room as the holder of key may see it. A member is present when the store
// marks their stream seen within PresentWindow, or when present (if not nil) says this replica
// holds a stream of theirs that it has not written down yet.
func (s *Service) State(ctx context.Context, code, key string, present func(memberID string) bool) (View, error) {
	r, c, err := s.Identify(ctx, code, key)
	if err != nil {
		return View{}, err
	}
	ms, err := s.store.Members(ctx, r.ID)
	if err != nil {
		return View{}, err
	}
	stored := Snapshot{Members: ms, At: s.cfg.Now()}.indexed()
	if live := present; live != nil {
		present = func(id string) bool { return live(id) || stored.Present(id) }
	} else {
		present = stored.Present
	}
	if c.Role == Nobody {
		// A join code is short enough to guess; knowing one must not reveal names or notes, so
		// nothing more is read for nobody.
		return buildView(r, ms, nil, nil, nil, c, present, nil), nil
	}
	rounds, err := s.store.Rounds(ctx, r.ID)
	if err != nil {
		return View{}, err
	}
	guesses, err := s.store.Guesses(ctx, r.ID)
	if err != nil {
		return View{}, err
	}
	pins, err := s.store.Pins(ctx, r.ID)
	if err != nil {
		return View{}, err
	}
	return buildView(r, ms, rounds, guesses, pins, c, present, nil), nil
}

// viewIndex is what every caller's view of one room shares: a snapshot makes it once for all its
// streams, so that each view costs its own caller's part and no more.
type viewIndex struct {
	seated map[string]string // id to name, members not kicked
	names  map[string]string // id to name, every member
	bySeq  map[int][]Guess   // the seated members' guesses by round
}

func newViewIndex(ms []Member, guesses []Guess) *viewIndex {
	ix := &viewIndex{seated: make(map[string]string, len(ms)), names: make(map[string]string, len(ms)), bySeq: map[int][]Guess{}}
	for _, m := range ms {
		ix.names[m.ID] = m.Name
		if !m.Kicked {
			ix.seated[m.ID] = m.Name
		}
	}
	for _, g := range guesses {
		if _, ok := ix.seated[g.MemberID]; ok {
			ix.bySeq[g.Seq] = append(ix.bySeq[g.Seq], g)
		}
	}
	return ix
}

// buildView is the one place the rules of who sees what are applied, for State (read from the
// store) and for a Snapshot (read once for every stream of the room) alike. ix may be nil.
func buildView(r Room, ms []Member, rounds []Round, guesses []Guess, pins []Pin, c Caller, present func(memberID string) bool, ix *viewIndex) View {
	if ix == nil {
		ix = newViewIndex(ms, guesses)
	}
	v := View{Code: r.Code, Title: r.Title, Locked: r.Locked, Closed: r.Closed, Role: c.Role, RoomID: r.ID}
	seated := ix.seated
	for _, m := range ms {
		if m.Kicked {
			continue
		}
		v.Seated++
		e := RosterEntry{ID: m.ID, Name: m.Name, Present: present(m.ID)}
		v.Roster = append(v.Roster, e)
		if c.Role == AsMember && m.ID == c.Member.ID {
			v.You = &e
		}
	}
	if c.Role == Nobody {
		// A join code is short enough to guess; knowing one must not reveal names or notes.
		v.Roster = nil
		return v
	}
	v.Presenting = r.Presenting
	for _, rd := range rounds {
		v.Rounds = append(v.Rounds, roundView(rd, ix.bySeq[rd.Seq], seated, c))
	}
	names := ix.names
	for _, p := range pins {
		if p.Hidden && c.Role != AsHost {
			continue
		}
		v.Pins = append(v.Pins, PinView{ID: p.ID, Name: names[p.MemberID], Path: p.Path, Note: p.Note,
			Hidden: p.Hidden, At: p.At.UTC().Format(timeFormat)})
	}
	return v
}

const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func roundView(rd Round, gs []Guess, seated map[string]string, c Caller) RoundView {
	v := RoundView{Seq: rd.Seq, Question: rd.Question, State: rd.State, Answered: len(gs), Of: len(seated),
		NamesVisible: rd.NamesVisible}
	for _, g := range gs {
		if c.Role == AsMember && g.MemberID == c.Member.ID {
			val := g.Value
			v.YourGuess = &val
		}
	}
	if rd.State != RoundRevealed {
		return v
	}
	res := &Result{Measured: rd.Measured}
	names := c.Role == AsHost || rd.NamesVisible
	vals := make([]float64, 0, len(gs))
	for _, g := range gs {
		gv := GuessView{Value: g.Value}
		if names {
			gv.Name = seated[g.MemberID]
		}
		res.Guesses = append(res.Guesses, gv)
		vals = append(vals, g.Value)
	}
	slices.SortStableFunc(res.Guesses, func(a, b GuessView) int {
		return cmp.Or(cmp.Compare(a.Value, b.Value), cmp.Compare(a.Name, b.Name))
	})
	slices.Sort(vals)
	if len(vals) > 0 {
		res.Min, res.Max = vals[0], vals[len(vals)-1]
		res.Q1, res.Median, res.Q3 = Quantile(vals, 0.25), Quantile(vals, 0.5), Quantile(vals, 0.75)
	}
	if v.YourGuess != nil {
		d := *v.YourGuess - rd.Measured
		res.YourDistance = &d
	}
	v.Result = res
	return v
}

// Quantile answers the p-quantile of sorted values by linear interpolation between the two
// nearest ranks, the rule spreadsheets and numpy use by default, so a host checking the median
// by hand gets the same figure.
func Quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	h := p * float64(len(sorted)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}
