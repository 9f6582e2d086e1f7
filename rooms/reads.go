package rooms

import (
	"context"
	"sync/atomic"
)

// countingStore counts every read a Service makes of its Store. Reads are what grow with the
// number of people watching a room, so they are what an operator watches (and what the live
// side's one-reader-per-room design is held to); writes follow what people do and are not counted.
type countingStore struct {
	Store
	reads atomic.Int64
}

// RoomByCode counts one read.
func (c *countingStore) RoomByCode(ctx context.Context, code string) (Room, error) {
	c.reads.Add(1)
	return c.Store.RoomByCode(ctx, code)
}

// RoomByID counts one read.
func (c *countingStore) RoomByID(ctx context.Context, id string) (Room, error) {
	c.reads.Add(1)
	return c.Store.RoomByID(ctx, id)
}

// Members counts one read.
func (c *countingStore) Members(ctx context.Context, roomID string) ([]Member, error) {
	c.reads.Add(1)
	return c.Store.Members(ctx, roomID)
}

// MemberByTokenHash counts one read.
func (c *countingStore) MemberByTokenHash(ctx context.Context, roomID string, h Hash) (Member, error) {
	c.reads.Add(1)
	return c.Store.MemberByTokenHash(ctx, roomID, h)
}

// Rounds counts one read.
func (c *countingStore) Rounds(ctx context.Context, roomID string) ([]Round, error) {
	c.reads.Add(1)
	return c.Store.Rounds(ctx, roomID)
}

// Guesses counts one read.
func (c *countingStore) Guesses(ctx context.Context, roomID string) ([]Guess, error) {
	c.reads.Add(1)
	return c.Store.Guesses(ctx, roomID)
}

// Pins counts one read.
func (c *countingStore) Pins(ctx context.Context, roomID string) ([]Pin, error) {
	c.reads.Add(1)
	return c.Store.Pins(ctx, roomID)
}
