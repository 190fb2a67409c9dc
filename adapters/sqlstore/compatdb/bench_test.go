package compatdb_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore/compatdb"
	"github.com/feria/feria/adapters/sqlstore/compatdb/compatdbtest"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/test/testenv"
)

const (
	benchProducts = 100_000
	benchBrands   = 10 // 10,000 products per brand
	benchYears    = 20 // 500 products per brand and year
	// benchPerParent children per parent product: 2,000 parents beside
	// the 100,000 children.
	benchPerParent = 50
)

type benchProduct struct {
	bun.BaseModel `bun:"table:products"`
	ID            string  `bun:"id"`
	SiteID        string  `bun:"site_id"`
	DomainID      string  `bun:"domain_id"`
	Name          string  `bun:"name"`
	ParentID      *string `bun:"parent_id"`
	Attributes    string  `bun:"attributes"`
}

type benchAttr struct {
	bun.BaseModel `bun:"table:product_attributes"`
	ProductID     string `bun:"product_id"`
	DomainID      string `bun:"domain_id"`
	AttributeID   string `bun:"attribute_id"`
	ValueID       string `bun:"value_id"`
	ValueName     string `bun:"value_name"`
}

// seedBench loads 100,000 child vehicle products and 2,000 parents (multi-row inserts of 1,000
// rows in one transaction) and an item with 200 compatibilities.
func seedBench(b *testing.B) (*compatdb.Store, compat.Selector, compat.Selector) {
	ctx := context.Background()
	db := testenv.Postgres(b)
	seed := compatdbtest.New(db)
	seed.User(b, 123)
	seed.Category(b, "MLA1747", "MLA", &compat.CategorySettings{Required: true, NoteStatus: compat.Enabled, RestrictionsStatus: compat.Enabled})
	seed.Domain(b, "MLA-CAR_SHOCK_ABSORBERS", "MLA", []compat.DomainLink{{CompatibleDomainID: "MLA-CARS_AND_VANS", Type: "EXTENSION"}})
	seed.Domain(b, "MLA-CARS_AND_VANS", "MLA", nil)
	seed.Item(b, compat.Item{ID: "MLA1100", SiteID: "MLA", SellerID: 123, Title: "x", CategoryID: "MLA1747", DomainID: "MLA-CAR_SHOCK_ABSORBERS", Status: "active"})
	parent := "MLA1"
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		const batch = 1000
		for start := 0; start < benchProducts; start += batch {
			ps := make([]benchProduct, 0, batch)
			as := make([]benchAttr, 0, 2*batch)
			for i := start; i < start+batch; i++ {
				id := fmt.Sprintf("MLA%d", 1_000_000+i)
				brand, year := fmt.Sprint(i%benchBrands), fmt.Sprint(2000+(i/benchBrands)%benchYears)
				ps = append(ps, benchProduct{ID: id, SiteID: "MLA", DomainID: "MLA-CARS_AND_VANS", Name: "Car " + id, ParentID: &parent, Attributes: "[]"})
				as = append(as, benchAttr{ProductID: id, DomainID: "MLA-CARS_AND_VANS", AttributeID: "BRAND", ValueID: brand, ValueName: "brand " + brand},
					benchAttr{ProductID: id, DomainID: "MLA-CARS_AND_VANS", AttributeID: "VEHICLE_YEAR", ValueID: year, ValueName: year})
				// One parent (family head) per 50 children, with the same
				// attributes: a family count must leave them out.
				if i%benchPerParent == 0 {
					pid := fmt.Sprintf("MLA%d", 5_000_000+i)
					ps = append(ps, benchProduct{ID: pid, SiteID: "MLA", DomainID: "MLA-CARS_AND_VANS", Name: "Family " + pid, Attributes: "[]"})
					as = append(as, benchAttr{ProductID: pid, DomainID: "MLA-CARS_AND_VANS", AttributeID: "BRAND", ValueID: brand, ValueName: "brand " + brand},
						benchAttr{ProductID: pid, DomainID: "MLA-CARS_AND_VANS", AttributeID: "VEHICLE_YEAR", ValueID: year, ValueName: year})
				}
			}
			if _, err := tx.NewInsert().Model(&ps).Exec(ctx); err != nil {
				return err
			}
			if _, err := tx.NewInsert().Model(&as).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	// What autovacuum does to a settled table: statistics and the
	// visibility map index-only scans rely on.
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
		b.Fatal(err)
	}
	store := compatdb.New(db)
	now := time.Now().UTC()
	cs := make([]compat.Compatibility, 200)
	for i := range cs {
		cs[i] = compat.Compatibility{ID: fmt.Sprintf("c%03d", i), ItemID: "MLA1100", DomainID: "MLA-CARS_AND_VANS",
			ProductID: fmt.Sprintf("MLA%d", 1_000_000+i*7), Source: compat.SourceSeller, CreationSource: compat.CreationManual,
			NoteStatus: compat.NoteNone, DateCreated: now, LastUpdated: now}
	}
	if _, err := store.AddCompatibilities(ctx, cs); err != nil {
		b.Fatal(err)
	}
	brand := compat.Selector{DomainID: "MLA-CARS_AND_VANS", Attributes: []compat.SelectorAttr{{ID: "BRAND", ValueIDs: []string{"3"}}}}
	brandYear := compat.Selector{DomainID: "MLA-CARS_AND_VANS", Attributes: []compat.SelectorAttr{
		{ID: "BRAND", ValueNames: []string{"Brand 3"}}, {ID: "VEHICLE_YEAR", ValueIDs: []string{"2005"}}}}
	return store, brand, brandYear
}

// timed runs fn b.N times and reports p50 and p99 in milliseconds.
func timed(b *testing.B, fn func() error) {
	b.Helper()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	pct := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// BenchmarkCompat measures the area's hot reads on real PostgreSQL: the
// list of an item with 200 compatibilities (rows, product names and the
// claims behind reputation, as GET /items/{id}/compatibilities reads them)
// and family counts over 100,000 products.
func BenchmarkCompat(b *testing.B) {
	store, brand, brandYear := seedBench(b)
	ctx := context.Background()
	b.Run("List200", func(b *testing.B) {
		timed(b, func() error {
			l, err := store.Listing(ctx, "MLA1100")
			if err == nil && len(l.Compatibilities) != 200 {
				err = fmt.Errorf("list: %d compatibilities", len(l.Compatibilities))
			}
			return err
		})
	})
	b.Run("FamilyCount100k/brand", func(b *testing.B) {
		timed(b, func() error {
			n, err := store.CountFamily(ctx, brand)
			if err == nil && n != benchProducts/benchBrands {
				err = fmt.Errorf("count %d", n)
			}
			return err
		})
	})
	b.Run("FamilyCount100k/brand+year", func(b *testing.B) {
		timed(b, func() error {
			n, err := store.CountFamily(ctx, brandYear)
			if err == nil && n != benchProducts/benchBrands/benchYears {
				err = fmt.Errorf("count %d", n)
			}
			return err
		})
	})
}
