package runs

import (
	"container/list"
	"encoding/json"
	"sync"
)

// Cache is an LRU bounded in bytes (estimated from each result's JSON size). Pinned entries,
// the defaults, are never evicted.
type Cache struct {
	mu    sync.Mutex
	limit int64
	used  int64
	ll    *list.List
	items map[string]*list.Element
}

type cacheEntry struct {
	key    string
	val    any
	size   int64
	pinned bool
}

// NewCache makes an empty cache of at most limit bytes.
func NewCache(limit int64) *Cache {
	return &Cache{limit: limit, ll: list.New(), items: map[string]*list.Element{}}
}

// Get returns the value kept under key.
func (c *Cache) Get(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*cacheEntry).val, true
	}
	return nil, false
}

// Has reports whether key has a value, without counting as a use.
func (c *Cache) Has(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[key]
	return ok
}

// Add keeps val under key, pinned (never evicted) or not.
func (c *Cache) Add(key string, val any, pinned bool) {
	b, err := json.Marshal(val)
	if err != nil {
		return
	}
	size := int64(len(b))*2 + int64(len(key)) + 128
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		c.ll.MoveToFront(el)
		return
	}
	if !pinned && size > c.limit/4 {
		return // one huge result must not flush everything else
	}
	c.items[key] = c.ll.PushFront(&cacheEntry{key: key, val: val, size: size, pinned: pinned})
	c.used += size
	for el := c.ll.Back(); c.used > c.limit && el != nil; {
		prev := el.Prev()
		if e := el.Value.(*cacheEntry); !e.pinned {
			c.ll.Remove(el)
			delete(c.items, e.key)
			c.used -= e.size
		}
		el = prev
	}
}

// Bytes reports the cache's estimated size, for tests and metrics.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}
