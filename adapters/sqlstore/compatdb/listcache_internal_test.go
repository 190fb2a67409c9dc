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
	if v, _ := c.get("MLA0"); v != 0 {
		t.Fatal("the least recently listed item was kept")
	}
	if v, _ := c.get("MLA9"); v != 10 {
		t.Fatalf("the latest list: version %d", v)
	}
	before := c.held
	c.put("MLA9", 11, list[:1])
	if v, cs := c.get("MLA9"); v != 11 || len(cs) != 1 || c.held != before-maxCachedList+1 {
		t.Fatalf("replaced: version %d, %d kept, %d held (was %d)", v, len(cs), c.held, before)
	}
	c.put("MLA100", 1, make([]compatport.Claimed, maxCachedList+1))
	if v, _ := c.get("MLA100"); v != 0 {
		t.Fatal("a list larger than maxCachedList was kept")
	}
}
