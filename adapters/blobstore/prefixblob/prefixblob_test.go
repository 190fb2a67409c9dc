package prefixblob_test

import (
	"context"
	"strings"
	"testing"

	"github.com/feria/feria/adapters/blobstore/prefixblob"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/blobport/blobporttest"
)

// A part passes the store's contract (with an empty prefix: the contract's
// longest keys leave no room for one), and its Reset, List and reads keep
// to its prefix.
func TestStore(t *testing.T) {
	blobporttest.TestStore(t, func(t testing.TB) blobport.Store {
		return prefixblob.New(&blobporttest.Memory{}, "")
	})
	ctx := context.Background()
	under := &blobporttest.Memory{}
	a, b := prefixblob.New(under, "worlds/a/"), prefixblob.New(under, "worlds/b/")
	for _, s := range []blobport.Store{under, a, b} {
		if err := s.Put(ctx, "fiscal/1", strings.NewReader("x"), 1, ""); err != nil {
			t.Fatal(err)
		}
	}
	var listed []string
	if err := b.List(ctx, "", func(i blobport.Info) error { listed = append(listed, i.Key); return nil }); err != nil || len(listed) != 1 || listed[0] != "fiscal/1" {
		t.Errorf("b lists %v (%v)", listed, err)
	}
	if err := a.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	for s, want := range map[blobport.Store]bool{under: true, a: false, b: true} {
		_, err := s.Get(ctx, "fiscal/1")
		if got := err == nil; got != want {
			t.Errorf("after a's reset, present %v, want %v (%v)", got, want, err)
		}
	}
}
