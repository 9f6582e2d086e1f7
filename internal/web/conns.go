package web

import (
	"bytes"
	"container/list"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ConnLimiter is a listener that bounds the open connections, in all and per client address (an
// IPv6 /64), so that one client can neither exhaust the process's file descriptors nor crowd out
// everyone else. At a bound, the longest-idle connection goes first (a keep-alive waiting for a
// request that may never come, then one that has not finished sending its first request); a
// connection busy with a request is never cut. When nothing can go, the new connection gets a
// short 503 and is closed at once.
//
// The http.Server reports each connection's state to track (its ConnState hook), which is how the
// limiter knows which connections are idle.
//
// Event streams are never idle, so they are bounded apart (streams.go): per room key, per room,
// and in all, where a quarter of the bound is kept for connections that are not streams.
type ConnLimiter struct {
	net.Listener
	total, perClient int
	metrics          *Metrics

	mu      sync.Mutex
	open    int
	clients map[netip.Addr]*connClient
	waiting [2]*list.List // evictable connections, oldest first: [0] idle keep-alives, [1] new
	// streamsOpen counts the connections serving event streams, streamGroups each group's
	// streams oldest first (see streams.go).
	streamsOpen  int
	streamGroups map[string]*list.List
	streams      int // the bound on streams in all (maxStreams); 0 until the server sets it

}

// connClient is what the limiter knows of one address.
type connClient struct {
	open    int
	waiting [2]*list.List
}

// limitedConn is one accepted connection with its place in the limiter's lists.
type limitedConn struct {
	net.Conn
	l       *ConnLimiter
	client  netip.Addr
	lane    int           // 0 idle, 1 new, -1 busy (not evictable)
	el, cel *list.Element // in l.waiting[lane] and the client's
	gone    bool          // closed or evicted: no longer counted
}

const (
	laneIdle = 0
	laneNew  = 1
	laneBusy = -1
)

// NewConnLimiter bounds the connections inner accepts: total in all, perClient from one address.
func NewConnLimiter(inner net.Listener, total, perClient int, m *Metrics) *ConnLimiter {
	return &ConnLimiter{Listener: inner, total: max(1, total), perClient: max(1, perClient), metrics: m,
		clients: map[netip.Addr]*connClient{}, waiting: [2]*list.List{list.New(), list.New()}, streamGroups: map[string]*list.List{}}
}

// Accept returns the next connection within the bounds; refused ones are answered and closed here
// and never reach the server.
func (l *ConnLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := netip.Addr{}
		if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
			key = ClientKey(ap.Addr().String())
		}
		if lc := l.admit(c, key); lc != nil {
			return lc, nil
		}
		refuseConn(c)
	}
}

// admit makes room for c if it can and tracks it; nil means c is refused.
func (l *ConnLimiter) admit(c net.Conn, key netip.Addr) *limitedConn {
	var victims []*limitedConn
	l.mu.Lock()
	cl := l.clients[key]
	if cl == nil {
		cl = &connClient{waiting: [2]*list.List{list.New(), list.New()}}
		l.clients[key] = cl
	}
	if cl.open >= l.perClient {
		v := oldest(cl.waiting)
		if v == nil {
			l.mu.Unlock()
			l.metrics.Conns.WithLabelValues("refused_client").Inc()
			return nil
		}
		l.forget(v)
		victims = append(victims, v)
	}
	if l.open >= l.total {
		v := oldest(l.waiting)
		if v == nil {
			if cl.open == 0 {
				delete(l.clients, key)
			}
			l.mu.Unlock()
			for _, v := range victims {
				v.Conn.Close()
			}
			l.metrics.Conns.WithLabelValues("refused_total").Inc()
			return nil
		}
		l.forget(v)
		victims = append(victims, v)
	}
	lc := &limitedConn{Conn: c, l: l, client: key, lane: laneBusy}
	l.open++
	cl.open++
	l.park(lc, laneNew)
	l.mu.Unlock()
	for _, v := range victims {
		v.Conn.Close()
		l.metrics.Conns.WithLabelValues("evicted").Inc()
	}
	return lc
}

// oldest is the connection that has waited longest, idle ones before new ones.
func oldest(waiting [2]*list.List) *limitedConn {
	for _, w := range waiting {
		if f := w.Front(); f != nil {
			return f.Value.(*limitedConn)
		}
	}
	return nil
}

// park moves c to lane (idle, new or busy); the caller holds l.mu.
func (l *ConnLimiter) park(c *limitedConn, lane int) {
	if c.lane == lane {
		return
	}
	if c.lane != laneBusy {
		l.waiting[c.lane].Remove(c.el)
		l.clients[c.client].waiting[c.lane].Remove(c.cel)
		c.el, c.cel = nil, nil
	}
	c.lane = lane
	if lane != laneBusy {
		c.el = l.waiting[lane].PushBack(c)
		c.cel = l.clients[c.client].waiting[lane].PushBack(c)
	}
}

// forget stops counting c, once; the caller holds l.mu.
func (l *ConnLimiter) forget(c *limitedConn) {
	if c.gone {
		return
	}
	l.park(c, laneBusy)
	c.gone = true
	l.open--
	cl := l.clients[c.client]
	cl.open--
	if cl.open == 0 {
		delete(l.clients, c.client)
	}
}

// ConnState is the http.Server's ConnState hook: it moves a connection between the lanes.
func (l *ConnLimiter) ConnState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.gone {
		return
	}
	switch st {
	case http.StateActive:
		l.park(c, laneBusy)
	case http.StateIdle:
		l.park(c, laneIdle)
	case http.StateHijacked, http.StateClosed:
		l.forget(c)
	}
}

// Close closes the connection and stops counting it.
func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.forget(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// goErrorHeaders ends the header block of the answers net/http writes by itself, without the
// handler, to a request it cannot read (400, 431, 501, 505).
const goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// Write adds the security headers to net/http's own error answers, which it writes straight to
// the connection in one short call; every other answer comes from the handler and has them
// already (and is written through a 4 KB buffer, so only short writes are looked at).
func (c *limitedConn) Write(p []byte) (int, error) {
	if len(p) <= 1024 && bytes.HasPrefix(p, []byte("HTTP/1.1 ")) && bytes.Contains(p, []byte(goErrorHeaders)) && !bytes.Contains(p, []byte("Content-Security-Policy")) {
		i := bytes.Index(p, []byte(goErrorHeaders))
		var b bytes.Buffer
		b.Write(p[:i])
		b.WriteString("\r\n")
		writeSecurityHeaders(&b)
		b.WriteString(goErrorHeaders[2:])
		b.Write(p[i+len(goErrorHeaders):])
		if _, err := c.Conn.Write(b.Bytes()); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// refuseConn answers a connection over the bounds with a 503 and closes it. The answer is a few
// hundred bytes into an empty socket buffer, so the write does not wait; a deadline makes sure.
func refuseConn(c net.Conn) {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 503 Service Unavailable\r\n")
	writeSecurityHeaders(&b)
	b.WriteString("Retry-After: 5\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: 45\r\n\r\ntoo many connections from your address; wait\n")
	c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	c.Write(b.Bytes())
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0) // no FIN_WAIT for a connection we refuse: its port is free at once
	}
	c.Close()
}

// writeSecurityHeaders writes the security headers as raw header lines.
func writeSecurityHeaders(b *bytes.Buffer) {
	for _, h := range securityHeaderList {
		b.WriteString(h[0] + ": " + h[1] + "\r\n")
	}
}

// OpenConns reports the connections held, for /metrics.
func (l *ConnLimiter) OpenConns() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// RaiseFileLimit raises the soft limit on open files to the hard limit (Go's runtime does so too
// since 1.19; doing it here makes the number the connection bound is derived from explicit) and
// returns it.
func RaiseFileLimit() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	if r.Cur < r.Max {
		r.Cur = r.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
			return 0, errors.Join(errors.New("raising the open file limit"), err)
		}
	}
	return r.Cur, nil
}

// MaxConnsDefault derives the bound on connections from the file limit, leaving a tenth (and at
// least 64) of the descriptors for everything else, and from the memory limit: a connection costs
// about 20 KB at rest and a busy one more, so the connections may take at most an eighth of it at
// 32 KB each.
func MaxConnsDefault(files uint64, memLimit int64) int {
	n := int64(files) - max(64, int64(files)/10)
	if memLimit > 0 {
		n = min(n, memLimit/8/(32<<10))
	}
	return int(max(64, n))
}

// RegisterGauge publishes the open connections in /metrics.
func (l *ConnLimiter) RegisterGauge(reg prometheus.Registerer) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "site_open_connections", Help: "Client connections open now.",
	}, func() float64 { return float64(l.OpenConns()) }))
}

// HeldBy reports the connections one client address holds.
func (l *ConnLimiter) HeldBy(key netip.Addr) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cl := l.clients[key]; cl != nil {
		return cl.open
	}
	return 0
}
