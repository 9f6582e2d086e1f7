package rooms

import (
	"context"
	"sync/atomic"
)

// countingStore counts every read a Service makes of its Store, by what it read. Reads are what
// grow with the number of people watching a room, so they are what an operator watches (and what
// the live side's one-reader-per-room design, and one room read per action, are held to); writes
// follow what people do and are not counted.
type countingStore struct {
	Store
	rooms, members, seats, rounds, guesses, pins atomic.Int64
	submissions, sources                         atomic.Int64
}

// Reads are the reads a Service has made of its store, by what was read.
type Reads struct {
	Rooms   int64 // a room by its code or id: an action's edge, a snapshot
	Members int64 // a room's whole roster
	Seats   int64 // one seat by its key's hash: Identify of a member
	Rounds  int64
	Guesses int64
	Pins    int64
	// Submissions are a room's handler submissions, Sources one handler's source (a share).
	Submissions int64
	Sources     int64
}

// Total is every read.
func (r Reads) Total() int64 {
	return r.Rooms + r.Members + r.Seats + r.Rounds + r.Guesses + r.Pins + r.Submissions + r.Sources
}

// Minus is the reads made since an earlier figure.
func (r Reads) Minus(before Reads) Reads {
	return Reads{Rooms: r.Rooms - before.Rooms, Members: r.Members - before.Members, Seats: r.Seats - before.Seats,
		Rounds: r.Rounds - before.Rounds, Guesses: r.Guesses - before.Guesses, Pins: r.Pins - before.Pins,
		Submissions: r.Submissions - before.Submissions, Sources: r.Sources - before.Sources}
}

func (c *countingStore) reads() Reads {
	return Reads{Rooms: c.rooms.Load(), Members: c.members.Load(), Seats: c.seats.Load(), Rounds: c.rounds.Load(),
		Guesses: c.guesses.Load(), Pins: c.pins.Load(), Submissions: c.submissions.Load(), Sources: c.sources.Load()}
}

// RoomByCode counts one room read.
func (c *countingStore) RoomByCode(ctx context.Context, code string) (Room, error) {
	c.rooms.Add(1)
	return c.Store.RoomByCode(ctx, code)
}

// RoomByID counts one room read.
func (c *countingStore) RoomByID(ctx context.Context, id string) (Room, error) {
	c.rooms.Add(1)
	return c.Store.RoomByID(ctx, id)
}

// Members counts one read.
func (c *countingStore) Members(ctx context.Context, roomID string) ([]Member, error) {
	c.members.Add(1)
	return c.Store.Members(ctx, roomID)
}

// MemberByTokenHash counts one read.
func (c *countingStore) MemberByTokenHash(ctx context.Context, roomID string, h Hash) (Member, error) {
	c.seats.Add(1)
	return c.Store.MemberByTokenHash(ctx, roomID, h)
}

// Rounds counts one read.
func (c *countingStore) Rounds(ctx context.Context, roomID string) ([]Round, error) {
	c.rounds.Add(1)
	return c.Store.Rounds(ctx, roomID)
}

// Guesses counts one read.
func (c *countingStore) Guesses(ctx context.Context, roomID string) ([]Guess, error) {
	c.guesses.Add(1)
	return c.Store.Guesses(ctx, roomID)
}

// Pins counts one read.
func (c *countingStore) Pins(ctx context.Context, roomID string) ([]Pin, error) {
	c.pins.Add(1)
	return c.Store.Pins(ctx, roomID)
}

// Submissions counts one read.
func (c *countingStore) Submissions(ctx context.Context, roomID string) ([]Submission, error) {
	c.submissions.Add(1)
	return c.Store.Submissions(ctx, roomID)
}

// Share counts one read.
func (c *countingStore) Share(ctx context.Context, hash string) (string, error) {
	c.sources.Add(1)
	return c.Store.Share(ctx, hash)
}
