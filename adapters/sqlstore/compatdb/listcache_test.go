package compatdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/compatdb"
	"github.com/feria/feria/adapters/sqlstore/compatdb/compatdbtest"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/test/testenv"
)

// TestListCacheSeesEveryChange: a list answered from the cache is the list
// of now. Store A lists (and keeps what it read); each change below is
// made by another store on the same database (another instance) or by
// plain SQL (another writer, a trigger), and A's next list shows it. A list
// with no change in between is answered from the cache (the same backing
// array), so the checks are of the cache, not of a fresh read.
func TestListCacheSeesEveryChange(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := open(t)
			a, b, seed := compatdb.New(db), compatdb.New(db), compatdbtest.New(db)
			ctx := context.Background()
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := db.NewRaw(q, args...).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			seed.User(t, 123)
			seed.User(t, 456)
			seed.Category(t, "MLA1747", "MLA", nil)
			seed.Domain(t, "MLA-CARS_AND_VANS", "MLA", nil)
			for _, p := range []compat.Product{{ID: "MLA101", Name: "Ford Ka 2018"}, {ID: "MLA102", Name: "Ford Ka 2019"}} {
				p.SiteID, p.DomainID = "MLA", "MLA-CARS_AND_VANS"
				seed.Product(t, p)
			}
			item := compat.Item{ID: "MLA1100", SiteID: "MLA", SellerID: 123, Title: "Amortiguador", CategoryID: "MLA1747",
				DomainID: "MLA-CAR_SHOCK_ABSORBERS", Status: "active"}
			seed.Item(t, item)
			at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
			mk := func(id, product string, at time.Time) compat.Compatibility {
				return compat.Compatibility{ID: id, ItemID: "MLA1100", DomainID: "MLA-CARS_AND_VANS", ProductID: product,
					Source: compat.SourceSeller, CreationSource: compat.CreationManual, NoteStatus: compat.NoteNone,
					Restrictions: []compat.Restriction{}, DateCreated: at, LastUpdated: at}
			}

			var last compatport.Listing
			// list reads through A twice: the second read must come from
			// the cache (when there is something to keep); check judges
			// the first.
			list := func(what string, check func(l compatport.Listing) bool) {
				t.Helper()
				l, err := a.Listing(ctx, "MLA1100")
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if !check(l) {
					t.Fatalf("%s: listing = %+v", what, l)
				}
				again, _ := a.Listing(ctx, "MLA1100")
				if len(l.Compatibilities) > 0 && &again.Compatibilities[0] != &l.Compatibilities[0] {
					t.Fatalf("%s: an unchanged list was read again instead of kept", what)
				}
				last = l
			}
			names := func(l compatport.Listing) string {
				s := ""
				for _, c := range l.Compatibilities {
					s += c.ID + ":" + c.ProductName + ":" + c.Note + ":" + string(rune('0'+c.Claims)) + " "
				}
				return s
			}
			is := func(want string) func(compatport.Listing) bool {
				return func(l compatport.Listing) bool { return names(l) == want }
			}

			list("no compatibility", is(""))
			if _, err := b.AddCompatibilities(ctx, []compat.Compatibility{mk("c1", "MLA101", at), mk("c2", "MLA102", at)}); err != nil {
				t.Fatal(err)
			}
			list("added by another instance", is("c1:Ford Ka 2018::0 c2:Ford Ka 2019::0 "))
			c1 := last.Compatibilities[0].Compatibility
			c1.Note = "only the 1.6"
			if err := b.UpdateCompatibility(ctx, c1); err != nil {
				t.Fatal(err)
			}
			list("updated", is("c1:Ford Ka 2018:only the 1.6:0 c2:Ford Ka 2019::0 "))
			exec(`UPDATE products SET name = 'Ford Ka Viral' WHERE id = 'MLA102'`)
			list("vehicle renamed", is("c1:Ford Ka 2018:only the 1.6:0 c2:Ford Ka Viral::0 "))

			// Claims: a confirmed snapshot, then its order's claim, in
			// either order.
			seed.Order(t, 9001, 123, 456, "MLA1100", false)
			if err := b.AddSnapshot(ctx, compat.Snapshot{OrderID: 9001, ItemID: "MLA1100", SellerID: 123, ProductID: "MLA101",
				UserSelection: []byte(`[]`), Status: compat.Confirmed, CompatibilityID: "c1", Restrictions: []compat.Restriction{},
				DateCreated: at, DateUpdated: at}); err != nil {
				t.Fatal(err)
			}
			list("snapshot of an order with no claim", is("c1:Ford Ka 2018:only the 1.6:0 c2:Ford Ka Viral::0 "))
			exec(`UPDATE orders SET has_claim = ? WHERE id = 9001`, true)
			list("the order's claim", is("c1:Ford Ka 2018:only the 1.6:1 c2:Ford Ka Viral::0 "))
			if err := b.AddSnapshot(ctx, compat.Snapshot{OrderID: 9002, ItemID: "MLA1100", SellerID: 123, ProductID: "MLA101",
				UserSelection: []byte(`[]`), Status: compat.Confirmed, CompatibilityID: "c1", Restrictions: []compat.Restriction{},
				DateCreated: at, DateUpdated: at}); err != nil {
				t.Fatal(err)
			}
			seed.Order(t, 9002, 123, 456, "MLA1100", true)
			list("an order with a claim after its snapshot", is("c1:Ford Ka 2018:only the 1.6:2 c2:Ford Ka Viral::0 "))
			exec(`DELETE FROM orders WHERE id = 9002`)
			list("the order removed", is("c1:Ford Ka 2018:only the 1.6:1 c2:Ford Ka Viral::0 "))

			if err := b.PutState(ctx, compat.State{ItemID: "MLA1100", Universal: true, UniversalDomainIDs: []string{"MLA-CARS_AND_VANS"}}); err != nil {
				t.Fatal(err)
			}
			list("universal", func(l compatport.Listing) bool { return len(l.UniversalDomainIDs) == 1 && len(l.Compatibilities) == 2 })
			if _, err := b.DeleteCompatibilities(ctx, "MLA1100", []string{"c1"}); err != nil {
				t.Fatal(err)
			}
			list("deleted", is("c2:Ford Ka Viral::0 "))

			// A change rolled back leaves the kept list right.
			_ = sqlstore.Tx{DB: db}.RunInTx(ctx, func(ctx context.Context) error {
				exec2(t, ctx, db, `UPDATE compatibilities SET note = 'rolled back' WHERE id = 'c2'`)
				return context.Canceled
			})
			list("after a rollback", is("c2:Ford Ka Viral::0 "))

			// The sandbox's reset (TRUNCATE: no trigger fires), then the same
			// ids with other rows: not the kept list.
			if err := sqlstore.NewTables(db).Reset(ctx); err != nil {
				t.Fatal(err)
			}
			seed.User(t, 123)
			seed.Category(t, "MLA1747", "MLA", nil)
			seed.Domain(t, "MLA-CARS_AND_VANS", "MLA", nil)
			seed.Product(t, compat.Product{ID: "MLA101", SiteID: "MLA", DomainID: "MLA-CARS_AND_VANS", Name: "Fiat Uno"})
			seed.Item(t, item)
			if _, err := b.AddCompatibilities(ctx, []compat.Compatibility{mk("c2", "MLA101", at)}); err != nil {
				t.Fatal(err)
			}
			list("after the reset", is("c2:Fiat Uno::0 "))
			// The item removed and listed again with nothing.
			exec(`DELETE FROM items WHERE id = 'MLA1100'`)
			if _, err := a.Listing(ctx, "MLA1100"); err == nil {
				t.Fatal("a removed item listed")
			}
			seed.Item(t, item)
			list("the item again, with nothing", is(""))
		})
	}
}

func exec2(t *testing.T, ctx context.Context, db bun.IDB, q string) {
	t.Helper()
	if _, err := sqlstore.IDB(ctx, db).ExecContext(ctx, q); err != nil {
		t.Fatal(err)
	}
}
