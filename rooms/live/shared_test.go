package live

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestSharedMakesEachOnce checks what the streams of a room share from a frame: many streams
// asking for one key at once get one making of it, each key its own, and a nil Shared (a frame
// with no snapshot) makes every time.
func TestSharedMakesEachOnce(t *testing.T) {
	var s Shared
	var made [2]atomic.Int64
	var wg sync.WaitGroup
	got := make([]any, 64)
	for i := range got {
		wg.Go(func() {
			k := i % 2
			got[i] = s.Do(k, func() any { made[k].Add(1); return k * 10 })
		})
	}
	wg.Wait()
	for k := range made {
		if n := made[k].Load(); n != 1 {
			t.Errorf("key %d made %d times, want once", k, n)
		}
	}
	for i, v := range got {
		if v != (i%2)*10 {
			t.Errorf("stream %d got %v, want %d", i, v, (i%2)*10)
		}
	}
	var none *Shared
	n := 0
	for range 3 {
		none.Do("k", func() any { n++; return n })
	}
	if n != 3 {
		t.Errorf("a nil Shared made %d times for 3 asks, want 3", n)
	}
}
