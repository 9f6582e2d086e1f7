// Package sitetest is what the site's tests share across packages (internal/site's, which run the
// server in the test process, and cmd/site's, which run the real binary): a client for the event
// streams, a JSON API call, readers of /metrics, and a wait on a condition. Only tests import it.
package sitetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// StreamWait is how long a test waits for an event that should come: generous, since a loaded
// CI box under -race can stall a goroutine for a long time, and a passing test never waits it out.
// The issue's own limits (a reveal within 1 s in the browser, 2 s in the suite) are for figures
// and browsers, not for these checks.
const StreamWait = 5 * time.Second

// SSEEvent is one Server-Sent Event: its name and its data, the "data:" lines joined by "\n".
type SSEEvent struct {
	Name, Data string
}

// SSEStream is one open event stream: a goroutine parses the body into events until it ends.
type SSEStream struct {
	Header http.Header
	Events chan SSEEvent
	Done   chan struct{} // closed when the body has ended
	Err    error         // why the body ended (io.EOF when the server closed it); read after done
	cancel context.CancelFunc
}

// StreamClient is a client for long GETs: no overall timeout (http.Client.Timeout would cut a
// stream off mid-body) and a connection of its own for each stream, as each browser tab has.
func StreamClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
}

// OpenStream opens url with a bearer key (none when key is ""), header adding headers in pairs.
// It answers the status with the stream, which is nil unless the status is 200. The stream is
// closed by close, and in any case by ctx.
func OpenStream(ctx context.Context, client *http.Client, url, key string, header ...string) (int, *SSEStream, error) {
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
	s := &SSEStream{Header: resp.Header, Events: make(chan SSEEvent, 64), Done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.Done)
		defer resp.Body.Close()
		s.Err = readEvents(resp.Body, func(ev SSEEvent) bool {
			select {
			case s.Events <- ev:
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
func readEvents(body io.Reader, emit func(SSEEvent) bool) error {
	// The buffer starts small and grows to fit the longest line: the benchmark holds 1,500 of
	// these in the same process as the server whose memory it reports.
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 4<<20)
	var ev SSEEvent
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
			ev, data = SSEEvent{}, nil
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

// Close ends the stream from the client's side.
func (s *SSEStream) Close() {
	s.cancel()
	<-s.Done
}

// Next answers the next event within wait, or an error if the stream ended or stayed silent.
func (s *SSEStream) Next(wait time.Duration) (SSEEvent, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case ev := <-s.Events:
		return ev, nil
	case <-t.C:
		return SSEEvent{}, fmt.Errorf("no event within %s", wait)
	case <-s.Done:
		// Events parsed before the end are still to be read.
		select {
		case ev := <-s.Events:
			return ev, nil
		default:
		}
		return SSEEvent{}, fmt.Errorf("the stream ended: %w", s.Err)
	}
}

// Until reads events until one satisfies ok, within wait in all, and answers it with every event
// read before it.
func (s *SSEStream) Until(wait time.Duration, ok func(SSEEvent) bool) (SSEEvent, []SSEEvent, error) {
	deadline := time.Now().Add(wait)
	var before []SSEEvent
	for {
		ev, err := s.Next(time.Until(deadline))
		if err != nil {
			return SSEEvent{}, before, fmt.Errorf("%w (read before: %s)", err, eventNames(before))
		}
		if ok(ev) {
			return ev, before, nil
		}
		before = append(before, ev)
	}
}

// Snapshot reads the events a stream sends on connect, one for each part of parts, in order.
func (s *SSEStream) Snapshot(wait time.Duration, parts []string) (map[string]string, error) {
	got := map[string]string{}
	for _, want := range parts {
		ev, err := s.Next(wait)
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

func mapEvents(m map[string]string) []SSEEvent {
	var out []SSEEvent
	for k, v := range m {
		out = append(out, SSEEvent{k, v})
	}
	return out
}

func eventNames(evs []SSEEvent) string {
	var names []string
	for _, ev := range evs {
		names = append(names, ev.Name)
	}
	return "[" + strings.Join(names, " ") + "]"
}

// Named matches an event by name whose data contains every one of want.
func Named(name string, want ...string) func(SSEEvent) bool {
	return func(ev SSEEvent) bool {
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

// Text is an HTML fragment's Text, tags dropped and spaces collapsed.
func Text(html string) string {
	return strings.Join(strings.Fields(tags.ReplaceAllString(html, " ")), " ")
}

// Created is the answer to POST /api/rooms.
type Created struct {
	Code    string `json:"code"`
	JoinURL string `json:"join_url"`
	HostURL string `json:"host_url"`
	HostKey string `json:"host_key"`
}

// APICall sends a JSON request with a bearer key (none when key is "") and answers the status and
// the body. It reports failures as values rather than through testing.TB, so that the goroutines
// of a benchmark may call it.
func APICall(client *http.Client, method, url, key, body string) (int, string, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// DialFrom connects to addr from the loopback source address src, so that the server sees a
// client of its own.
func DialFrom(addr, src string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 30 * time.Second}
	return d.Dial("tcp", addr)
}

// MetricValue reads one series' value from /metrics text; 0 when it is absent.
func MetricValue(text, series string) int {
	var v float64
	fmt.Sscan(strings.TrimPrefix(GrepLine(text, series+" "), series+" "), &v)
	return int(v)
}

// GrepLine is the first line of text that starts with prefix, or "".
func GrepLine(text, prefix string) string {
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}
