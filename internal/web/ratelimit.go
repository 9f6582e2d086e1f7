package web

import (
	"context"
	"math"
	"net/netip"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// ClientKey is the address a limit counts against: the client's IP, with an IPv6 address cut to
// its /64, since one home or one host is usually handed a whole /64 and could otherwise take as
// many allowances as it likes. An address that does not parse shares the zero key.
func ClientKey(ip string) netip.Addr {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return netip.Addr{}
	}
	a = a.Unmap().WithZone("")
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.Addr()
	}
	return a
}

// clientCtxKey is the context key of the client's limit key, set once per request by identify so
// that code below the handlers (a page's runs) can charge the right client without echo.Context.
type clientCtxKey struct{}

// Identify stores the client's limit key in the request's context.
func Identify(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), clientCtxKey{}, ClientKey(c.RealIP()))))
		return next(c)
	}
}

// ClientOf returns the limit key identify stored.
func ClientOf(ctx context.Context) netip.Addr {
	k, _ := ctx.Value(clientCtxKey{}).(netip.Addr)
	return k
}

// RateLimiter is a token bucket per key (a client address, or a room key for the changes a member
// makes), in memory bounded by a number of keys: at most max are tracked, the least recently seen
// is forgotten first, and a bucket that has had time to fill up again is forgotten by a timer,
// whether or not anyone else asks (a forgotten bucket and a full one mean the same, so forgetting
// never lets anyone run more than the rate).
type RateLimiter[K comparable] struct {
	rate  float64 // tokens a second
	burst float64
	max   int
	idle  time.Duration // time for an empty bucket to fill up: past it, an entry is forgotten
	now   func() time.Time

	mu      sync.Mutex
	clients map[K]*bucket[K]
	head    *bucket[K] // most recently seen; head.prev is the least recently seen (a ring)
	sweep   *time.Timer
	closed  bool // after close no timer is started again
}

// bucket is one key's tokens, on the recency ring.
type bucket[K comparable] struct {
	key        K
	tokens     float64
	last       time.Time
	prev, next *bucket[K]
}

// NewRateLimiter limits per client address.
func NewRateLimiter(rate float64, burst, maxClients int) *RateLimiter[netip.Addr] {
	return NewKeyedLimiter[netip.Addr](rate, burst, maxClients)
}

// NewKeyedLimiter limits per key of type K: rate tokens a second, burst at most, for at most
// maxKeys keys at once.
func NewKeyedLimiter[K comparable](rate float64, burst, maxKeys int) *RateLimiter[K] {
	// The time a bucket takes to fill again, capped so that a tiny rate cannot overflow the
	// duration into a negative one (which would forget every bucket and switch the limit off).
	idle := time.Duration(math.Min(math.Ceil(float64(burst)/rate*1e9), float64(24*time.Hour))) + 100*time.Millisecond
	return &RateLimiter[K]{rate: rate, burst: float64(burst), max: max(1, maxKeys), idle: idle, now: time.Now,
		clients: map[K]*bucket[K]{}}
}

// Allow takes one token from key's bucket. When there is none it says how long until there is.
func (l *RateLimiter[K]) Allow(key K) (bool, time.Duration) { return l.AllowN(key, 1) }

// AllowN takes n tokens from key's bucket, for work worth n runs; n above the burst is charged as
// the burst, since a bucket never holds more and the work would otherwise never be allowed. When
// there are too few it takes none and says how long until there are enough.
func (l *RateLimiter[K]) AllowN(key K, n int) (bool, time.Duration) {
	need := min(float64(max(n, 1)), l.burst)
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.clients[key]
	if ok {
		b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
		l.unlink(b)
	} else {
		if len(l.clients) >= l.max {
			old := l.head.prev
			l.unlink(old)
			delete(l.clients, old.key)
		}
		b = &bucket[K]{key: key, tokens: l.burst}
		l.clients[key] = b
	}
	b.last = now
	l.pushFront(b)
	if l.sweep == nil && !l.closed {
		l.sweep = time.AfterFunc(l.idle, l.expireTick)
	}
	if b.tokens >= need {
		b.tokens -= need
		return true, 0
	}
	return false, time.Duration((need - b.tokens) / l.rate * float64(time.Second))
}

// Close stops the expiry timer, so a server that has shut down (or a test's) leaves nothing
// running behind it.
func (l *RateLimiter[K]) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sweep != nil {
		l.sweep.Stop()
		l.sweep = nil
	}
	l.closed = true
}

// expireTick forgets the buckets that are full again, and comes back while any are left.
func (l *RateLimiter[K]) expireTick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.expire(l.now())
	if l.closed || l.sweep == nil {
		return
	}
	if len(l.clients) > 0 {
		l.sweep.Reset(l.idle)
	} else {
		l.sweep = nil
	}
}

// expire forgets every bucket not seen for idle; the ring is in order of last sight, so it stops
// at the first one still fresh.
func (l *RateLimiter[K]) expire(now time.Time) {
	for l.head != nil {
		old := l.head.prev
		if now.Sub(old.last) < l.idle {
			return
		}
		l.unlink(old)
		delete(l.clients, old.key)
	}
}

// Size is the number of clients tracked, for /metrics.
func (l *RateLimiter[K]) Size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}

func (l *RateLimiter[K]) unlink(b *bucket[K]) {
	if b.next == b {
		l.head = nil
	} else {
		b.prev.next, b.next.prev = b.next, b.prev
		if l.head == b {
			l.head = b.next
		}
	}
	b.prev, b.next = nil, nil
}

func (l *RateLimiter[K]) pushFront(b *bucket[K]) {
	if l.head == nil {
		b.prev, b.next = b, b
	} else {
		b.next, b.prev = l.head, l.head.prev
		l.head.prev.next = b
		l.head.prev = b
	}
	l.head = b
}

// Refund gives n tokens back to key's bucket (never past the burst): a request refused part-way
// has its earlier charge returned, so the wait it is told covers the whole request when it comes
// back, and is then true.
func (l *RateLimiter[K]) Refund(key K, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.clients[key]; ok {
		b.tokens = min(l.burst, b.tokens+float64(n))
	}
}

// RetrySeconds is a wait in whole seconds for Retry-After: rounded up, and at least 1.
func RetrySeconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

// Burst is the most a key's bucket holds: the largest charge that can ever be allowed at once.
func (l *RateLimiter[K]) Burst() int { return int(l.burst) }

// Forgets is how long a bucket lasts unseen before it is forgotten: the time an empty one takes
// to fill up again, so forgetting it changes nothing.
func (l *RateLimiter[K]) Forgets() time.Duration { return l.idle }

// SetClock replaces the limiter's clock, so a test decides when tokens come back.
func (l *RateLimiter[K]) SetClock(now func() time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.now = now
}
