package rooms

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"time"
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
	// Unanswered names, for the host only, the seated members who have not answered the vote
	// now taking answers, in the order they joined; nil when no round takes answers (and always
	// for a member, who must not learn who is slow).
	Unanswered []string
	// Clock is the server's clock when the view was drawn: a countdown's Deadline is read against
	// it, so every screen shows the same time left whatever its own clock says.
	Clock time.Time
	// YourCalibration is a member's own calibration over every revealed round they answered with
	// a confidence, per level. Its distances are relative to each round's measured value, since
	// rounds ask in different units (see RelativeCalibration); a round's own Calibration is in the
	// round's unit.
	YourCalibration []RelativeCalibration
	// LabRun is the live lab's run the room watches ("" for none), for the host and members.
	LabRun string
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
//
// State is the round's state at the view's Clock: an open round whose countdown has run out
// shows as locked, since it takes no more guesses. Answered, YourGuess and YourConfidence are of
// the vote taking answers (or the last that did); in a second vote, YourFirstGuess is the
// caller's first answer, which they may keep or change.
type RoundView struct {
	Seq                 int
	Question            Question
	State               RoundState
	Answered            int      // guesses from seated members: the "N" of "N of M answered"
	Of                  int      // seated members: the "M"
	YourGuess           *float64 // the caller's own guess, which they may always see
	NamesVisible        bool
	Result              *Result
	Votes               int // 1 or 2
	Vote                int // the vote taking answers, or the last that did
	YourConfidence      Confidence
	YourFirstGuess      *float64 // a member's first answer, in a second vote
	YourFirstConfidence Confidence
	// First is the first vote of a two-vote round for the host alone, before the reveal (after
	// it, everyone has Result.First): its answers and their spread, which the host reads to decide
	// whether the room should discuss. No calibration yet, since nothing is measured.
	First *Tally
	// The countdown, for a round that has one. Deadline is RFC 3339 while it runs, "" while it
	// is paused or over; Left is what remains at the view's Clock (what a paused one has left).
	Seconds  int
	Deadline string
	Paused   bool
	Left     time.Duration
	TimeUp   bool
	// Unanswered names, for the host while the round takes answers, the seated members who have
	// not answered its current vote, in the order they joined.
	Unanswered []string
	// Handler is a handler round's submissions as the caller may see them (see HandlerView); nil
	// for every other kind of round, which has Result instead.
	Handler *HandlerView
}

// Result is a revealed round: every guess, its summary, and the truth. Of a two-vote round, the
// guesses and summary are the second vote's (the answers after discussion), and First is the
// first vote's.
type Result struct {
	Measured     float64
	Guesses      []GuessView // ascending by value, so order says nothing about who guessed first
	Median       float64     // of the guesses; 0 when there are none
	Min, Max     float64     // the spread's ends
	Q1, Q3       float64     // quartiles; Q3-Q1 is the spread a histogram's reader sees
	YourDistance *float64    // the caller's guess minus the measured value (positive: too high)
	// Calibration is how far off each confidence level was on average (absolute distance from
	// the measured value), for the levels someone chose, low to high.
	Calibration []Calibration
	// YourConfidence is the caller's own level, and YourCalibration their own entry: their
	// level and how far off they were, to set beside the group's.
	YourConfidence  Confidence
	YourCalibration *Calibration
	// First is the first vote of a two-vote round; nil for one vote (or a round revealed before
	// its second vote began).
	First *Tally
	// MovedCloser counts the members who answered both votes and whose second answer is nearer
	// the measured value than their first; BothVotes counts those who answered both votes, the
	// "of M" it is read against.
	MovedCloser int
	BothVotes   int
	// YourFirstDistance is the caller's first answer minus the measured value.
	YourFirstDistance *float64
}

// Tally is one vote's answers and their summary, as Result holds the last vote's.
type Tally struct {
	Guesses     []GuessView // ascending by value
	Median      float64
	Min, Max    float64
	Q1, Q3      float64
	Calibration []Calibration
}

// Calibration is one confidence level's record in one round: how many answers chose it and how far
// they were from the measured value on average, in the round's unit (absolute: too high and too
// low count alike).
type Calibration struct {
	Confidence   Confidence
	Guesses      int
	MeanDistance float64
}

// RelativeCalibration is one confidence level's record across rounds: how many answers chose it
// and how far they were from the measured value on average, as a fraction of that value (0.1 is
// 10% off, too high and too low alike). Rounds ask in different units, so only a relative
// distance averages across them; a round whose measured value is 0 has none and is left out.
type RelativeCalibration struct {
	Confidence           Confidence
	Guesses              int
	MeanRelativeDistance float64
}

// GuessView is one revealed guess; Name is empty unless the caller may see names.
type GuessView struct {
	Name       string
	Value      float64
	Confidence Confidence
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

// State builds the room as caller c may see it: c's room as the request read it, with its
// members, rounds, guesses and pins read now (only the members for nobody). A member is present
// when the store marks their stream seen within PresentWindow, or when present (if not nil) says
// this replica holds a stream of theirs that it has not written down yet. A refused caller gets
// its refusal.
func (s *Service) State(ctx context.Context, c Caller, present func(memberID string) bool) (View, error) {
	if c.refused != nil {
		return View{}, c.refused
	}
	if c.key == "" { // not made by Identify: nobody
		c = Caller{Room: c.Room}
	}
	r := c.Room
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
		return buildView(r, ms, nil, nil, nil, c, present, nil, stored.At), nil
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
	subs, sources, err := s.handlerReads(ctx, r.ID, rounds, c.Role == AsHost)
	if err != nil {
		return View{}, err
	}
	ix := newViewIndex(ms, guesses).withHandlers(subs, sources)
	return buildView(r, ms, rounds, guesses, pins, c, present, ix, stored.At), nil
}

// viewIndex is what every caller's view of one room shares: a snapshot makes it once for all its
// streams, so that each view costs its own caller's part and no more. Its rounds' votes and
// tallies are worked out by the first view that needs them, and shared by the rest: the slices
// of a view drawn from a snapshot (its results' guesses) may then be other views' too, and are
// read, never written.
type viewIndex struct {
	seated map[string]string // id to name, members not kicked
	order  []string          // ids of the members not kicked, in the order they joined
	// waiting are the seated members the host waits for (not those hosting: see
	// Member.Hosting), in the order they joined, with when each joined.
	waiting []string
	joined  map[string]time.Time
	names   map[string]string // id to name, every member
	bySeq   map[int][]Guess   // the seated members' guesses by round, every vote
	// subs are the seated members' handler submissions by round, and sources the sources read
	// for the projector, by share hash (see withHandlers).
	subs    map[int][]Submission
	sources map[string]string

	mu    sync.Mutex          // guards votes, which the streams of a snapshot fill at once
	votes map[int]*roundVotes // by round
}

// roundVotes is one round's guesses split by vote, with where each member's guess is in each, and
// the tallies its views asked for so far.
type roundVotes struct {
	cur, first     []Guess        // the vote taking answers (or the last that did); the first, in a second vote
	curBy, firstBy map[string]int // index in cur and first by member
	tallies        map[tallyKey]Tally
}

// tallyKey is which tally of a round: of its first vote or its last, with names or without, with
// the calibration against the measured value or without.
type tallyKey struct{ first, names, measured bool }

// votesOf answers round rd's votes, splitting its guesses the first time.
func (ix *viewIndex) votesOf(rd Round) *roundVotes {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if rv := ix.votes[rd.Seq]; rv != nil {
		return rv
	}
	vote := cmp.Or(rd.Vote, 1)
	rv := &roundVotes{curBy: map[string]int{}, firstBy: map[string]int{}, tallies: map[tallyKey]Tally{}}
	for _, g := range ix.bySeq[rd.Seq] {
		switch cmp.Or(g.Vote, 1) {
		case vote:
			if _, ok := rv.curBy[g.MemberID]; !ok {
				rv.curBy[g.MemberID] = len(rv.cur)
			}
			rv.cur = append(rv.cur, g)
		case 1:
			if _, ok := rv.firstBy[g.MemberID]; !ok {
				rv.firstBy[g.MemberID] = len(rv.first)
			}
			rv.first = append(rv.first, g)
		}
	}
	ix.votes[rd.Seq] = rv
	return rv
}

// tallyOf answers a tally of rv (see tallyKey), summing it up the first time it is asked for.
func (ix *viewIndex) tallyOf(rv *roundVotes, first, names bool, measured *float64) Tally {
	key := tallyKey{first, names, measured != nil}
	ix.mu.Lock()
	t, ok := rv.tallies[key]
	ix.mu.Unlock()
	if ok {
		return t
	}
	gs := rv.cur
	if first {
		gs = rv.first
	}
	t = tally(gs, ix.seated, names, measured)
	ix.mu.Lock()
	rv.tallies[key] = t // two views may have summed it at once: alike, either serves
	ix.mu.Unlock()
	return t
}

func newViewIndex(ms []Member, guesses []Guess) *viewIndex {
	ix := &viewIndex{seated: make(map[string]string, len(ms)), names: make(map[string]string, len(ms)), bySeq: map[int][]Guess{},
		votes: map[int]*roundVotes{}, joined: make(map[string]time.Time, len(ms))}
	for _, m := range ms {
		ix.names[m.ID] = m.Name
		if !m.Kicked {
			ix.seated[m.ID] = m.Name
			ix.order = append(ix.order, m.ID)
			if !m.Hosting {
				ix.waiting = append(ix.waiting, m.ID)
				ix.joined[m.ID] = m.JoinedAt
			}
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
// store) and for a Snapshot (read once for every stream of the room) alike. ix may be nil. now
// is the Service's clock, against which countdowns are read.
func buildView(r Room, ms []Member, rounds []Round, guesses []Guess, pins []Pin, c Caller, present func(memberID string) bool, ix *viewIndex, now time.Time) View {
	if ix == nil {
		ix = newViewIndex(ms, guesses)
	}
	v := View{Code: r.Code, Title: r.Title, Locked: r.Locked, Closed: r.Closed, Role: c.Role, RoomID: r.ID, Clock: now}
	// Every stream of a room makes its view at every change: the roster and the rounds are made
	// at their size at once, and only the caller's own seat is copied apart.
	if len(ix.order) > 0 {
		v.Roster = make([]RosterEntry, 0, len(ix.order))
	}
	for _, m := range ms {
		if m.Kicked {
			continue
		}
		v.Seated++
		e := RosterEntry{ID: m.ID, Name: m.Name, Present: present(m.ID)}
		v.Roster = append(v.Roster, e)
		if c.Role == AsMember && m.ID == c.Member.ID {
			you := e
			v.You = &you
		}
	}
	if c.Role == Nobody {
		// A join code is short enough to guess; knowing one must not reveal names or notes.
		v.Roster = nil
		return v
	}
	v.Presenting = r.Presenting
	v.LabRun = r.LabRun
	var cal calibrator
	if len(rounds) > 0 {
		v.Rounds = make([]RoundView, 0, len(rounds))
	}
	for i, rd := range rounds {
		rv := roundView(rd, ix, c, now)
		rv.Of = ix.waitingAt(closedAt(rounds, i))
		if r.Closed {
			rv.Unanswered = nil // a closed room waits for no one
		}
		if rv.Unanswered != nil {
			v.Unanswered = rv.Unanswered
		}
		if res := rv.Result; res != nil && rv.YourGuess != nil && rv.YourConfidence != "" && res.Measured != 0 {
			cal.add(rv.YourConfidence, math.Abs(*res.YourDistance/res.Measured))
		}
		v.Rounds = append(v.Rounds, rv)
	}
	if c.Role == AsMember {
		for _, l := range cal.levels() {
			v.YourCalibration = append(v.YourCalibration, RelativeCalibration{Confidence: l.Confidence, Guesses: l.Guesses, MeanRelativeDistance: l.MeanDistance})
		}
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

// closedAt is when rounds[i] stopped taking new members into its count: its reveal, or the next
// round's opening for one left unrevealed; zero while it is the newest and unrevealed, which
// counts everyone seated now.
func closedAt(rounds []Round, i int) time.Time {
	switch rd := rounds[i]; {
	case rd.State == RoundRevealed && !rd.RevealedAt.IsZero():
		return rd.RevealedAt
	case i+1 < len(rounds):
		return rounds[i+1].OpenedAt
	}
	return time.Time{}
}

// answeredBy counts the guesses in gs of members the host waits for: a member who has since become
// the host keeps their answer in the tallies, but the "N of M answered" counts neither.
func (ix *viewIndex) answeredBy(gs []Guess) int {
	n := 0
	for _, g := range gs {
		if ix.waitedFor(g.MemberID) {
			n++
		}
	}
	return n
}

// waitedFor reports whether the host waits for member id's answers: seated, and not hosting.
func (ix *viewIndex) waitedFor(id string) bool {
	_, ok := ix.joined[id]
	return ok
}

// unanswered names the members the host waits for who have not answered, in the order they
// joined ("Not answered yet"), for a number round's guesses and a handler round's submissions.
func (ix *viewIndex) unanswered(answered func(id string) bool) []string {
	out := []string{}
	for _, id := range ix.waiting {
		if !answered(id) {
			out = append(out, ix.seated[id])
		}
	}
	return out
}

// timer sets what a countdown shows of round rd at now, while the round takes answers.
func (v *RoundView) timer(rd Round, now time.Time) {
	if !rd.Timed() || rd.State != RoundOpen {
		return
	}
	v.Paused, v.Left, v.TimeUp = rd.Paused(), rd.TimeLeft(now), rd.TimeUp(now)
	if !rd.Deadline.IsZero() && !v.TimeUp {
		v.Deadline = rd.Deadline.UTC().Format(timeFormat)
	}
}

// waitingAt counts the members the host waits for who had joined by t (everyone, for zero t):
// a round's "of M", which must not grow as members join after it closed.
func (ix *viewIndex) waitingAt(t time.Time) int {
	if t.IsZero() {
		return len(ix.waiting)
	}
	n := 0
	for _, id := range ix.waiting {
		if !ix.joined[id].After(t) {
			n++
		}
	}
	return n
}

// roundView is round rd as caller c may see it at now, from the guesses ix holds.
func roundView(rd Round, ix *viewIndex, c Caller, now time.Time) RoundView {
	if rd.Question.Kind == KindHandler {
		return handlerRoundView(rd, ix, c, now)
	}
	vote, votes := cmp.Or(rd.Vote, 1), cmp.Or(rd.Votes, 1)
	// cur is the vote taking answers (or the last that did); first, in a second vote, the first.
	rvs := ix.votesOf(rd)
	cur, first := rvs.cur, rvs.first
	state := rd.StateAt(now)
	v := RoundView{Seq: rd.Seq, Question: rd.Question, State: state, Answered: ix.answeredBy(cur),
		NamesVisible: rd.NamesVisible, Votes: votes, Vote: vote, Seconds: rd.Seconds}
	mine := func(gs []Guess, by map[string]int) (*float64, Confidence) {
		if i, ok := by[c.Member.ID]; ok && c.Role == AsMember {
			val := gs[i].Value
			return &val, gs[i].Confidence
		}
		return nil, ""
	}
	v.YourGuess, v.YourConfidence = mine(cur, rvs.curBy)
	v.YourFirstGuess, v.YourFirstConfidence = mine(first, rvs.firstBy)
	v.timer(rd, now)
	names := c.Role == AsHost || rd.NamesVisible
	if state == RoundOpen && c.Role == AsHost {
		v.Unanswered = ix.unanswered(func(id string) bool { _, ok := rvs.curBy[id]; return ok })
	}
	if rd.State != RoundRevealed {
		if votes == 2 && c.Role == AsHost {
			t := ix.tallyOf(rvs, vote == 2, true, nil)
			v.First = &t
		}
		return v
	}
	m := rd.Measured
	t := ix.tallyOf(rvs, false, names, &m)
	res := &Result{Measured: m, Guesses: t.Guesses, Median: t.Median, Min: t.Min, Max: t.Max, Q1: t.Q1, Q3: t.Q3,
		Calibration: t.Calibration, YourConfidence: v.YourConfidence}
	if v.YourGuess != nil {
		d := *v.YourGuess - m
		res.YourDistance = &d
		if v.YourConfidence != "" {
			res.YourCalibration = &Calibration{Confidence: v.YourConfidence, Guesses: 1, MeanDistance: math.Abs(d)}
		}
	}
	if votes == 2 && vote == 2 {
		ft := ix.tallyOf(rvs, true, names, &m)
		res.First = &ft
		was := make(map[string]float64, len(first))
		for _, g := range first {
			was[g.MemberID] = g.Value
		}
		for _, g := range cur {
			w, ok := was[g.MemberID]
			if !ok {
				continue // no first answer to have moved from
			}
			res.BothVotes++
			if math.Abs(g.Value-m) < math.Abs(w-m) {
				res.MovedCloser++
			}
		}
		if v.YourFirstGuess != nil {
			d := *v.YourFirstGuess - m
			res.YourFirstDistance = &d
		}
	}
	v.Result = res
	return v
}

// tally summarises one vote's guesses; names says whether the caller may see who guessed what,
// and measured (when known) gives the calibration.
func tally(gs []Guess, seated map[string]string, names bool, measured *float64) Tally {
	t := Tally{Guesses: make([]GuessView, 0, len(gs))}
	vals := make([]float64, 0, len(gs))
	var cal calibrator
	for _, g := range gs {
		gv := GuessView{Value: g.Value, Confidence: g.Confidence}
		if names {
			gv.Name = seated[g.MemberID]
		}
		t.Guesses = append(t.Guesses, gv)
		vals = append(vals, g.Value)
		if measured != nil && g.Confidence != "" {
			cal.add(g.Confidence, math.Abs(g.Value-*measured))
		}
	}
	if len(t.Guesses) == 0 {
		t.Guesses = nil // as a round nobody answered always showed
	}
	slices.SortStableFunc(t.Guesses, func(a, b GuessView) int {
		return cmp.Or(cmp.Compare(a.Value, b.Value), cmp.Compare(a.Name, b.Name))
	})
	slices.Sort(vals)
	if len(vals) > 0 {
		t.Min, t.Max = vals[0], vals[len(vals)-1]
		t.Q1, t.Median, t.Q3 = Quantile(vals, 0.25), Quantile(vals, 0.5), Quantile(vals, 0.75)
	}
	t.Calibration = cal.levels()
	return t
}

// calibrator sums distances per confidence level.
type calibrator struct {
	n   [3]int
	sum [3]float64
}

func (c *calibrator) add(level Confidence, distance float64) {
	if i := slices.Index(Confidences, level); i >= 0 {
		c.n[i]++
		c.sum[i] += distance
	}
}

// levels answers the mean per level that has any answer, low to high; nil for none.
func (c *calibrator) levels() []Calibration {
	var out []Calibration
	for i, level := range Confidences {
		if c.n[i] > 0 {
			out = append(out, Calibration{Confidence: level, Guesses: c.n[i], MeanDistance: c.sum[i] / float64(c.n[i])})
		}
	}
	return out
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
