package catalogdb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore/catalogdb"
	"github.com/feria/feria/ports/catalogport/catalogporttest"
	"github.com/feria/feria/test/testenv"
)

// benchItems is the number of items of the benchmark's world: enough that
// ids differ from one read to the next, as under load.
const benchItems = 1000

type anchorItem struct {
	bun.BaseModel `bun:"table:items"`
	ID            string `bun:"id,pk"`
	SellerID      int64  `bun:"seller_id"`
	Title         string `bun:"title"`
	Status        string `bun:"status"`
}

// BenchmarkItemRead measures, on real PostgreSQL, what GET /items/{id}
// reads of the catalog (the item and its computed facts) beside the anchor
// of make bench: one bun primary-key select of an item row. Both run in
// parallel over 1,000 items, as a loaded API reads them; ItemRead/Anchor is
// the ratio make bench's goal sets (≥ 0.5 of the whole route).
func BenchmarkItemRead(b *testing.B) {
	ctx := context.Background()
	db := testenv.Postgres(b)
	e := env(b, db)
	yes := true
	e.AddUser(ctx, 123)
	if err := e.Store.UpsertCategory(ctx, catalogporttest.Category("MLA1747", &yes)); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < benchItems; i++ {
		pn := ""
		if i%2 == 0 {
			pn = fmt.Sprintf("PN-%d", i%50)
		}
		if err := e.Store.UpsertItem(ctx, catalogporttest.Item(fmt.Sprintf("MLA%d", 1000+i), "MLA1747", 123, pn)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	store := catalogdb.New(db)
	b.Run("Anchor", func(b *testing.B) {
		parallel(b, func(id string) error {
			var it anchorItem
			return db.NewSelect().Model(&it).Where("id = ?", id).Scan(ctx)
		})
	})
	b.Run("ItemRead", func(b *testing.B) {
		parallel(b, func(id string) error {
			_, _, err := store.ItemWithFacts(ctx, id)
			return err
		})
	})
}

func parallel(b *testing.B, read func(id string) error) {
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			if err := read(fmt.Sprintf("MLA%d", 1000+(i*7919)%benchItems)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
