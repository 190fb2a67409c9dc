// Package fiscalporttest holds the contract suite of the fiscal module's
// document store, run against every adapter, and an in-memory Documents
// fake for use-case tests.
package fiscalporttest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/ports/fiscalport"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func doc(id string, pack, seller int64, ft fiscal.FileType, at time.Time) fiscal.Document {
	return fiscal.Document{ID: id, PackID: pack, SellerID: seller, FileType: ft, Filename: id + "." + string(ft),
		ContentType: ft.ContentType(), Size: 10, Key: "fiscal/" + id, DateCreated: at}
}

// TestDocuments is the contract of fiscalport.Documents. newStore returns an
// empty store of the test's own.
func TestDocuments(t *testing.T, newStore func(t testing.TB) fiscalport.Documents) {
	ctx := context.Background()
	t.Run("AddListDelete", func(t *testing.T) {
		s := newStore(t)
		if had, err := s.EverHad(ctx, 1); err != nil || had {
			t.Fatalf("EverHad of a new pack = %v, %v", had, err)
		}
		a := doc("a", 1, 10, fiscal.PDF, t0)
		b := doc("b", 1, 10, fiscal.XML, t0.Add(time.Second))
		other := doc("c", 2, 10, fiscal.PDF, t0)
		if err := s.Add(ctx, []fiscal.Document{a}); err != nil {
			t.Fatal(err)
		}
		if err := s.Add(ctx, []fiscal.Document{b}); err != nil {
			t.Fatal(err)
		}
		if err := s.Add(ctx, []fiscal.Document{other}); err != nil {
			t.Fatal(err)
		}
		got, err := s.ByPack(ctx, 1)
		if err != nil || len(got) != 2 || got[0] != a || got[1] != b {
			t.Fatalf("ByPack = %+v, %v; want %+v %+v", got, err, a, b)
		}
		if had, err := s.EverHad(ctx, 2); err != nil || !had {
			t.Fatalf("EverHad of a pack holding a document = %v, %v", had, err)
		}
		if del, err := s.DeleteBySeller(ctx, 1, 99); err != nil || len(del) != 0 {
			t.Fatalf("DeleteBySeller of another seller = %v, %v", del, err)
		}
		del, err := s.DeleteBySeller(ctx, 1, 10)
		if err != nil || len(del) != 2 || del[0] != a || del[1] != b {
			t.Fatalf("DeleteBySeller = %+v, %v", del, err)
		}
		if got, _ := s.ByPack(ctx, 1); len(got) != 0 {
			t.Fatalf("after delete: %+v", got)
		}
		if had, err := s.EverHad(ctx, 1); err != nil || !had {
			t.Fatalf("EverHad after delete = %v, %v", had, err)
		}
		if got, _ := s.ByPack(ctx, 2); len(got) != 1 {
			t.Fatalf("other pack touched: %+v", got)
		}
		stored, err := s.Stored(ctx, []string{a.Key, other.Key, "fiscal/none"})
		if err != nil || len(stored) != 1 || !stored[other.Key] {
			t.Fatalf("Stored = %v, %v; want only %s", stored, err, other.Key)
		}
	})
	t.Run("OnePerType", func(t *testing.T) {
		s := newStore(t)
		if err := s.Add(ctx, []fiscal.Document{doc("a", 1, 10, fiscal.PDF, t0)}); err != nil {
			t.Fatal(err)
		}
		err := s.Add(ctx, []fiscal.Document{doc("x", 1, 10, fiscal.XML, t0), doc("b", 1, 10, fiscal.PDF, t0)})
		if !errors.Is(err, fiscalport.ErrConflict) {
			t.Fatalf("second pdf: %v, want ErrConflict", err)
		}
		if got, _ := s.ByPack(ctx, 1); len(got) != 1 || got[0].ID != "a" {
			t.Fatalf("a refused Add left rows: %+v", got)
		}
	})
}
