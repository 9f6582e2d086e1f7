package roomsweb

// The room's event stream: Server-Sent Events that the htmx SSE extension turns into swaps of the
// room's live parts. One stream per tab, on an element that is never swapped. On connect the
// stream sends every part (a full snapshot, so a tab that was asleep or lost its connection is
// right again at once); afterwards, whenever the room changes, it renders the parts again for its
// own caller (who sees what is theirs to see) and sends only those whose HTML changed.

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/pages"
	"effectivelyonce/rooms"
	"effectivelyonce/rooms/live"
)

// Heartbeat is how often an idle stream sends a comment: proxies keep the connection open, a
// dead client is noticed, the member's presence is renewed within rooms.PresentWindow, and the
// roster is redrawn for those who left. (Deps.Heartbeat may set another, so a test can beat faster.)
const Heartbeat = 20 * time.Second

// Hub carries "room X changed" to the streams watching room X, from this process and, with
// Postgres, from every replica (rooms/live implements it).
type Hub interface {
	Publish(ctx context.Context, roomID string) error
	Subscribe(roomID string) (<-chan struct{}, func())
	Close() error
}

// Events handles "GET /rooms/:id/events" (view=bar for the bar on notebook pages, view=projector
// for the big screen): the room's live parts as Server-Sent Events, for the host or a member
// (cookie or bearer key).
func (h *Handlers) Events() echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		r, err := h.rooms.RoomByID(ctx, c.Param("id"))
		if err != nil {
			return Refusal(err)
		}
		key := roomKey(c, r.ID)
		who, _ := h.rooms.Identify(ctx, r, key) // stream answers a refusal
		return h.stream(c, who, key)
	}
}

// APIEvents handles "GET /api/rooms/:code/events": the same stream for a script that
// holds a key ("Authorization: Bearer KEY").
func (h *Handlers) APIEvents() echo.HandlerFunc {
	return func(c echo.Context) error {
		return h.stream(c, h.apiCaller(c), bearerKey(c.Request()))
	}
}

// roomLive is this replica's live side of the rooms: one reader per watched room, which takes one
// snapshot per change for every stream of the room, and the presence of the members whose streams
// this replica holds. It is made at its first use, so that a test can set the heartbeat first.
type roomLive struct {
	once     sync.Once
	readers  *live.Readers
	presence *live.Presence
}

// live answers the handlers' roomLive, starting it (and its presence writer, until shutdown) once.
func (h *Handlers) live() *roomLive {
	l := &h.roomsLive
	l.once.Do(func() {
		l.readers = live.NewReaders(h.hub, h.rooms.Snapshot, live.ReadersConfig{Unavailable: h.rereads.Inc})
		rc := h.rooms.Config()
		l.presence = live.NewPresence(live.PresenceConfig{Now: rc.Now, Touch: h.rooms.Touch, Announce: h.rooms.Changed, Every: h.heartbeat})
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-h.stopping; cancel() }()
		go l.presence.Run(ctx)
	})
	return l
}

// present is who this replica holds a stream of in room roomID, for a view read from the store.
func (l *roomLive) present(roomID string) func(memberID string) bool {
	return l.presence.Room(roomID)
}

// stream serves the events of caller's room to the holder of key until the client goes, the
// room's hub closes, or the server stops. The request has read the store to admit the caller (the
// room, and a member's seat); every redraw after that comes from the room's reader's snapshots,
// and a heartbeat redraws from the last one.
//
// A stream draws a part only when the part's key (everything the part is drawn from, see
// pages.RoomView.PartKey) differs from the one it last sent, and the streams of a room share their
// drawings through the snapshot's frame: a change costs one drawing per distinct part (the count
// once for the room, each member's own round once), not one per stream.
func (h *Handlers) stream(c echo.Context, caller rooms.Caller, key string) error {
	ctx := c.Request().Context()
	if err := caller.Err(); err != nil || caller.Role == rooms.Nobody {
		if err == nil {
			err = rooms.ErrForbidden
		}
		return Refusal(err)
	}
	r := caller.Room
	claim, err := h.claimStream(r, key, caller.Role)
	if err != nil {
		return err
	}
	defer claim.Release()
	bar, screen := c.QueryParam("view") == "bar", c.QueryParam("view") == "projector"
	parts := pages.RoomParts
	switch {
	case bar:
		parts = pages.BarParts
	case screen && caller.Role != rooms.AsHost:
		return Refusal(rooms.ErrForbidden) // the projector's view is the host's
	case screen:
		parts = pages.ProjectorParts
	}
	l := h.live()
	watch, cancel := l.readers.Subscribe(r.ID)
	defer cancel()

	w := c.Response()
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no") // nginx would otherwise hold events back in its buffer
	rc := http.NewResponseController(w)
	// A stream lives as long as the tab; the server's write timeout is for ordinary answers.
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	w.WriteHeader(http.StatusOK)
	h.streams.Add(1)
	defer h.streams.Add(-1)

	// Presence is "a stream seen in the last rooms.PresentWindow": arriving marks the member (and
	// tells the room if they were away); leaving marks nothing, and they fade once the window has
	// passed. Marking a departure at once would redraw the whole room twice every time anyone
	// follows the host to a new page.
	if caller.Role == rooms.AsMember {
		m := caller.Member
		seen := !m.LastSeen.IsZero() && h.rooms.Config().Now().Sub(m.LastSeen) <= rooms.PresentWindow
		l.presence.Arrive(ctx, r.ID, m.ID, seen)
		defer l.presence.Leave(r.ID, m.ID)
	}

	mode := streamPage
	switch {
	case bar:
		mode = streamBar
	case screen:
		mode = streamProjector
	}
	site := h.site("")
	page := c.QueryParam("page") // the bar's page, which the bar's stream is told (lab.go)
	hash := rooms.HashKey(key)
	last := map[string]string{}
	keys := map[string]uint64{} // the PartKey each part was last drawn with
	drawn := uint64(0)          // the frame last drawn
	draw := func(f live.Frame) (bool, error) {
		if f.Err != nil {
			return false, f.Err
		}
		if f.Gen == 0 {
			return true, nil // the room's first read is still under way
		}
		drawn = f.Gen
		caller, err := f.Snapshot.Caller(key, hash)
		if errors.Is(err, rooms.ErrForbidden) && !watch.Fresh(f) {
			// The caller was admitted from the store a moment ago; a snapshot read before that may
			// not know their seat yet. A fresh one decides.
			watch.Refresh()
			return true, nil
		}
		if errors.Is(err, rooms.ErrKicked) || errors.Is(err, rooms.ErrForbidden) {
			msg := `<p class="banner closed" role="status">You are no longer in this room: the host removed your seat.</p>`
			if errors.Is(err, rooms.ErrForbidden) {
				msg = `<p class="banner closed" role="status">This browser's key no longer works in this room: the host key was replaced. Open a new host link to carry on.</p>`
			}
			// Every other part empties first: a removed member is offered nothing any more (no
			// following, no guess, no pin), and sees nothing new of the room.
			for _, name := range parts {
				if name != pages.PartStatus {
					if err := writeEvent(w, rc, name, ""); err != nil {
						return false, err
					}
				}
			}
			if err := writeEvent(w, rc, pages.PartStatus, msg); err != nil {
				return false, err
			}
			// "gone" is the wrappers' sse-close event: the browser stops reconnecting to a
			// stream that would refuse it from now on.
			return false, writeEvent(w, rc, "gone", "")
		}
		v, err := h.streamView(c, site, f.Snapshot, caller, l.presence.Room(r.ID), mode, page)
		if err != nil {
			return false, err
		}
		wrote := false
		for _, name := range parts {
			// A part whose inputs did not change is not drawn again (a guess changes the count,
			// not the board of 200 pins nor the history): its last HTML stands.
			key, _ := v.PartKey(name)
			if _, sent := last[name]; sent && keys[name] == key {
				continue
			}
			drawing := f.Shared.Do(partKey{name, key}, func() any { return h.drawPart(ctx, v, name) }).(drawnPart)
			if drawing.err != nil {
				return false, drawing.err
			}
			keys[name] = key
			if html := drawing.html; last[name] != html || len(last) < len(parts) {
				last[name] = html
				if err := putEvent(w, name, html); err != nil {
					return false, err
				}
				wrote = true
			}
		}
		// One flush for the parts of one change: a write to the connection each (the count, the
		// round, the timer) cost a system call apiece for every stream of the room.
		if wrote {
			return true, rc.Flush()
		}
		return true, nil
	}
	// The first frame is the snapshot on connect: every part, so that a tab that was asleep or
	// lost its connection is right again at once. A room that cannot be read because its database
	// is out of reach does not end the stream: the reader tries again, and the tab keeps what it
	// shows until then.
	tick := time.NewTicker(h.heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.stopping:
			return nil
		case <-claim.Ended():
			// A newer tab with the same key took this stream's place. The view says so above what
			// it last showed (its status part; the projector's one part), and "gone" keeps it from
			// reconnecting and taking the place back, which would end the newer one in turn.
			name := pages.PartStatus
			if screen {
				name = pages.PartScreen
			}
			if err := writeEvent(w, rc, name, endedNotice(caller.Role)+last[name]); err != nil {
				return nil
			}
			return quiet(writeEvent(w, rc, "gone", ""))
		case _, open := <-watch.C:
			if !open {
				return nil
			}
			if ok, err := draw(watch.Latest()); !ok {
				return quiet(err)
			}
		case <-tick.C:
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return nil
			}
			if err := rc.Flush(); err != nil {
				return nil
			}
			if caller.Role == rooms.AsMember {
				l.presence.Beat(r.ID, caller.Member.ID)
			}
			// Redraw on the beat too, from the snapshot in hand (no store is read), so that who
			// is here follows this replica's streams even when nothing else happens in the room;
			// unchanged parts are not sent.
			if f := watch.Latest(); f.Gen == drawn {
				if ok, err := draw(f); !ok {
					return quiet(err)
				}
			}
		}
	}
}

// streamMode is which view of the room a stream draws.
type streamMode int

const (
	streamPage      streamMode = iota // the room's page
	streamBar                         // the bar on notebook pages
	streamProjector                   // the big screen, for the host
)

// streamView is the room as a stream of the given mode draws it for caller from snapshot sn, who
// is here as present says (page is the bar's, for the lab's part): the one place a stream's view is made, so that the test holding part
// keys to their HTML draws exactly what the streams draw.
func (h *Handlers) streamView(c echo.Context, site pages.Site, sn *rooms.Snapshot, caller rooms.Caller, present func(string) bool, mode streamMode, page string) (pages.RoomView, error) {
	ctx := c.Request().Context()
	v := h.roomViewOf(ctx, site, sn.View(caller, present), mode == streamBar, "")
	if mode == streamProjector {
		projector(&v)
		h.addShown(ctx, &v) // handlerround.go
	}
	if err := h.addJoinQR(c.Request(), &v); err != nil {
		return v, err
	}
	if mode != streamProjector {
		h.addLab(c, &v, page) // lab.go
	}
	return v, nil
}

// partKey is a part's drawing as the streams of a room share it: by the part and its PartKey.
type partKey struct {
	name string
	key  uint64
}

// drawnPart is one drawing of a part, shared by every stream that needs it.
type drawnPart struct {
	html string
	err  error
}

// drawPart draws the part called name of v, and counts the drawing. The drawing is every stream's
// that needs it, so the stream that happens to draw it going away must not spoil it.
func (h *Handlers) drawPart(ctx context.Context, v pages.RoomView, name string) drawnPart {
	ctx = context.WithoutCancel(ctx)
	var buf bytes.Buffer
	if err := pages.RoomPart(v, name).Render(ctx, &buf); err != nil {
		return drawnPart{err: err}
	}
	h.parts.WithLabelValues(name).Inc()
	return drawnPart{html: buf.String()}
}

// quiet ends a stream: once the answer has started, an error can only be logged, and a client
// that went away is no error at all.
func quiet(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// writeEvent writes one Server-Sent Event and flushes it to the client.
func writeEvent(w http.ResponseWriter, rc *http.ResponseController, name, data string) error {
	if err := putEvent(w, name, data); err != nil {
		return err
	}
	return rc.Flush()
}

// putEvent writes one Server-Sent Event, its name and its data one "data:" line per line, into
// the answer's buffer, for a flush to send with others.
func putEvent(w http.ResponseWriter, name, data string) error {
	var b strings.Builder
	b.WriteString("event: ")
	b.WriteString(name)
	b.WriteByte('\n')
	for line := range strings.SplitSeq(data, "\n") {
		b.WriteString("data: ")
		b.WriteString(strings.TrimSuffix(line, "\r"))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := w.Write([]byte(b.String()))
	return err
}
