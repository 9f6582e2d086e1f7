package live

import (
	"context"
	"sync"
	"time"

	"effectivelyonce/rooms"
)

// Presence is who is here, as this replica's streams know it: kept in memory, so that a stream's
// heartbeat touches no store, and written to the store in batches, so that the other replicas'
// readers find every member held here marked within rooms.PresentWindow. An arrival that changes
// who is here is written and announced at once; a departure is announced once the window has
// passed, when the room's readers (on every replica) re-read it and the member fades.
type Presence struct {
	cfg PresenceConfig

	mu    sync.Mutex
	marks map[string]map[string]*mark // by room, then member
	// heres are Room's answers by room, kept until a member's stream arrives or leaves there or
	// a departed member's window runs out: every stream of a room asks at every redraw, and
	// working it out afresh each time cost a map of the room's members per stream per change.
	heres map[string]here
}

// here is who is here in one room, as Room worked it out, and until when it holds.
type here struct {
	is    func(memberID string) bool
	until time.Time // when the first member who left fades; zero when nobody is fading
}

// PresenceConfig is what a Presence needs from the rooms: their clock, a way to write a mark and
// one to announce a change. Every is how often marks are written (at most 5 s, so that a mark is
// never older in the store than WriteEvery plus Every, well inside the window).
type PresenceConfig struct {
	Now      func() time.Time
	Touch    func(ctx context.Context, roomID, memberID string, at time.Time) error
	Announce func(ctx context.Context, roomID string)
	Every    time.Duration
	// WriteEvery is how old a member's mark in the store may grow before it is written again
	// (20 s, the old heartbeat's pace): with Every, always under rooms.PresentWindow.
	WriteEvery time.Duration
}

// mark is one member's presence on this replica.
type mark struct {
	open    int       // their streams open here
	last    time.Time // when a stream of theirs here last showed them (connect, heartbeat, close)
	written time.Time // the mark this replica last wrote to the store
}

// NewPresence answers an empty Presence; Run writes its marks.
func NewPresence(cfg PresenceConfig) *Presence {
	if cfg.Every <= 0 || cfg.Every > 5*time.Second {
		cfg.Every = 5 * time.Second
	}
	if cfg.WriteEvery <= 0 {
		cfg.WriteEvery = 20 * time.Second
	}
	return &Presence{cfg: cfg, marks: map[string]map[string]*mark{}, heres: map[string]here{}}
}

// Arrive records a member's stream opening here. elsewhere says the store already showed them
// present (a stream on another replica, or one that just reconnected); otherwise the arrival
// changes who is here, so it is written and the room hears of it before Arrive returns.
func (p *Presence) Arrive(ctx context.Context, roomID, memberID string, elsewhere bool) {
	now := p.cfg.Now()
	p.mu.Lock()
	room := p.marks[roomID]
	if room == nil {
		room = map[string]*mark{}
		p.marks[roomID] = room
	}
	m := room[memberID]
	if m == nil {
		m = &mark{}
		room[memberID] = m
	}
	here := m.open > 0 || !m.last.IsZero() && now.Sub(m.last) <= rooms.PresentWindow
	m.open++
	m.last = now
	delete(p.heres, roomID)
	announce := !here && !elsewhere
	if announce {
		m.written = now
	}
	p.mu.Unlock()
	if announce {
		_ = p.cfg.Touch(ctx, roomID, memberID, now)
		p.cfg.Announce(ctx, roomID)
	}
}

// Beat renews a member's presence from their stream's heartbeat, in memory only.
func (p *Presence) Beat(roomID, memberID string) {
	now := p.cfg.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := p.marks[roomID][memberID]; m != nil {
		m.last = now
	}
}

// Leave records a member's stream here closing. Nothing is written: they fade once the window has
// passed, which Run announces.
func (p *Presence) Leave(roomID, memberID string) {
	now := p.cfg.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := p.marks[roomID][memberID]; m != nil && m.open > 0 {
		m.open--
		m.last = now
		delete(p.heres, roomID)
	}
}

// Here reports whether a member has a stream open here, or had one within rooms.PresentWindow.
func (p *Presence) Here(roomID, memberID string) bool {
	now := p.cfg.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.marks[roomID][memberID]
	return m != nil && (m.open > 0 || now.Sub(m.last) <= rooms.PresentWindow)
}

// Room answers who is Here in room roomID as of now, taken in one step, so that a stream drawing a
// roster of hundreds asks the lock once, not once a member; and worked out once for all the
// room's streams until it changes (an arrival, a departure, or a departed member fading).
func (p *Presence) Room(roomID string) func(memberID string) bool {
	now := p.cfg.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if h, ok := p.heres[roomID]; ok && (h.until.IsZero() || now.Before(h.until)) {
		return h.is
	}
	in := make(map[string]bool, len(p.marks[roomID]))
	var until time.Time
	for id, m := range p.marks[roomID] {
		if m.open > 0 {
			in[id] = true
		} else if fade := m.last.Add(rooms.PresentWindow); !now.After(fade) {
			in[id] = true
			if until.IsZero() || fade.Before(until) {
				until = fade
			}
		}
	}
	if !until.IsZero() {
		until = until.Add(1) // Here holds up to and including the window's last instant
	}
	h := here{is: func(memberID string) bool { return in[memberID] }, until: until}
	p.heres[roomID] = h
	return h.is
}

// Run writes the marks of members held here every Every, and announces the rooms whose members
// have faded, until ctx ends.
func (p *Presence) Run(ctx context.Context) {
	t := time.NewTicker(p.cfg.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.Flush(ctx)
		}
	}
}

// Flush is one round of Run: every member with a stream here whose mark in the store has grown
// older than WriteEvery is written (one short overwrite each), and each room where a member's
// last stream closed more than the window ago is announced once, so its readers re-read it and
// the member fades on every replica.
func (p *Presence) Flush(ctx context.Context) {
	now := p.cfg.Now()
	type seat struct{ room, member string }
	var writes []seat
	faded := map[string]bool{}
	p.mu.Lock()
	for roomID, room := range p.marks {
		for id, m := range room {
			switch {
			case m.open > 0 && now.Sub(m.written) >= p.cfg.WriteEvery:
				m.written = now
				writes = append(writes, seat{roomID, id})
			case m.open == 0 && now.Sub(m.last) > rooms.PresentWindow:
				delete(room, id)
				delete(p.heres, roomID)
				faded[roomID] = true
			}
		}
		if len(room) == 0 {
			delete(p.marks, roomID)
			delete(p.heres, roomID)
		}
	}
	p.mu.Unlock()
	for _, k := range writes {
		if ctx.Err() != nil {
			return
		}
		if err := p.cfg.Touch(ctx, k.room, k.member, now); err != nil {
			p.mu.Lock()
			if m := p.marks[k.room][k.member]; m != nil {
				m.written = time.Time{} // the store was out of reach: write it at the next round
			}
			p.mu.Unlock()
		}
	}
	for room := range faded {
		p.cfg.Announce(ctx, room)
	}
}
