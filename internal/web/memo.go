package web

import "sync"

// Memo is a small bounded map for values that are costly to make and never go stale for their
// key (a QR code for a link, a run's headline for a permalink). When full it starts over, which
// costs a few recomputations and keeps memory flat whatever visitors send.
type Memo[V any] struct {
	mu  sync.Mutex
	max int
	m   map[string]V
}

// NewMemo holds at most max values.
func NewMemo[V any](max int) *Memo[V] { return &Memo[V]{max: max, m: map[string]V{}} }

// Get returns the value kept for k.
func (m *Memo[V]) Get(k string) (V, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[k]
	return v, ok
}

// Put keeps v for k, starting over when the memo is full.
func (m *Memo[V]) Put(k string, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.m) >= m.max {
		clear(m.m)
	}
	m.m[k] = v
}

// Len is how many values it holds now.
func (m *Memo[V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}
