package rooms

import (
	"context"
	"time"
)

// This file holds what the live side of a room needs from the rules: who is here now, and rooms
// found by what a cookie or a join form holds.

// PresentWindow is how long a member counts as present after their event stream last showed
// them; streams send a heartbeat every 20 s, so an open tab never fades.
const PresentWindow = 30 * time.Second

// Seen records that the caller's event stream is open now. A member who was not present a
// moment ago makes the roster change, so the room hears of it; a host or nobody changes nothing.
func (s *Service) Seen(ctx context.Context, code, key string) error {
	r, c, err := s.Identify(ctx, code, key)
	if err != nil || c.Role != AsMember {
		return err
	}
	now := s.cfg.Now()
	if err := s.store.TouchMember(ctx, r.ID, c.Member.ID, now); err != nil {
		return err
	}
	if now.Sub(c.Member.LastSeen) > PresentWindow {
		s.changed(ctx, r.ID)
	}
	return nil
}

// RoomByID finds a room by its permanent id, for a cookie that names the room a visitor is in:
// the join code in it may have been rotated since.
func (s *Service) RoomByID(ctx context.Context, id string) (Room, error) {
	r, err := s.store.RoomByID(ctx, id)
	if err != nil {
		return Room{}, notFoundAs(err, "id", "no room has this id")
	}
	return s.room(ctx, r.Code)
}

// RoomByCode finds a room by a join code as typed (case, hyphens and look-alike letters do not
// matter), for the join form that shows the room's title before asking for a name.
func (s *Service) RoomByCode(ctx context.Context, code string) (Room, error) {
	return s.room(ctx, code)
}
