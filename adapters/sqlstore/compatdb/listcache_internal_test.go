package compatdb

import (
	"fmt"
	"testing"

	"github.com/feria/feria/ports/compatport"
)

// TestListCacheBounds: the cache holds at most maxListedCompatibilities,
// evicting the least recently listed items; a replaced list counts once;
// a list too large is not kept.
func TestListCacheBounds(t *testing.T) {
	c := newListCache()
	list := make([]compatport.Claimed, maxCachedList)
	for i := range 10 {
		c.put(fmt.Sprint("MLA", i), int64(i+1), list)
		if c.held > maxListedCompatibilities {
			t.Fatalf("after %d lists the cache holds %d compatibilities", i+1, c.held)
		}
	}
	if v := c.get("MLA0").version; v != 0 {
		t.Fatal("the least recently listed item was kept")
	}
	if v := c.get("MLA9").version; v != 10 {
		t.Fatalf("the latest list: version %d", v)
	}
	before := c.held
	c.put("MLA9", 11, list[:1])
	if l := c.get("MLA9"); l.version != 11 || len(l.cs) != 1 || c.held != before-maxCachedList+1 {
		t.Fatalf("replaced: version %d, %d kept, %d held (was %d)", l.version, len(l.cs), c.held, before)
	}
	if c.get("MLA9").derived == nil || c.get("MLA9").derived == c.get("MLA8").derived {
		t.Fatal("a kept list has no derived values of its own")
	}
	if d := c.put("MLA100", 1, make([]compatport.Claimed, maxCachedList+1)); d != nil || c.get("MLA100").version != 0 {
		t.Fatal("a list larger than maxCachedList was kept")
	}
}
