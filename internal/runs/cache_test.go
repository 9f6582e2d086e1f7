package runs

import (
	"strings"
	"testing"
)

// TestCacheIsBounded: the result cache stays under its byte limit however many distinct runs it
// sees, and never evicts the pinned default results.
func TestCacheIsBounded(t *testing.T) {
	c := NewCache(1 << 20)
	big := make([]int64, 4000)
	for i := range 200 {
		c.Add(strings.Repeat("k", i+1), big, false)
	}
	if c.Bytes() > 1<<20 {
		t.Errorf("cache holds %d bytes, limit %d", c.Bytes(), 1<<20)
	}
	c.Add("pinned", big, true)
	for i := range 200 {
		c.Add("x"+strings.Repeat("k", i+1), big, false)
	}
	if _, ok := c.Get("pinned"); !ok {
		t.Error("pinned default evicted")
	}
}
