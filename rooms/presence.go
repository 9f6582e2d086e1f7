package rooms

import (
	"context"
	"time"
)

// This file holds how a request finds its room (the first half of resolving who acts; Identify is
// the second), and what the live side of a room needs from the rules: who is here now.

// PresentWindow is how long a member counts as present after their event stream last showed
// them; streams send a heartbeat every 20 s, so an open tab never fades.
const PresentWindow = 30 * time.Second

// RoomByID finds a room by its permanent id, for a page, an action or a cookie that names the
// room (the join code may have been rotated since), in one read. A room idle too long is closed
// on the spot, so that a room never looks open between sweeps.
func (s *Service) RoomByID(ctx context.Context, id string) (Room, error) {
	r, err := s.store.RoomByID(ctx, id)
	if err != nil {
		return Room{}, notFoundAs(err, "id", "no room has this id")
	}
	return s.closeIfIdle(ctx, r)
}

// RoomByCode finds a room by a join code as typed (case, hyphens and look-alike letters do not
// matter), for the API and the join form, in one read; an idle room is closed as RoomByID does.
func (s *Service) RoomByCode(ctx context.Context, code string) (Room, error) {
	return s.room(ctx, code)
}
