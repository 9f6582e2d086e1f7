package web

import (
	"net"
	"net/http"
	"net/netip"
	"testing"
)

func TestConnLimiterEvictsIdleFirst(t *testing.T) {
	l := NewConnLimiter(nil, 4, 3, NewMetrics())
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	open := func(key netip.Addr) (*limitedConn, net.Conn) {
		c, peer := net.Pipe()
		t.Cleanup(func() { c.Close(); peer.Close() })
		return l.admit(c, key), peer
	}
	c1, _ := open(a)
	c2, _ := open(a)
	c3, _ := open(a)
	if c1 == nil || c2 == nil || c3 == nil {
		t.Fatal("refused within the bound")
	}
	l.ConnState(c1, http.StateActive)
	l.ConnState(c2, http.StateActive)
	l.ConnState(c2, http.StateIdle) // c2 served a request and waits: idle, first to go
	c4, _ := open(a)
	if c4 == nil || !c2.gone || c1.gone || c3.gone {
		t.Fatalf("at the client's bound: new admitted %v, idle gone %v, busy gone %v, new gone %v", c4 != nil, c2.gone, c1.gone, c3.gone)
	}
	c5, _ := open(a) // no idle one left: the oldest that sent nothing (c3) goes
	if c5 == nil || !c3.gone || c1.gone {
		t.Fatalf("second eviction: admitted %v, c3 gone %v, busy c1 gone %v", c5 != nil, c3.gone, c1.gone)
	}
	l.ConnState(c4, http.StateActive)
	l.ConnState(c5, http.StateActive)
	if c, _ := open(a); c != nil {
		t.Fatal("admitted a fourth connection while three were busy")
	}
	// The bound in all: a holds 3 busy, b takes the last place, then a third client's
	// connection pushes b's out (it has sent nothing), never a busy one of a's.
	cb, _ := open(b)
	if cb == nil || l.OpenConns() != 4 {
		t.Fatalf("b refused, or %d open", l.OpenConns())
	}
	cc, _ := open(netip.MustParseAddr("192.0.2.3"))
	if cc == nil || !cb.gone || c1.gone || c4.gone || c5.gone || l.OpenConns() != 4 {
		t.Fatalf("at the bound in all: admitted %v, b's gone %v, %d open", cc != nil, cb.gone, l.OpenConns())
	}
	l.ConnState(cc, http.StateClosed)
	l.ConnState(c1, http.StateClosed)
	if l.OpenConns() != 2 || len(l.clients) != 1 {
		t.Errorf("after two closed: %d open, %d clients", l.OpenConns(), len(l.clients))
	}
}
