package compatdb

import (
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/feria/feria/ports/compatport"
)

// The list cache keeps the compatibilities of recently listed items with
// the version they were read at (compat_versions, kept by triggers in the
// transaction of every change). A list sends the version it holds; the
// database answers the item, its state and its current version, and the
// rows only when the version moved: a list unchanged since the last read
// costs one row instead of hundreds. Nothing is trusted without
// that check, so every instance on the database answers what it holds.
const (
	// maxListedItems and maxListedCompatibilities bound the cache: about
	// 400 bytes a compatibility, 20 MB at most.
	maxListedItems           = 4096
	maxListedCompatibilities = 50_000
	// A list of more than this is read every time rather than evict a
	// quarter of the cache.
	maxCachedList = maxListedCompatibilities / 4
)

type listed struct {
	version int64
	cs      []compatport.Claimed
	derived *compatport.Derived
}

type listCache struct {
	mu   sync.Mutex
	lru  *simplelru.LRU[string, listed]
	held int // compatibilities in lru
}

func newListCache() *listCache {
	c := &listCache{}
	// The size is never reached first: put evicts by held compatibilities.
	c.lru, _ = simplelru.NewLRU(maxListedItems, func(_ string, l listed) { c.held -= len(l.cs) })
	return c
}

// get returns what is kept for the item: its version (0 when nothing is),
// its compatibilities and what is derived from them.
func (c *listCache) get(itemID string) listed {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, _ := c.lru.Get(itemID)
	return l
}

// put keeps cs as the item's compatibilities at version, evicting the least
// recently listed items past the bounds, and returns what is derived from
// them from now on (nil for a list too long to keep).
func (c *listCache) put(itemID string, version int64, cs []compatport.Claimed) *compatport.Derived {
	if len(cs) > maxCachedList {
		return nil
	}
	d := &compatport.Derived{}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.lru.Peek(itemID); ok { // replaced, not evicted: no callback
		c.held -= len(old.cs)
	}
	c.lru.Add(itemID, listed{version: version, cs: cs, derived: d})
	c.held += len(cs)
	for c.held > maxListedCompatibilities {
		c.lru.RemoveOldest()
	}
	return d
}

// The count cache keeps family counts with the version of their domain
// (family_versions) they were counted at; a count is used only when the
// database answers that same version. Entries are small; a selector whose
// key is longer than maxCountKey is counted every time.
const (
	maxCounts   = 4096
	maxCountKey = 1024
)

type counted struct {
	version int64
	n       int
}

// newCountCache is golang-lru's own locked cache: a count is one small
// entry, so the count of entries bounds it (the list cache counts
// compatibilities, which golang-lru cannot weigh, hence its own lock).
func newCountCache() *lru.Cache[string, counted] {
	c, _ := lru.New[string, counted](maxCounts) // errors only for a size <= 0
	return c
}
