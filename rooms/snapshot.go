package rooms

import (
	"context"
	"errors"
	"slices"
	"time"
)

// Snapshot is one room read whole: everything any caller's view of it is drawn from. A live
// room's reader takes one per change and every stream of the room derives its own caller's view
// from it in memory, so a change costs the store the same few reads however many people watch.
type Snapshot struct {
	Room    Room
	Members []Member // kicked ones too, in the order they joined
	Rounds  []Round  // by Seq
	Guesses []Guess  // by Seq, then by time
	Pins    []Pin    // newest first
	// Submissions are the handler rounds' submissions, by Seq then time (none read for a room
	// without a handler round); Sources the source of the one the newest round shows on the
	// projector, by share hash.
	Submissions []Submission
	Sources     map[string]string
	// At is when the snapshot was read, by the Service's clock: a member's stored LastSeen is
	// judged against it, since nobody re-reads the room just because time passes.
	At time.Time

	seen map[string]time.Time // LastSeen by member id, made once so that a view costs O(members)
	ix   *viewIndex           // what every view of the snapshot shares
	keys map[Hash]int         // index in Members by key hash
}

// indexed answers sn with its members' LastSeen indexed, which every view of it then shares.
func (sn Snapshot) indexed() Snapshot {
	sn.seen = make(map[string]time.Time, len(sn.Members))
	sn.keys = make(map[Hash]int, len(sn.Members))
	for i, m := range sn.Members {
		sn.seen[m.ID] = m.LastSeen
		sn.keys[m.TokenHash] = i
	}
	sn.ix = newViewIndex(sn.Members, sn.Guesses).withHandlers(sn.Submissions, sn.Sources)
	return sn
}

// Snapshot reads the room with this permanent id whole, in five store reads (a sixth and a
// seventh for a room with handler rounds: their submissions, and a source shown), closing it first if
// it has been idle too long (as every read of a room does).
func (s *Service) Snapshot(ctx context.Context, id string) (Snapshot, error) {
	r, err := s.RoomByID(ctx, id)
	if err != nil {
		return Snapshot{}, err
	}
	sn := Snapshot{Room: r, At: s.cfg.Now()}
	if sn.Members, err = s.store.Members(ctx, r.ID); err != nil {
		return Snapshot{}, err
	}
	if sn.Rounds, err = s.store.Rounds(ctx, r.ID); err != nil {
		return Snapshot{}, err
	}
	if sn.Guesses, err = s.store.Guesses(ctx, r.ID); err != nil {
		return Snapshot{}, err
	}
	if sn.Pins, err = s.store.Pins(ctx, r.ID); err != nil {
		return Snapshot{}, err
	}
	if sn.Submissions, sn.Sources, err = s.handlerReads(ctx, r.ID, sn.Rounds, true); err != nil {
		return Snapshot{}, err
	}
	return sn.indexed(), nil
}

// Caller resolves a key against the snapshot in memory, with Identify's answers: an empty key is
// nobody, a key of neither the host nor a seat ErrForbidden, a removed member's ErrKicked. h is
// HashKey(key), which a stream works out once rather than at every change.
func (sn *Snapshot) Caller(key string, h Hash) (Caller, error) {
	if key == "" {
		return Caller{Room: sn.Room}, nil
	}
	// h is the key's hash, worked out once by the stream: hashing the key again at every change
	// for every stream of a room cost more than drawing some of its parts.
	if !sn.Room.HostKeyHash.IsZero() && sn.Room.HostKeyHash.MatchesHash(h) {
		return Caller{Room: sn.Room, Role: AsHost, key: key}, nil
	}
	i, ok := sn.keys[h]
	if sn.keys == nil {
		i = slices.IndexFunc(sn.Members, func(m Member) bool { return m.TokenHash == h })
		ok = i >= 0
	}
	if !ok || !sn.Members[i].TokenHash.MatchesHash(h) {
		return Caller{}, ErrForbidden
	}
	if m := sn.Members[i]; !m.Kicked {
		return Caller{Room: sn.Room, Role: AsMember, Member: m, key: key}, nil
	}
	return Caller{}, ErrKicked
}

// Present reports whether the snapshot's store says the member was seen within PresentWindow of
// when it was read (another replica's streams keep that mark fresh).
func (sn *Snapshot) Present(memberID string) bool {
	t, ok := sn.seen[memberID]
	if sn.seen == nil {
		for _, m := range sn.Members {
			if m.ID == memberID {
				t, ok = m.LastSeen, true
			}
		}
	}
	return ok && !t.IsZero() && sn.At.Sub(t) <= PresentWindow
}

// View builds the room as c may see it from the snapshot alone, by the rules State follows: a
// member is present when the stored LastSeen was within PresentWindow as of At, or when present
// (if not nil) says this replica holds a stream of theirs.
func (sn *Snapshot) View(c Caller, present func(memberID string) bool) View {
	return sn.ViewAt(c, present, sn.At)
}

// closeIfIdle closes a room on the spot if it has been idle too long, so a room never looks open
// between sweeps, and tells the room's live pages.
func (s *Service) closeIfIdle(ctx context.Context, r Room) (Room, error) {
	if r.Closed || s.cfg.Now().Sub(r.LastActivity) <= s.cfg.IdleClose {
		return r, nil
	}
	r, err := s.store.UpdateRoom(ctx, r.ID, func(r *Room) error { r.Closed = true; return nil })
	if err == nil {
		s.changed(ctx, r.ID) // open pages learn it at once, not at their next action
	}
	return r, err
}

// Touch records in the store that a member's stream showed them present at this moment; the live
// side batches these, so it is a plain overwrite. A member who is gone is no error: their stream
// is ending anyway.
func (s *Service) Touch(ctx context.Context, roomID, memberID string, at time.Time) error {
	err := s.store.TouchMember(ctx, roomID, memberID, at)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Changed tells whoever listens that the room changed without a change through the Service: a
// member arriving, whose presence the live side keeps in memory.
func (s *Service) Changed(ctx context.Context, roomID string) { s.changed(ctx, roomID) }

// StoreReads answers how many reads the Service has made of its store since it started, for an
// operator's metric and for tests that hold a room change to a fixed number of reads.
func (s *Service) StoreReads() int64 { return s.Reads().Total() }

// Reads answers the Service's reads of its store so far by what was read, for tests that hold an
// action to one room read.
func (s *Service) Reads() Reads { return s.store.(*countingStore).reads() }

// NextDeadline answers when the earliest countdown still running in the snapshot runs out, after
// At, and false when none runs. Nothing is written when a clock reaches zero, so nothing tells a
// room's reader of it: a reader draws its views again at this instant (from the same snapshot, by
// View at the later time, or by reading anew) so that every screen shows the round locked.
func (sn *Snapshot) NextDeadline() (time.Time, bool) {
	var next time.Time
	for _, rd := range sn.Rounds {
		if rd.State == RoundOpen && rd.Timed() && !rd.Deadline.IsZero() && rd.Deadline.After(sn.At) &&
			(next.IsZero() || rd.Deadline.Before(next)) {
			next = rd.Deadline
		}
	}
	return next, !next.IsZero()
}

// ViewAt is View drawn as of now rather than as of At: a countdown's time left and its lock at
// zero are read at now, presence still as of At (the stored marks are as old as the read).
func (sn *Snapshot) ViewAt(c Caller, present func(memberID string) bool, now time.Time) View {
	if live := present; live != nil {
		present = func(id string) bool { return live(id) || sn.Present(id) }
	} else {
		present = sn.Present
	}
	return buildView(sn.Room, sn.Members, sn.Rounds, sn.Guesses, sn.Pins, c, present, sn.ix, now)
}
