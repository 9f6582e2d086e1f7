package experiments

import "math"

// DedupWindow is block 4's bounded dedup set, the document's WindowedSink: it holds the most recent
// capacity ids inserted and forgets the oldest insertion to make room for a new one. The document
// calls it an LRU, but it is first in, first out by insertion: finding an id never refreshes it,
// and an id inserted again after its eviction is new, with a fresh place at the back.
//
// Ids are dense small integers (job numbers, interned keys), so the set is a bitmap over them,
// an eighth of the memory of a []bool, and the order is a ring of the last capacity insertions;
// every operation is O(1), where the document's list.pop(0) is O(capacity). The window
// experiment, its traces, the shrinker and the workbench's model world all use this one type;
// the verifier (claimWindowed) counts with an algorithm of its own, so that a bug here cannot
// make its own claim pass.
//
// The window experiment inserts a million ids a window, most of them a job's first delivery;
// InsertRange takes a run of those in one call, so the hot loop needs no call per id.
type DedupWindow struct {
	seen []uint64 // bit id is set while id is in the window
	ring []int32  // the last insertions, at most limit of them; the oldest at head once full
	head int
	// limit is the capacity, or MaxInt when the window keeps every id; then the ring stays empty.
	limit int
}

// NewDedupWindow returns an empty window of the given capacity; capacity 0 keeps every id, as the
// workbench's key_window of 0 does. Ids below ids are made room for up front (a larger one grows
// the set), so a caller that knows its ids allocates once. A negative capacity is a programming
// error and panics.
func NewDedupWindow(capacity int64, ids int) *DedupWindow {
	w := &DedupWindow{seen: make([]uint64, (ids+63)/64)}
	w.Reset(capacity)
	if w.limit != math.MaxInt {
		// The ring holds distinct ids, so never more of them than there are ids.
		w.ring = make([]int32, 0, min(w.limit, ids))
	}
	return w
}

// Reset empties the window and gives it a new capacity (0 keeps every id), keeping its memory,
// so that one window serves a sweep over sizes.
func (w *DedupWindow) Reset(capacity int64) {
	if capacity < 0 {
		panic("experiments: negative window capacity")
	}
	w.limit = math.MaxInt
	if capacity > 0 {
		w.limit = int(min(capacity, math.MaxInt))
	}
	w.Clear()
}

// Clear empties the window, keeping its capacity and memory.
func (w *DedupWindow) Clear() {
	clear(w.seen)
	w.ring = w.ring[:0]
	w.head = 0
}

// Seen reports whether id is in the window. It changes nothing: a hit does not refresh the id.
func (w *DedupWindow) Seen(id int32) bool {
	i := int(id >> 6)
	return i < len(w.seen) && w.seen[i]&(1<<(id&63)) != 0
}

// Insert puts id, which must not be in the window (callers ask Seen first, or know), at the back
// and returns the id it pushed out of a full window, or -1 when nothing was evicted.
func (w *DedupWindow) Insert(id int32) (evicted int32) {
	if !w.full(id) {
		return w.insertSlow(id)
	}
	w.head, evicted = push(w.seen, w.ring, w.head, id)
	return evicted
}

// InsertRange inserts the ids lo, lo+1, ..., hi-1 in that order, as Insert would one by one; none
// may be in the window. It is how a stream's first deliveries, which are consecutive job ids,
// enter: one call per run between two redeliveries, with the ring's state held in registers.
func (w *DedupWindow) InsertRange(lo, hi int32) {
	id := lo
	for ; id < hi && !w.full(id); id++ {
		w.insertSlow(id)
	}
	if id >= hi {
		return
	}
	w.grow(hi - 1)
	seen, ring, head := w.seen, w.ring, w.head
	for ; id < hi; id++ {
		head, _ = push(seen, ring, head, id)
	}
	w.head = head
}

// full reports whether inserting id takes the fast path: the bitmap reaches id and the ring is full.
func (w *DedupWindow) full(id int32) bool {
	return int(id>>6) < len(w.seen) && len(w.ring) >= w.limit
}

// push inserts id into a full window: it sets id's bit, evicts the oldest insertion, which sits at
// head, and returns the next head and the evicted id.
func push(seen []uint64, ring []int32, head int, id int32) (int, int32) {
	seen[id>>6] |= 1 << (id & 63)
	old := ring[head]
	seen[old>>6] &^= 1 << (old & 63)
	ring[head] = id
	head++
	if head == len(ring) {
		head = 0
	}
	return head, old
}

// grow makes the bitmap reach id, by at least half its size so that growing one id at a time
// costs amortised O(1).
func (w *DedupWindow) grow(id int32) {
	if i := int(id >> 6); i >= len(w.seen) {
		w.seen = append(w.seen, make([]uint64, i+1-len(w.seen)+len(w.seen)/2)...)
	}
}

// insertSlow is Insert when the bitmap must grow, the ring is still filling or every id is kept.
func (w *DedupWindow) insertSlow(id int32) int32 {
	w.grow(id)
	if len(w.ring) >= w.limit {
		return w.Insert(id)
	}
	w.seen[id>>6] |= 1 << (id & 63)
	if w.limit != math.MaxInt {
		w.ring = append(w.ring, id)
	}
	return -1
}

// Remember is the sink's remember(): it inserts id and reports true if id was not in the window,
// and reports false, changing nothing, if it was.
func (w *DedupWindow) Remember(id int32) bool {
	if w.Seen(id) {
		return false
	}
	w.Insert(id)
	return true
}
