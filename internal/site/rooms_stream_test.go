package site

// The room's event stream over a real loopback connection (httptest.ResponseRecorder buffers the
// whole answer, so it cannot show what a stream sends and when): the snapshot on connect, only
// the parts that changed afterwards, the end of a kicked member's stream, the headers, who may
// open a stream at all, and shutdown. The SSE client here (openStream) is shared with the replica
// test and the 1,500-stream benchmark.

import (
	"bufio"
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

// streamWait is how long a test waits for an event that should come: generous, since a loaded
// CI box under -race can stall a goroutine for a long time, and a passing test never waits it out.
// The issue's own limits (a reveal within 1 s in the browser, 2 s in the suite) are for figures
// and browsers, not for these checks.
const streamWait = 5 * time.Second

// sseEvent is one Server-Sent Event: its name and its data, the "data:" lines joined by "\n".
type sseEvent struct {
	Name, Data string
}

// sseStream is one open event stream: a goroutine parses the body into events until it ends.
type sseStream struct {
	Header http.Header
	events chan sseEvent
	done   chan struct{} // closed when the body has ended
	err    error         // why the body ended (io.EOF when the server closed it); read after done
	cancel context.CancelFunc
}

// streamClient is a client for long GETs: no overall timeout (http.Client.Timeout would cut a
// stream off mid-body) and a connection of its own for each stream, as each browser tab has.
func streamClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
}

// openStream opens url with a bearer key (none when key is ""), header adding headers in pairs.
// It answers the status with the stream, which is nil unless the status is 200. The stream is
// closed by close, and in any case by ctx.
func openStream(ctx context.Context, client *http.Client, url, key string, header ...string) (int, *sseStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		cancel()
		return 0, nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		return 0, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cancel()
		return resp.StatusCode, nil, nil
	}
	s := &sseStream{Header: resp.Header, events: make(chan sseEvent, 64), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		defer resp.Body.Close()
		s.err = readEvents(resp.Body, func(ev sseEvent) bool {
			select {
			case s.events <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	return resp.StatusCode, s, nil
}

// readEvents parses an event stream, handing each complete event to emit, and skips comments
// (": ping"). It answers why the body ended.
func readEvents(body io.Reader, emit func(sseEvent) bool) error {
	// The buffer starts small and grows to fit the longest line: the benchmark holds 1,500 of
	// these in the same process as the server whose memory it reports.
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 4<<20)
	var ev sseEvent
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.Name != "" || data != nil {
				ev.Data = strings.Join(data, "\n")
				if !emit(ev) {
					return context.Canceled
				}
			}
			ev, data = sseEvent{}, nil
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event: "):
			ev.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = append(data, strings.TrimPrefix(line, "data: "))
		case line == "data:":
			data = append(data, "")
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.EOF
}

// close ends the stream from the client's side.
func (s *sseStream) close() {
	s.cancel()
	<-s.done
}

// next answers the next event within wait, or an error if the stream ended or stayed silent.
func (s *sseStream) next(wait time.Duration) (sseEvent, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case ev := <-s.events:
		return ev, nil
	case <-t.C:
		return sseEvent{}, fmt.Errorf("no event within %s", wait)
	case <-s.done:
		// Events parsed before the end are still to be read.
		select {
		case ev := <-s.events:
			return ev, nil
		default:
		}
		return sseEvent{}, fmt.Errorf("the stream ended: %w", s.err)
	}
}

// until reads events until one satisfies ok, within wait in all, and answers it with every event
// read before it.
func (s *sseStream) until(wait time.Duration, ok func(sseEvent) bool) (sseEvent, []sseEvent, error) {
	deadline := time.Now().Add(wait)
	var before []sseEvent
	for {
		ev, err := s.next(time.Until(deadline))
		if err != nil {
			return sseEvent{}, before, fmt.Errorf("%w (read before: %s)", err, eventNames(before))
		}
		if ok(ev) {
			return ev, before, nil
		}
		before = append(before, ev)
	}
}

// snapshot reads the events a stream sends on connect, one for each part of parts, in order.
func (s *sseStream) snapshot(wait time.Duration, parts []string) (map[string]string, error) {
	got := map[string]string{}
	for _, want := range parts {
		ev, err := s.next(wait)
		if err != nil {
			return got, fmt.Errorf("snapshot after %s: %w", eventNames(mapEvents(got)), err)
		}
		if ev.Name != want {
			return got, fmt.Errorf("snapshot event %q, want %q (parts come in the order %v)", ev.Name, want, parts)
		}
		got[ev.Name] = ev.Data
	}
	return got, nil
}

func mapEvents(m map[string]string) []sseEvent {
	var out []sseEvent
	for k, v := range m {
		out = append(out, sseEvent{k, v})
	}
	return out
}

func eventNames(evs []sseEvent) string {
	var names []string
	for _, ev := range evs {
		names = append(names, ev.Name)
	}
	return "[" + strings.Join(names, " ") + "]"
}

// named matches an event by name whose data contains every one of want.
func named(name string, want ...string) func(sseEvent) bool {
	return func(ev sseEvent) bool {
		if ev.Name != name {
			return false
		}
		for _, w := range want {
			if !strings.Contains(ev.Data, w) {
				return false
			}
		}
		return true
	}
}

var tags = regexp.MustCompile(`<[^>]+>`)

// text is an HTML fragment's text, tags dropped and spaces collapsed.
func text(html string) string {
	return strings.Join(strings.Fields(tags.ReplaceAllString(html, " ")), " ")
}

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
	defer adaStream.close()

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

	snap, err := adaStream.snapshot(streamWait, pages.RoomParts)
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
		ev, before, err := adaStream.until(streamWait, func(ev sseEvent) bool {
			return ev.Name == pages.PartCount && text(ev.Data) == "1 of 3 answered"
		})
		if err != nil {
			t.Fatalf("Ada never saw 1 of 3 answered: %v", err)
		}
		// A pin is the last part a stream sends (board), so by the time it arrives every change
		// made before it has been rendered for Ada: a redrawn round would be among the events.
		mustAPI(t, api, "POST", rb+"/pins", cy.Key, `{"path":"/blocks/4","note":"sentinel note"}`, http.StatusCreated, nil)
		_, after, err := adaStream.until(streamWait, named(pages.PartBoard, "sentinel note"))
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
				st.close()
				t.Errorf("%s: status %d, want 403", name, status)
			}
		}
		// The page route, with no cookie and no key, is refused too.
		id := roomIDOf(t, snap)
		if status, st, err := openStream(ctx, streamClient(), base+"/rooms/"+id+"/events", ""); err != nil || status != http.StatusForbidden {
			if st != nil {
				st.close()
			}
			t.Errorf("page stream without a cookie: %d %v, want 403", status, err)
		}
	})

	t.Run("a kick ends the stream", func(t *testing.T) {
		status, bobStream, err := openStream(ctx, streamClient(), rb+"/events", bob.Key)
		if err != nil || status != http.StatusOK {
			t.Fatalf("Bob's stream: %d %v", status, err)
		}
		defer bobStream.close()
		if _, err := bobStream.snapshot(streamWait, pages.RoomParts); err != nil {
			t.Fatal(err)
		}
		mustAPI(t, api, "DELETE", rb+"/members/"+bob.ID, room.HostKey, "", http.StatusNoContent, nil)
		// A render already under way when the kick landed may come first, half before and half
		// after it (rooms.State reads outside one transaction); the stream's last word must be
		// the removal all the same.
		_, _, err = bobStream.until(streamWait, named(pages.PartStatus, "the host removed your seat"))
		if err != nil {
			t.Fatalf("Bob's stream never said he was removed: %v", err)
		}
		// Then "gone", the event the page's sse-close names, so the browser stops reconnecting.
		if ev, err := bobStream.next(streamWait); err != nil || ev.Name != "gone" {
			t.Errorf("after the removal Bob's stream sent %q (%v), want the gone event", ev.Name, err)
		}
		if ev, err := bobStream.next(streamWait); err == nil {
			t.Errorf("Bob's stream went on after saying he was removed, with %s: %s", ev.Name, ev.Data)
		}
		select {
		case <-bobStream.done:
			if !errors.Is(bobStream.err, io.EOF) {
				t.Errorf("Bob's stream ended with %v, want the server to close it (EOF)", bobStream.err)
			}
		default:
			t.Errorf("Bob's stream is still open %s after saying he was removed", streamWait)
		}
		if status, st, err := openStream(ctx, streamClient(), rb+"/events", bob.Key); err != nil || status != http.StatusForbidden {
			if st != nil {
				st.close()
			}
			t.Errorf("Bob reconnecting after the kick: %d %v, want 403", status, err)
		}
		// Ada, still seated, hears of it: the roster and the count lose Bob.
		if _, _, err := adaStream.until(streamWait, func(ev sseEvent) bool {
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
			defer st.close()
			if _, err := st.snapshot(streamWait, pages.RoomParts); err != nil {
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
			case <-st.done:
				if !errors.Is(st.err, io.EOF) {
					t.Errorf("stream %d ended with %v, want a clean end (EOF)", i, st.err)
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
