package web

import (
	"container/list"
	"net/http"
	"slices"
	"time"
)

// Event streams are connections that stay busy for as long as a tab is open, so the connection
// limiter can never close them to make room: left alone, one key opening streams from a few
// addresses filled every connection the server had, and /healthz answered 503 for everyone. The
// limiter therefore counts streams apart from the rest (a connection serving one is still one of
// its connections): at most streamCap in all, which keeps a share of the bound for ordinary
// requests that streams can never take, and at most a cap per group the caller names (a study
// room's member key, the room). Over an evicting group's cap (a key's) its oldest stream is ended,
// since it is most likely a tab left open elsewhere; over another group's cap, or the bound in
// all, the new stream is refused with a 503.

// streamReserve is the share of the connection bound that streams can never take: a quarter, so
// that pages, runs and /healthz are answered whatever the streams do.
const streamReserve = 4

// StreamGroup is one bound a stream counts against: its name (a key's hash, a room's id), how many
// streams the group may hold, and whether a new stream over it ends the group's oldest (true) or is
// refused (false).
type StreamGroup struct {
	Name        string
	Max         int
	EvictOldest bool
}

// Ended is closed when the limiter ends the stream to make room for a newer one of its key.
func (c *StreamClaim) Ended() <-chan struct{} { return c.ended }

// Unbounded is the claim of a stream on a server built without a listener (a test through
// ServeHTTP), which bounds nothing.
func Unbounded() *StreamClaim { return &StreamClaim{ended: make(chan struct{}), done: true} }

// SetStreamCap sets the bound on streams in all (MaxStreams of the connection bound).
func (l *ConnLimiter) SetStreamCap(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.streams = n
}

// StreamClaim is one stream's place in the limiter: ended is closed when the limiter ends the
// stream to make room for a newer one of its key; release gives the place back.
type StreamClaim struct {
	l      *ConnLimiter
	ended  chan struct{}
	groups []string
	els    []*list.Element
	done   bool
}

// ErrStreamsFull is a stream refused by a bound that ends nobody's stream.
type ErrStreamsFull struct{ group string }

// Error names the bound that refused.
func (e ErrStreamsFull) Error() string { return "stream bound reached: " + e.group }

// StreamCost is what one open event stream holds in memory, rounded up from the measure of
// TestAttackStreamFlood (1,000 streams of members in rooms of 100: 122 KB of RSS and 88 KB of heap
// each): its goroutine's stack, its buffers, and the last HTML of every part it has sent.
const StreamCost = 128 << 10

// MaxStreams bounds the streams in all: never more than the connection bound less its reserved
// quarter, and, under a memory limit, never more than an eighth of it at streamCost each, the share
// maxConnsDefault gives connections (in a 1 GiB container, 768 streams of the 3,072 connections).
func MaxStreams(totalConns int, memLimit int64) int {
	n := totalConns - totalConns/streamReserve
	if memLimit > 0 {
		n = int(min(int64(n), memLimit/8/StreamCost))
	}
	return max(1, n)
}

// streamCap is the number of streams the limiter admits in all.
func (l *ConnLimiter) streamCap() int {
	if l.streams > 0 {
		return l.streams
	}
	return MaxStreams(l.total, 0)
}

// ClaimStream admits one stream within every bound of groups and in all, ending the oldest stream
// of an evicting group when it is full. A refusal is an errStreamsFull.
func (l *ConnLimiter) ClaimStream(groups ...StreamGroup) (*StreamClaim, error) {
	l.mu.Lock()
	// The streams an evicting group would end come first, since they also leave the other
	// groups they count in (a key's streams are all in its room).
	var victims []*StreamClaim
	for _, g := range groups {
		if q := l.streamGroups[g.Name]; g.EvictOldest && q != nil {
			for e := q.Front(); e != nil && q.Len()-countIn(victims, g.Name) >= max(1, g.Max); e = e.Next() {
				victims = append(victims, e.Value.(*StreamClaim))
			}
		}
	}
	refused := ""
	if l.streamsOpen-len(victims) >= l.streamCap() {
		refused = "streams"
	}
	for _, g := range groups {
		if q := l.streamGroups[g.Name]; refused == "" && !g.EvictOldest && q != nil && q.Len()-countIn(victims, g.Name) >= g.Max {
			refused = g.Name
		}
	}
	if refused != "" {
		l.mu.Unlock()
		l.metrics.Conns.WithLabelValues("stream_refused").Inc()
		return nil, ErrStreamsFull{refused}
	}
	for _, v := range victims {
		v.releaseLocked()
	}
	c := &StreamClaim{l: l, ended: make(chan struct{})}
	for _, g := range groups {
		q := l.streamGroups[g.Name]
		if q == nil {
			q = list.New()
			l.streamGroups[g.Name] = q
		}
		c.groups = append(c.groups, g.Name)
		c.els = append(c.els, q.PushBack(c))
	}
	l.streamsOpen++
	l.mu.Unlock()
	for _, v := range victims {
		close(v.ended)
		l.metrics.Conns.WithLabelValues("stream_ended").Inc()
	}
	return c, nil
}

// countIn counts the claims of cs that hold a place in group.
func countIn(cs []*StreamClaim, group string) int {
	n := 0
	for _, c := range cs {
		if slices.Contains(c.groups, group) {
			n++
		}
	}
	return n
}

// Release gives the stream's place back; calling it again does nothing.
func (c *StreamClaim) Release() {
	if c.l == nil {
		return
	}
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	c.releaseLocked()
}

func (c *StreamClaim) releaseLocked() {
	if c.done {
		return
	}
	c.done = true
	c.l.streamsOpen--
	for i, name := range c.groups {
		q := c.l.streamGroups[name]
		q.Remove(c.els[i])
		if q.Len() == 0 {
			delete(c.l.streamGroups, name)
		}
	}
}

// OpenStreams reports the streams held, for a test or a figure.
func (l *ConnLimiter) OpenStreams() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.streamsOpen
}

// StreamsFull answers a stream refused by a bound: 503 with a wait, after which the browser's
// stream tries again (and until then each action reloads the page).
func StreamsFull(err error) error {
	return &Error{Status: http.StatusServiceUnavailable, RetryAfter: 30 * time.Second, Err: err,
		Msg: "Too many live streams are open (on this page, or on the server) to open another now; the page still works, and reloads after each action."}
}
