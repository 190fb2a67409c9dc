package app

import (
	"context"
	"testing"

	"github.com/feria/feria/test/testenv"
)

// A world's PostgreSQL pool is the default world's size while the wired
// worlds fit in the budget, and every wired world's pool shrinks to its
// share as more are wired, never under minWorldConns.
func TestWorldPoolsShareABudget(t *testing.T) {
	ctx := context.Background()
	db := testenv.Postgres(t)
	in := testInstance(t, db, testenv.Miniredis(t))
	root := db.DB.Stats().MaxOpenConnections
	if root < 3 {
		t.Fatalf("the default world's pool is %d, want 3 or more for this test", root)
	}
	h := in.Deps.worlds
	h.connBudget = root + 1 // one world at root's size, two at (root+1)/2
	if got := h.worldConns(64); got != minWorldConns {
		t.Errorf("64 worlds: %d connections each, want %d", got, minWorldConns)
	}
	pool := func(name string) int {
		t.Helper()
		lw, err := h.acquire(ctx, name, false)
		if err != nil {
			t.Fatal(err)
		}
		defer h.release(lw)
		return lw.db.DB.Stats().MaxOpenConnections
	}
	for _, name := range []string{"p1", "p2"} {
		if _, _, err := in.Deps.Worlds.Put(ctx, name, nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := pool("p1"); got != root {
		t.Errorf("one world wired: its pool is %d, want the default world's %d", got, root)
	}
	share := max(minWorldConns, (root+1)/2)
	if got := pool("p2"); got != share {
		t.Errorf("two worlds wired: the second's pool is %d, want %d", got, share)
	}
	if got := pool("p1"); got != share {
		t.Errorf("two worlds wired: the first's pool is %d, want %d", got, share)
	}
}
