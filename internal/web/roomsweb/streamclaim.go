package roomsweb

import (
	"fmt"

	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
)

// HostExtraStreams is how many streams the host's key may hold beyond a member's: a host runs the
// room from several screens at once (the room page on the laptop, the bar on the page presented,
// the projector on the classroom's PC and a preview of it), each of which must keep updating.
const HostExtraStreams = 4

// streamsFor is how many streams one key of role may hold open at once.
func (h *Handlers) streamsFor(role rooms.Role) int {
	if role == rooms.AsHost {
		return h.streamsPerKey + HostExtraStreams
	}
	return h.streamsPerKey
}

// claimStream takes the place of one stream of room r for key, whose caller has role: at most
// streamsFor(role) per key (a few tabs; a new one beyond ends the key's oldest), at most that many
// per seat of the room and for its host, and at most the limiter's share in all. Without a
// connection limiter (a server built without a listener, a test through ServeHTTP) nothing is
// bounded.
func (h *Handlers) claimStream(r rooms.Room, key string, role rooms.Role) (*web.StreamClaim, error) {
	var conns *web.ConnLimiter
	if h.conns != nil {
		conns = h.conns()
	}
	if conns == nil {
		return web.Unbounded(), nil
	}
	kh := rooms.HashKey(key)
	c, err := conns.ClaimStream(
		web.StreamGroup{Name: fmt.Sprintf("key %x", kh[:]), Max: h.streamsFor(role), EvictOldest: true},
		web.StreamGroup{Name: "room " + r.ID, Max: h.rooms.Config().MaxMembers*h.streamsPerKey + h.streamsFor(rooms.AsHost)},
	)
	if err != nil {
		return nil, web.StreamsFull(err)
	}
	return c, nil
}

// endedNotice is what a stream says when a newer stream of its key took its place: above what the
// view last showed, which stays, so the page is not left frozen without a word. A member's key
// lives in one browser's cookie; the host's is shared by every device a host link opened.
func endedNotice(role rooms.Role) string {
	where := "another tab of this browser"
	if role == rooms.AsHost {
		where = "another tab of this browser or on another of your devices"
	}
	return `<p class="banner closed stream-ended" role="status" data-stream-ended>This view stopped updating: the room is open in ` + where + `. Reload to take it back.</p>`
}
