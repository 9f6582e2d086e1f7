package experiments

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// windowStep is one operation on a DedupWindow and what it must answer: for insert the evicted id
// (-1 for none), for seen and remember 1 for true and 0 for false.
type windowStep struct {
	op   string // insert, seen, remember, range (ids id..to-1), clear
	id   int32
	to   int32
	want int32
}

func TestDedupWindow(t *testing.T) {
	ins := func(id, evicted int32) windowStep { return windowStep{op: "insert", id: id, want: evicted} }
	seen := func(id int32, in bool) windowStep { return windowStep{op: "seen", id: id, want: b2i(in)} }
	rem := func(id int32, added bool) windowStep { return windowStep{op: "remember", id: id, want: b2i(added)} }
	for _, tt := range []struct {
		name     string
		capacity int64
		ids      int
		steps    []windowStep
	}{
		{"capacity 0 keeps every id", 0, 4, []windowStep{
			ins(0, -1), ins(1, -1), ins(2, -1), ins(3, -1), ins(500, -1),
			seen(0, true), seen(3, true), seen(500, true), seen(4, false), rem(0, false), rem(7, true), seen(7, true)}},
		{"capacity 1 holds the last id only", 1, 10, []windowStep{
			seen(5, false), ins(5, -1), seen(5, true), ins(7, 5), seen(5, false), seen(7, true), rem(5, true), seen(7, false)}},
		{"the oldest insertion goes first", 3, 10, []windowStep{
			ins(1, -1), ins(2, -1), ins(3, -1), ins(4, 1), ins(5, 2), ins(6, 3), ins(7, 4),
			seen(4, false), seen(5, true), seen(6, true), seen(7, true)}},
		{"a hit does not refresh an id", 2, 10, []windowStep{
			ins(1, -1), ins(2, -1), seen(1, true), rem(1, false), ins(3, 1), seen(1, false), seen(2, true)}},
		{"an evicted id comes back as new", 2, 10, []windowStep{
			ins(1, -1), ins(2, -1), ins(3, 1), rem(1, true), seen(2, false), ins(4, 3), ins(5, 1), seen(1, false)}},
		{"seen changes nothing, remember inserts once", 2, 10, []windowStep{
			seen(1, false), seen(1, false), rem(1, true), rem(1, false), rem(2, true), rem(3, true), seen(1, false), rem(2, false)}},
		{"the bitmap grows past its first size", 2, 0, []windowStep{
			seen(1000, false), ins(1000, -1), ins(70, -1), ins(100_000, 1000), seen(100_000, true), seen(70, true), seen(1000, false)}},
		{"a range enters in order", 3, 100, []windowStep{
			{op: "range", id: 10, to: 15}, seen(11, false), seen(12, true), seen(14, true), ins(20, 12),
			{op: "range", id: 30, to: 30}, seen(13, true), {op: "range", id: 90, to: 200}, seen(197, true), seen(199, true), seen(196, false)}},
		{"clear keeps the capacity", 2, 10, []windowStep{
			ins(1, -1), ins(2, -1), {op: "clear"}, seen(1, false), seen(2, false), ins(3, -1), ins(4, -1), ins(5, 3)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := NewDedupWindow(tt.capacity, tt.ids)
			for i, s := range tt.steps {
				if got, ok := runWindowStep(w, s); ok && got != s.want {
					t.Fatalf("step %d, %s(%d): got %d, want %d", i, s.op, s.id, got, s.want)
				}
			}
		})
	}
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// runWindowStep performs s on w and returns its answer, and false when the step answers nothing.
func runWindowStep(w *DedupWindow, s windowStep) (int32, bool) {
	switch s.op {
	case "insert":
		return w.Insert(s.id), true
	case "seen":
		return b2i(w.Seen(s.id)), true
	case "remember":
		return b2i(w.Remember(s.id)), true
	case "range":
		w.InsertRange(s.id, s.to)
	case "clear":
		w.Clear()
	default:
		panic("unknown step " + s.op)
	}
	return 0, false
}

// TestDedupWindowAgainstList drives the window and the document's list-and-set WindowedSink with
// the same random operations, across Resets to other capacities, and checks they never disagree.
func TestDedupWindowAgainstList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	w := NewDedupWindow(5, 50)
	for round := range 200 {
		capacity := rng.Int64N(12) // 0 keeps every id
		w.Reset(capacity)
		var list []int32 // the document's: ids in insertion order, the oldest first
		in := func(id int32) bool { return slices.Contains(list, id) }
		add := func(id int32) int32 {
			list = append(list, id)
			if capacity > 0 && int64(len(list)) > capacity {
				old := list[0]
				list = list[1:]
				return old
			}
			return -1
		}
		next := int32(0) // the next fresh id, for ranges
		for step := range 300 {
			where := fmt.Sprintf("round %d (capacity %d) step %d", round, capacity, step)
			switch id := int32(rng.IntN(80)); rng.IntN(4) {
			case 0:
				if got, want := w.Seen(id), in(id); got != want {
					t.Fatalf("%s: Seen(%d) = %v, the list says %v", where, id, got, want)
				}
			case 1:
				want := !in(id)
				if want {
					add(id)
				}
				if got := w.Remember(id); got != want {
					t.Fatalf("%s: Remember(%d) = %v, the list says %v", where, id, got, want)
				}
			case 2:
				if in(id) {
					continue
				}
				if got, want := w.Insert(id), add(id); got != want {
					t.Fatalf("%s: Insert(%d) evicted %d, the list %d", where, id, got, want)
				}
			case 3:
				// A run of ids never inserted this round: 100 and up.
				n := int32(rng.IntN(20))
				w.InsertRange(100+next, 100+next+n)
				for i := range n {
					add(100 + next + i)
				}
				next += n
			}
		}
		for id := range int32(100 + next + 1) {
			if got, want := w.Seen(id), in(id); got != want {
				t.Fatalf("round %d (capacity %d), at the end: Seen(%d) = %v, the list says %v", round, capacity, id, got, want)
			}
		}
	}
}

func TestDedupWindowNegativeCapacity(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewDedupWindow(-1) did not panic")
		}
	}()
	NewDedupWindow(-1, 10)
}
