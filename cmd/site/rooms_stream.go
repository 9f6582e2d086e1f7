package main

// The room's event stream: Server-Sent Events that the htmx SSE extension turns into swaps of the
// room's live parts. One stream per tab, on an element that is never swapped. On connect the
// stream sends every part (a full snapshot, so a tab that was asleep or lost its connection is
// right again at once); afterwards, whenever the room changes, it renders the parts again for its
// own caller (who sees what is theirs to see) and sends only those whose HTML changed.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/pages"
	"effectivelyonce/rooms"
)

// heartbeat is how often an idle stream sends a comment: proxies keep the connection open, a
// dead client is noticed, the member's presence is renewed within rooms.PresentWindow, and the
// roster is redrawn for those who left. (server.heartbeat holds it, so a test can beat faster.)
const heartbeat = 20 * time.Second

// roomHub carries "room X changed" to the streams watching room X, from this process and, with
// Postgres, from every replica (rooms/live implements it).
type roomHub interface {
	Publish(ctx context.Context, roomID string) error
	Subscribe(roomID string) (<-chan struct{}, func())
	Close() error
}

// handleRoomEvents handles "GET /rooms/:id/events" (view=bar for the bar on notebook pages): the
// room's live parts as Server-Sent Events, for the host or a member (cookie or bearer key).
func (s *server) handleRoomEvents() echo.HandlerFunc {
	return func(c echo.Context) error {
		r, err := s.rooms.RoomByID(c.Request().Context(), c.Param("id"))
		if err != nil {
			return roomError(err)
		}
		return s.stream(c, r, s.roomKey(c, r.ID))
	}
}

// handleAPIRoomEvents handles "GET /api/rooms/:code/events": the same stream for a script that
// holds a key ("Authorization: Bearer KEY").
func (s *server) handleAPIRoomEvents() echo.HandlerFunc {
	return func(c echo.Context) error {
		r, err := s.rooms.RoomByCode(c.Request().Context(), c.Param("code"))
		if err != nil {
			return roomError(err)
		}
		return s.stream(c, r, bearerKey(c.Request()))
	}
}

// stream serves room r's events to the holder of key until the client goes, the room's hub
// closes, or the server stops.
func (s *server) stream(c echo.Context, r rooms.Room, key string) error {
	ctx := c.Request().Context()
	if _, caller, err := s.rooms.Identify(ctx, r.Code, key); err != nil || caller.Role == rooms.Nobody {
		if err == nil {
			err = rooms.ErrForbidden
		}
		return roomError(err)
	}
	claim, err := s.claimStream(r, key)
	if err != nil {
		return err
	}
	defer claim.Release()
	bar := c.QueryParam("view") == "bar"
	parts := pages.RoomParts
	if bar {
		parts = pages.BarParts
	}
	changes, cancel := s.hub.Subscribe(r.ID)
	defer cancel()

	w := c.Response()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx would otherwise hold events back in its buffer
	rc := http.NewResponseController(w)
	// A stream lives as long as the tab; the server's write timeout is for ordinary answers.
	if err := rc.SetWriteDeadline(time.Time{}); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	w.WriteHeader(http.StatusOK)
	s.streams.Add(1)
	defer s.streams.Add(-1)

	// Presence is "a stream seen in the last rooms.PresentWindow": arriving marks the member (and
	// tells the room if they were away); leaving marks nothing, and the roster lets them fade at
	// the next redraw. Marking a departure at once would redraw the whole room twice every time
	// anyone follows the host to a new page.
	_ = s.rooms.Seen(ctx, r.Code, key)

	site := s.site("")
	last := map[string]string{}
	keys := map[string]uint64{} // the PartKey each keyed part was last drawn with
	send := func() (bool, error) {
		cur, err := s.rooms.RoomByID(ctx, r.ID) // the code may have been replaced since
		if err != nil {
			return false, err
		}
		r = cur
		v, err := s.roomView(ctx, site, cur, key, bar, "")
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
		if err == nil {
			err = s.addJoinQR(c.Request(), &v)
		}
		if err != nil {
			return false, err
		}
		for _, name := range parts {
			// A part whose inputs did not change is not drawn again (a guess changes the count,
			// not the board of 200 pins nor the history): its last HTML stands.
			key, keyed := v.PartKey(name)
			if _, sent := last[name]; keyed && sent && keys[name] == key {
				continue
			}
			var buf bytes.Buffer
			if err := pages.RoomPart(v, name).Render(ctx, &buf); err != nil {
				return false, err
			}
			s.metrics.roomParts.WithLabelValues(name).Inc()
			if keyed {
				keys[name] = key
			}
			if html := buf.String(); last[name] != html || len(last) < len(parts) {
				last[name] = html
				if err := writeEvent(w, rc, name, html); err != nil {
					return false, err
				}
			}
		}
		return true, nil
	}
	if ok, err := send(); !ok {
		return quiet(err)
	}
	// A room that cannot be re-read because its database is out of reach (a restart, an outage)
	// does not end the stream: the tab keeps what it shows, and the stream tries again a second
	// later and at every signal, so it is right again within about a second of the database's
	// return (the hub also wakes every stream once it hears the database again).
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	resend := func() (bool, error) {
		ok, err := send()
		if !ok && errors.Is(err, rooms.ErrUnavailable) {
			s.metrics.rereads.Inc()
			retry.Reset(time.Second)
			return true, nil
		}
		return ok, err
	}
	tick := time.NewTicker(s.heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.stopping:
			return nil
		case <-claim.Ended():
			// A newer tab with the same key took this stream's place. "gone" keeps this tab from
			// reconnecting and taking the place back, which would end the newer one in turn.
			msg := fmt.Sprintf(`<p class="banner closed" role="status">This tab stopped following the room live: your seat has it open in more than %d tabs. Reload the page to follow it here again.</p>`, s.cfg.RoomStreamsPerKey)
			if err := writeEvent(w, rc, pages.PartStatus, msg); err != nil {
				return nil
			}
			return quiet(writeEvent(w, rc, "gone", ""))
		case _, open := <-changes:
			if !open {
				return nil
			}
			if ok, err := resend(); !ok {
				return quiet(err)
			}
		case <-retry.C:
			if ok, err := resend(); !ok {
				return quiet(err)
			}
		case <-tick.C:
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return nil
			}
			if err := rc.Flush(); err != nil {
				return nil
			}
			_ = s.rooms.Seen(ctx, r.Code, key) // r is as of the last send: its code is current
			// Redraw on the beat too, so a member whose tab closed fades from the roster even
			// when nothing else happens in the room (unchanged parts are not sent), and a room
			// closed for idleness is noticed.
			if ok, err := resend(); !ok {
				return quiet(err)
			}
		}
	}
}

// quiet ends a stream: once the answer has started, an error can only be logged, and a client
// that went away is no error at all.
func quiet(err error) error {
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// writeEvent writes one Server-Sent Event: its name, and its data one "data:" line per line.
func writeEvent(w http.ResponseWriter, rc *http.ResponseController, name, data string) error {
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
	if _, err := w.Write([]byte(b.String())); err != nil {
		return err
	}
	return rc.Flush()
}
