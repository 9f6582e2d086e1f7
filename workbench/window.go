package workbench

// keyWindow is the dedup table of the model world: the set of committed keys, bounded to the most
// recent size insertions when size > 0 (block 4's windowed sink) and unbounded when size is 0.
// Eviction is first in, first out by insertion; finding a key does not refresh it, and a key
// inserted again after its eviction counts as new, as the document's WindowedSink does.
//
// It is kept to this one small type on purpose: the notebook is to have one shared dedup-window
// type (issue 20), and this is the one place that will be swapped for it. Keys are dense ids
// (see keys.go), so the set is a slice indexed by id.
type keyWindow struct {
	size    int
	present []bool
	ring    []int32 // the last size insertions, oldest at head once full
	head    int
}

func newKeyWindow(size int64) *keyWindow { return &keyWindow{size: int(size)} }

// has reports whether key is in the window.
func (w *keyWindow) has(key int32) bool { return int(key) < len(w.present) && w.present[key] }

// add inserts key, which must not be present, and returns the key it evicted, or -1.
func (w *keyWindow) add(key int32) (evicted int32) {
	for int(key) >= len(w.present) {
		w.present = append(w.present, make([]bool, len(w.present)+64)...)
	}
	w.present[key] = true
	if w.size == 0 {
		return -1
	}
	if len(w.ring) < w.size {
		w.ring = append(w.ring, key)
		return -1
	}
	old := w.ring[w.head]
	w.present[old] = false
	w.ring[w.head] = key
	w.head++
	if w.head == w.size {
		w.head = 0
	}
	return old
}

// reset empties the window for another run, keeping its memory.
func (w *keyWindow) reset() {
	clear(w.present)
	w.ring = w.ring[:0]
	w.head = 0
}
