package compatdb

import (
	"context"
	"errors"
	"testing"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/compatdb/compatdbtest"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/ports/compatport/compatporttest"
	"github.com/feria/feria/test/testenv"
)

// TestCountCacheSeesEveryChange: a family count answered from the count
// cache is the count of now. Store a counts (and keeps its count, checked
// in its cache); each change of the domain's products is made by another
// writer, and a's next count shows it.
func TestCountCacheSeesEveryChange(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := open(t)
			a, seed := New(db), compatdbtest.New(db)
			ctx := context.Background()
			sel := compat.Selector{DomainID: "MLA-CARS_AND_VANS", Attributes: []compat.SelectorAttr{{ID: "BRAND", ValueIDs: []string{"9909"}},
				{ID: "VEHICLE_YEAR", ValueNames: []string{" 2018"}}}}
			product := func(id, brand, year string, child bool) {
				p := compat.Product{ID: id, SiteID: "MLA", DomainID: sel.DomainID, Name: id}
				if child {
					p.ParentID = kerneltest.Ptr("MLA100")
				}
				seed.Product(t, p, compatporttest.Attr{ID: "BRAND", ValueID: brand, ValueName: brand},
					compatporttest.Attr{ID: "VEHICLE_YEAR", ValueID: year, ValueName: year})
			}
			count := func(what string, want int) {
				t.Helper()
				for range 2 { // the second from the cache
					n, err := a.CountFamily(ctx, sel)
					if err != nil || n != want {
						t.Fatalf("%s: count = %d, %v; want %d", what, n, err, want)
					}
				}
				if kept, ok := a.counts.Get(familyKey(sel)); !ok || kept.n != want {
					t.Fatalf("%s: kept %+v, %v", what, kept, ok)
				}
			}
			seed.Domain(t, sel.DomainID, "MLA", nil)
			product("MLA100", "9909", "", false)
			product("MLA101", "9909", "2018", true)
			count("one child", 1)
			product("MLA102", "9909", "2018", true)
			count("a child added", 2)
			product("MLA103", "9909", "2018", false)
			count("a family head is no child", 2)
			product("MLA102", "9909", "2019", true)
			count("a child's year changed", 1)
			product("MLA101", "9909", "2018", false)
			count("a child made a head", 0)
			product("MLA104", "9909", "2018", true)
			if _, err := db.NewRaw(`UPDATE products SET parent_id = NULL WHERE id = 'MLA104'`).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			count("a child unparented by another writer", 0)
			product("MLA105", "9909", "2018", true)
			count("another child", 1)
			if _, err := db.NewRaw(`DELETE FROM products WHERE id = 'MLA105'`).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			count("the child removed", 0)
			product("MLA106", "9909", "2018", true)
			count("a child again", 1)
			if err := sqlstore.NewTables(db).Reset(ctx); err != nil {
				t.Fatal(err)
			}
			// The domain went with the reset, whatever was kept.
			if n, err := a.CountFamily(ctx, sel); !errors.Is(err, compatport.ErrNotFound) {
				t.Fatalf("after the reset: %d, %v; want ErrNotFound", n, err)
			}
			// The domain and two children again: counted afresh, not the
			// count of one kept before the reset.
			seed.Domain(t, sel.DomainID, "MLA", nil)
			product("MLA107", "9909", "2018", true)
			product("MLA108", "9909", "2018", true)
			for range 2 {
				if n, err := a.CountFamily(ctx, sel); err != nil || n != 2 {
					t.Fatalf("after the reset, two children: %d, %v", n, err)
				}
			}
		})
	}
}
