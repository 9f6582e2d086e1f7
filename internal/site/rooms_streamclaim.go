package site

import (
	"fmt"

	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
)

// claimStream takes the place of one stream of room r for key: at most RoomStreamsPerKey per key
// (a few tabs; a new one beyond ends the key's oldest), at most that many per seat of the room
// and its host, and at most the limiter's share in all. A server built without a listener (a test
// through ServeHTTP) bounds nothing.
func (s *server) claimStream(r rooms.Room, key string) (*web.StreamClaim, error) {
	if s.conns == nil {
		return web.Unbounded(), nil
	}
	perKey := s.cfg.RoomStreamsPerKey
	h := rooms.HashKey(key)
	c, err := s.conns.ClaimStream(
		web.StreamGroup{Name: fmt.Sprintf("key %x", h[:]), Max: perKey, EvictOldest: true},
		web.StreamGroup{Name: "room " + r.ID, Max: (s.rooms.Config().MaxMembers + 1) * perKey},
	)
	if err != nil {
		return nil, web.StreamsFull(err)
	}
	return c, nil
}
