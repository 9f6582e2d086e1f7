package site

// The room's event stream over a real loopback connection (httptest.ResponseRecorder buffers the
// whole answer, so it cannot show what a stream sends and when): the snapshot on connect, only
// the parts that changed afterwards, the end of a kicked member's stream, the headers, who may
// open a stream at all, and shutdown. The SSE client here (openStream) is shared with the replica
// test and the 1,500-stream benchmark.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"effectivelyonce/pages"
)

// TestRoomStreamSnapshotAndChanges: over a real connection, a member's stream sends every part of
// the room on connect and afterwards only what changed for them; a kicked member's stream says so
// and ends, and they cannot reconnect; the stream is never gzipped and never buffered by a proxy;
// nobody without a key of the room gets one; and shutdown ends every open stream at once.
func TestRoomStreamSnapshotAndChanges(t *testing.T) {
	s := newTestServer(t, testConfig())
	base := serveLoopback(t, s)
	api := memberClient()
	ctx := t.Context()

	var room, other created
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Stream check"}`, http.StatusCreated, &room)
	mustAPI(t, api, "POST", base+"/api/rooms", "", `{"title":"Next door"}`, http.StatusCreated, &other)
	rb := base + "/api/rooms/" + room.Code
	type joined struct {
		Key string `json:"member_key"`
		ID  string `json:"id"`
	}
	var ada, bob, cy, eve joined
	mustAPI(t, api, "POST", rb+"/members", "", `{"name":"Ada"}`, http.StatusCreated, &ada)
	mustAPI(t, api, "POST", rb+"/members", "", `{"name":"Bob"}`, http.StatusCreated, &bob)
	mustAPI(t, api, "POST", rb+"/members", "", `{"name":"Cy"}`, http.StatusCreated, &cy)
	mustAPI(t, api, "POST", base+"/api/rooms/"+other.Code+"/members", "", `{"name":"Eve"}`, http.StatusCreated, &eve)
	var rd struct {
		Seq int `json:"seq"`
	}
	mustAPI(t, api, "POST", rb+"/rounds", room.HostKey, `{"text":"How many?","min":0,"max":100}`, http.StatusCreated, &rd)

	status, adaStream, err := openStream(ctx, streamClient(), rb+"/events", ada.Key, "Accept-Encoding", "gzip")
	if err != nil || status != http.StatusOK {
		t.Fatalf("Ada's stream: %d %v", status, err)
	}
	defer adaStream.Close()

	t.Run("headers", func(t *testing.T) {
		h := adaStream.Header
		if ct := h.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("Content-Type %q, want text/event-stream", ct)
		}
		if v := h.Get("X-Accel-Buffering"); v != "no" {
			t.Errorf("X-Accel-Buffering %q, want no", v)
		}
		if v := h.Values("Content-Encoding"); len(v) != 0 {
			t.Errorf("Content-Encoding %q on a stream asked for with Accept-Encoding: gzip, want none", v)
		}
	})

	snap, err := adaStream.Snapshot(streamWait, pages.RoomParts)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("snapshot", func(t *testing.T) {
		if got := text(snap[pages.PartCount]); got != "0 of 3 answered" {
			t.Errorf("count in the snapshot %q, want 0 of 3 answered", got)
		}
		if r := snap[pages.PartRound]; !strings.Contains(r, `data-state="open"`) || !strings.Contains(r, "How many?") ||
			!strings.Contains(r, `name="value"`) {
			t.Errorf("round in the snapshot is not the open round with Ada's guess form: %s", r)
		}
		if r := text(snap[pages.PartRoster]); !strings.Contains(r, "Ada") || !strings.Contains(r, "Bob") || !strings.Contains(r, "Cy") {
			t.Errorf("roster in the snapshot %q, want Ada, Bob and Cy", r)
		}
		if st := text(snap[pages.PartStatus]); !strings.Contains(st, "You are Ada") {
			t.Errorf("status in the snapshot %q, want it to say who the member is", st)
		}
	})

	t.Run("another's guess sends count, not round", func(t *testing.T) {
		mustAPI(t, api, "PUT", fmt.Sprintf("%s/rounds/%d/guess", rb, rd.Seq), bob.Key, `{"value":37}`, http.StatusNoContent, nil)
		ev, before, err := adaStream.Until(streamWait, func(ev sseEvent) bool {
			return ev.Name == pages.PartCount && text(ev.Data) == "1 of 3 answered"
		})
		if err != nil {
			t.Fatalf("Ada never saw 1 of 3 answered: %v", err)
		}
		// A pin is the last part a stream sends (board), so by the time it arrives every change
		// made before it has been rendered for Ada: a redrawn round would be among the events.
		mustAPI(t, api, "POST", rb+"/pins", cy.Key, `{"path":"/blocks/4","note":"sentinel note"}`, http.StatusCreated, nil)
		_, after, err := adaStream.Until(streamWait, named(pages.PartBoard, "sentinel note"))
		if err != nil {
			t.Fatalf("Ada never saw Cy's pin: %v", err)
		}
		for _, e := range slices.Concat(before, []sseEvent{ev}, after) {
			if e.Name == pages.PartRound {
				t.Errorf("Bob's guess redrew Ada's round (her guess form, while she may be typing): %s", e.Data)
			}
			if strings.Contains(e.Data, "37") {
				t.Errorf("Bob's value reached Ada before the reveal in %s: %s", e.Name, e.Data)
			}
		}
	})

	t.Run("keys of nobody here are refused", func(t *testing.T) {
		for name, key := range map[string]string{"no key": "", "another room's member": eve.Key,
			"another room's host": other.HostKey, "a made-up key": "not-a-key"} {
			status, st, err := openStream(ctx, streamClient(), rb+"/events", key)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if status != http.StatusForbidden {
				st.Close()
				t.Errorf("%s: status %d, want 403", name, status)
			}
		}
		// The page route, with no cookie and no key, is refused too.
		id := roomIDOf(t, snap)
		if status, st, err := openStream(ctx, streamClient(), base+"/rooms/"+id+"/events", ""); err != nil || status != http.StatusForbidden {
			if st != nil {
				st.Close()
			}
			t.Errorf("page stream without a cookie: %d %v, want 403", status, err)
		}
	})

	t.Run("a kick ends the stream", func(t *testing.T) {
		status, bobStream, err := openStream(ctx, streamClient(), rb+"/events", bob.Key)
		if err != nil || status != http.StatusOK {
			t.Fatalf("Bob's stream: %d %v", status, err)
		}
		defer bobStream.Close()
		if _, err := bobStream.Snapshot(streamWait, pages.RoomParts); err != nil {
			t.Fatal(err)
		}
		mustAPI(t, api, "DELETE", rb+"/members/"+bob.ID, room.HostKey, "", http.StatusNoContent, nil)
		// A render already under way when the kick landed may come first, half before and half
		// after it (rooms.State reads outside one transaction); the stream's last word must be
		// the removal all the same.
		_, _, err = bobStream.Until(streamWait, named(pages.PartStatus, "the host removed your seat"))
		if err != nil {
			t.Fatalf("Bob's stream never said he was removed: %v", err)
		}
		// Then "gone", the event the page's sse-close names, so the browser stops reconnecting.
		if ev, err := bobStream.Next(streamWait); err != nil || ev.Name != "gone" {
			t.Errorf("after the removal Bob's stream sent %q (%v), want the gone event", ev.Name, err)
		}
		if ev, err := bobStream.Next(streamWait); err == nil {
			t.Errorf("Bob's stream went on after saying he was removed, with %s: %s", ev.Name, ev.Data)
		}
		select {
		case <-bobStream.Done:
			if !errors.Is(bobStream.Err, io.EOF) {
				t.Errorf("Bob's stream ended with %v, want the server to close it (EOF)", bobStream.Err)
			}
		default:
			t.Errorf("Bob's stream is still open %s after saying he was removed", streamWait)
		}
		if status, st, err := openStream(ctx, streamClient(), rb+"/events", bob.Key); err != nil || status != http.StatusForbidden {
			if st != nil {
				st.Close()
			}
			t.Errorf("Bob reconnecting after the kick: %d %v, want 403", status, err)
		}
		// Ada, still seated, hears of it: the roster and the count lose Bob.
		if _, _, err := adaStream.Until(streamWait, func(ev sseEvent) bool {
			return ev.Name == pages.PartCount && text(ev.Data) == "0 of 2 answered"
		}); err != nil {
			t.Errorf("Ada's count after Bob's kick: %v", err)
		}
	})

	t.Run("shutdown ends open streams", func(t *testing.T) {
		// A server of its own, stopped the way serve stops it, so the other subtests keep theirs.
		s2 := newTestServer(t, testConfig())
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		hs, conns := s2.httpServer(ln)
		served := make(chan error, 1)
		go func() { served <- hs.Serve(conns) }()
		defer hs.Close()
		b2 := "http://" + ln.Addr().String()
		var r2 created
		var m2 joined
		mustAPI(t, api, "POST", b2+"/api/rooms", "", `{"title":"Closing time"}`, http.StatusCreated, &r2)
		mustAPI(t, api, "POST", b2+"/api/rooms/"+r2.Code+"/members", "", `{"name":"Dee"}`, http.StatusCreated, &m2)
		var streams []*sseStream
		for _, key := range []string{m2.Key, r2.HostKey} {
			status, st, err := openStream(ctx, streamClient(), b2+"/api/rooms/"+r2.Code+"/events", key)
			if err != nil || status != http.StatusOK {
				t.Fatalf("stream before shutdown: %d %v", status, err)
			}
			defer st.Close()
			if _, err := st.Snapshot(streamWait, pages.RoomParts); err != nil {
				t.Fatal(err)
			}
			streams = append(streams, st)
		}
		s2.rooms.Stop() // what serve does before hs.Shutdown
		shut, cancel := context.WithTimeout(context.Background(), streamWait)
		defer cancel()
		if err := hs.Shutdown(shut); err != nil {
			t.Fatalf("graceful shutdown with two open streams: %v, want nil within %s", err, streamWait)
		}
		for i, st := range streams {
			select {
			case <-st.Done:
				if !errors.Is(st.Err, io.EOF) {
					t.Errorf("stream %d ended with %v, want a clean end (EOF)", i, st.Err)
				}
			case <-time.After(streamWait):
				t.Errorf("stream %d still open %s after shutdown", i, streamWait)
			}
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve returned %v, want ErrServerClosed", err)
		}
	})
}

// roomIDOf finds the room's permanent id in a snapshot: the room's actions post under
// /rooms/ID.
func roomIDOf(t *testing.T, snap map[string]string) string {
	t.Helper()
	for _, html := range snap {
		if m := regexp.MustCompile(`/rooms/([A-Za-z0-9_-]+)/`).FindStringSubmatch(html); m != nil {
			return m[1]
		}
	}
	t.Fatal("no /rooms/ID/ link in the snapshot")
	return ""
}

// mustAPI sends a JSON request with apiCall, checks the status and decodes the body into v when
// v is not nil.
func mustAPI(t testing.TB, client *http.Client, method, url, key, body string, status int, v any) {
	t.Helper()
	got, text, err := apiCall(client, method, url, key, body)
	if err != nil || got != status {
		t.Fatalf("%s %s: %d %v, want %d: %s", method, url, got, err, status, text)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(text), v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, text)
		}
	}
}
