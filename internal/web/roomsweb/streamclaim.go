package roomsweb

import (
	"fmt"

	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
)

// claimStream takes the place of one stream of room r for key: at most streamsPerKey per key
// (a few tabs; a new one beyond ends the key's oldest), at most that many per seat of the room
// and its host, and at most the limiter's share in all. Without a connection limiter (a server
// built without a listener, a test through ServeHTTP) nothing is bounded.
func (h *Handlers) claimStream(r rooms.Room, key string) (*web.StreamClaim, error) {
	var conns *web.ConnLimiter
	if h.conns != nil {
		conns = h.conns()
	}
	if conns == nil {
		return web.Unbounded(), nil
	}
	perKey := h.streamsPerKey
	kh := rooms.HashKey(key)
	c, err := conns.ClaimStream(
		web.StreamGroup{Name: fmt.Sprintf("key %x", kh[:]), Max: perKey, EvictOldest: true},
		web.StreamGroup{Name: "room " + r.ID, Max: (h.rooms.Config().MaxMembers + 1) * perKey},
	)
	if err != nil {
		return nil, web.StreamsFull(err)
	}
	return c, nil
}
