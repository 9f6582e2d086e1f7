package web

import (
	"net/netip"
	"testing"
	"time"
)

// TestClientKey: IPv4 addresses count alone, an IPv6 /64 counts as one client, and an IPv4 address

// written as IPv6 is the IPv4 address.

func TestClientKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"2001:db8:1:2:aaaa::1", "2001:db8:1:2:ffff:1:2:3"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
		{"fe80::1%eth0", "fe80::2"},
	} {
		if ClientKey(tc.a) != ClientKey(tc.b) {
			t.Errorf("%s and %s are different clients", tc.a, tc.b)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:3::1"},
		{"192.0.2.1", "192.0.2.2"},
	} {
		if ClientKey(tc.a) == ClientKey(tc.b) {
			t.Errorf("%s and %s are one client", tc.a, tc.b)
		}
	}
}

// TestRateLimiterIsBounded: however many addresses ask, the limiter tracks at most its bound, and

// forgets the least recently seen first.

func TestRateLimiterIsBounded(t *testing.T) {
	l := NewRateLimiter(1, 3, 1000)
	keep := netip.MustParseAddr("198.51.100.1")
	for i := range 20_000 {
		if i%100 == 0 {
			l.Allow(keep) // seen often: never the least recent
		}
		l.Allow(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}))
		if n := l.Size(); n > 1000 {
			t.Fatalf("tracks %d clients, bound 1000", n)
		}
	}
	if l.Size() != 1000 {
		t.Errorf("tracks %d clients, want the bound, 1000", l.Size())
	}
	l.mu.Lock()
	_, kept := l.clients[keep]
	_, old := l.clients[netip.AddrFrom4([4]byte{10, 0, 0, 5})]
	l.mu.Unlock()
	if !kept || old {
		t.Errorf("recent client kept: %v, an old one kept: %v; want true, false", kept, old)
	}
	// A bucket emptied by its client stays empty while it is tracked.
	for range 3 {
		l.Allow(keep)
	}
	if ok, wait := l.Allow(keep); ok || wait <= 0 {
		t.Errorf("a fourth run at once was allowed (%v) or gave no wait (%v)", ok, wait)
	}

}

// TestRateLimiterForgetsOnItsOwn: buckets are forgotten once they would be full again, by a timer,

// with no further request arriving; and a forgotten client starts with a full burst.

func TestRateLimiterForgetsOnItsOwn(t *testing.T) {
	l := NewRateLimiter(100, 1, 1000) // full again after 10 ms; forgotten within about 110 ms
	for i := range 100 {
		l.Allow(netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}))
	}
	if l.Size() != 100 {
		t.Fatalf("tracks %d, want 100", l.Size())
	}
	deadline := time.Now().Add(30 * time.Second) // generous: the machine may be busy
	for l.Size() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := l.Size(); n != 0 {
		t.Fatalf("still tracks %d clients with no traffic", n)
	}
	if ok, _ := l.Allow(netip.AddrFrom4([4]byte{10, 0, 0, 1})); !ok {
		t.Error("a forgotten client was refused")
	}

	// The expiry itself, on a clock of our own: only buckets idle for the whole refill time go.
	now := time.Unix(1000, 0)
	l = NewRateLimiter(1, 2, 1000)
	l.now = func() time.Time { return now }
	a, b := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	l.Allow(a)
	now = now.Add(time.Second)
	l.Allow(b)
	now = now.Add(l.idle - time.Second)
	l.mu.Lock()
	l.expire(now)
	_, hasA := l.clients[a]
	_, hasB := l.clients[b]
	l.mu.Unlock()
	if hasA || !hasB {
		t.Errorf("after %s: a kept %v, b kept %v; want false, true", l.idle, hasA, hasB)
	}
}

// grepLine returns the first line of text that starts with prefix.

// TestRateLimiterCloseStopsItsTimer: after close the limiter still answers, but starts no timer.

func TestRateLimiterCloseStopsItsTimer(t *testing.T) {
	l := NewRateLimiter(1, 1, 10)
	l.Allow(netip.MustParseAddr("127.0.0.2"))
	l.Close()
	l.Allow(netip.MustParseAddr("127.0.0.3"))
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sweep != nil {
		t.Error("a closed limiter still has an expiry timer")
	}
}
