// Package compatporttest holds the contract suite of compatport.Store, run
// against every adapter (PostgreSQL and SQLite).
package compatporttest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/ports/compatport"
)

// Attr is one attribute of a seeded product.
type Attr struct{ ID, ValueID, ValueName string }

// Seeder writes the rows of other modules a Store reads; the adapter's test
// provides it.
type Seeder interface {
	User(t testing.TB, id int64)
	Category(t testing.TB, id, siteID string, settings *compat.CategorySettings)
	Domain(t testing.TB, id, siteID string, links []compat.DomainLink)
	Product(t testing.TB, p compat.Product, attrs ...Attr)
	Item(t testing.TB, it compat.Item)
	Order(t testing.TB, id, sellerID, buyerID int64, itemID string, hasClaim bool)
}

// Env is one fresh store with its transaction runner and seeder.
type Env struct {
	Store compatport.Store
	Tx    kernel.Tx
	Seed  Seeder
}

// TestStore is the contract of compatport.Store. newEnv returns an empty,
// migrated store of the test's own.
func TestStore(t *testing.T, newEnv func(t testing.TB) Env) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e Env)
	}{
		{"Item", testItem},
		{"Domains", testDomains},
		{"Families", testFamilies},
		{"Compatibilities", testCompatibilities},
		{"ConcurrentAdds", testConcurrentAdds},
		{"Rollback", testRollback},
		{"State", testState},
		{"SnapshotsAndClaims", testSnapshots},
		{"Listing", testListing},
		{"Suggestions", testSuggestions},
		{"Jobs", testJobs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, newEnv(t))
		})
	}
}

var ctx = context.Background()

var settings = &compat.CategorySettings{Required: true, NoteStatus: compat.Enabled, RestrictionsStatus: compat.Enabled, UniversalStatus: compat.Disabled}

var link = compat.DomainLink{CompatibleDomainID: "MLA-CARS_AND_VANS", Type: "EXTENSION",
	RestrictionValues: []compat.RestrictionValue{{AttributeID: "POSITION", Values: []compat.ValueEntry{{ValueID: "1", ValueName: "Delantera"}}}}}

// seedItem seeds a seller, a part category and domain, a vehicle domain
// with a parent and three children (two Ford Ka, one Fiat), and an item of
// the seller, which it returns.
func seedItem(t *testing.T, e Env) compat.Item {
	e.Seed.User(t, 123)
	e.Seed.Category(t, "MLA1747", "MLA", settings)
	e.Seed.Domain(t, "MLA-CAR_SHOCK_ABSORBERS", "MLA", []compat.DomainLink{link})
	e.Seed.Domain(t, "MLA-CARS_AND_VANS", "MLA", nil)
	e.Seed.Product(t, compat.Product{ID: "MLA100", SiteID: "MLA", DomainID: "MLA-CARS_AND_VANS", Name: "Ford Ka"},
		Attr{"BRAND", "9909", "Ford"}, Attr{"MODEL", "60279", "Ka"})
	for _, p := range []struct{ id, name, brand, brandName, year string }{
		{"MLA101", "Ford Ka 2018", "9909", "Ford", "2018"},
		{"MLA102", "Ford Ka 2019", "9909", "Ford", "2019"},
		{"MLA103", "Fiat Uno 2018", "67", "Fiat", "2018"},
	} {
		e.Seed.Product(t, compat.Product{ID: p.id, SiteID: "MLA", DomainID: "MLA-CARS_AND_VANS", Name: p.name, ParentID: kerneltest.Ptr("MLA100")},
			Attr{"BRAND", p.brand, p.brandName}, Attr{"VEHICLE_YEAR", p.year, p.year})
	}
	it := compat.Item{ID: "MLA1100", SiteID: "MLA", SellerID: 123, Title: "Amortiguador", CategoryID: "MLA1747",
		DomainID: "MLA-CAR_SHOCK_ABSORBERS", Status: "active", Category: settings}
	e.Seed.Item(t, it)
	return it
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func testItem(t *testing.T, e Env) {
	want := seedItem(t, e)
	got, err := e.Store.Item(ctx, "MLA1100")
	must(t, err)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("item = %+v, want %+v", got, want)
	}
	if _, err := e.Store.Item(ctx, "MLA9"); !errors.Is(err, compatport.ErrNotFound) {
		t.Fatalf("unknown item: %v, want ErrNotFound", err)
	}
	e.Seed.Category(t, "MLA5", "MLA", nil)
	e.Seed.Item(t, compat.Item{ID: "MLA1101", SiteID: "MLA", SellerID: 123, Title: "x", CategoryID: "MLA5",
		DomainID: "MLA-CAR_SHOCK_ABSORBERS", Status: "paused", PartNumber: kerneltest.Ptr("PN-1")})
	got, err = e.Store.Item(ctx, "MLA1101")
	must(t, err)
	if got.Category != nil || got.PartNumber == nil || *got.PartNumber != "PN-1" || got.Status != "paused" {
		t.Fatalf("item without compat settings = %+v", got)
	}
}

func testDomains(t *testing.T, e Env) {
	seedItem(t, e)
	e.Seed.Domain(t, "MLB-CARS", "MLB", nil)
	d, err := e.Store.Domain(ctx, "MLA-CAR_SHOCK_ABSORBERS")
	must(t, err)
	if d.SiteID != "MLA" || len(d.Links) != 1 || !reflect.DeepEqual(d.Links[0], link) || len(d.Raw) == 0 {
		t.Fatalf("domain = %+v", d)
	}
	if _, ok := d.Link("MLA-CARS_AND_VANS"); !ok {
		t.Fatal("link not found")
	}
	ds, err := e.Store.Domains(ctx, "MLA")
	must(t, err)
	if len(ds) != 2 || ds[0].ID != "MLA-CARS_AND_VANS" || ds[1].ID != "MLA-CAR_SHOCK_ABSORBERS" {
		t.Fatalf("domains = %+v", ds)
	}
	if _, err := e.Store.Domain(ctx, "MLA-NONE"); !errors.Is(err, compatport.ErrNotFound) {
		t.Fatalf("unknown domain: %v", err)
	}
	ps, err := e.Store.Products(ctx, []string{"MLA100", "MLA101", "MLA999"})
	must(t, err)
	if len(ps) != 2 || ps["MLA100"].ParentID != nil || ps["MLA101"].ParentID == nil || *ps["MLA101"].ParentID != "MLA100" {
		t.Fatalf("products = %+v", ps)
	}
}

func ids(ps []compat.Product) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

func testFamilies(t *testing.T, e Env) {
	seedItem(t, e)
	dom := "MLA-CARS_AND_VANS"
	cases := []struct {
		name string
		sel  compat.Selector
		want []string
	}{
		{"value id, children only", compat.Selector{DomainID: dom, Attributes: []compat.SelectorAttr{{ID: "BRAND", ValueIDs: []string{"9909"}}}}, []string{"MLA101", "MLA102"}},
		{"value name any case", compat.Selector{DomainID: dom, Attributes: []compat.SelectorAttr{{ID: "BRAND", ValueNames: []string{"FORD"}}}}, []string{"MLA101", "MLA102"}},
		{"value ids", compat.Selector{DomainID: dom, Attributes: []compat.SelectorAttr{{ID: "BRAND", ValueIDs: []string{"9909", "67"}}}}, []string{"MLA101", "MLA102", "MLA103"}},
		{"intersection", compat.Selector{DomainID: dom, Attributes: []compat.SelectorAttr{{ID: "BRAND", ValueIDs: []string{"9909"}}, {ID: "VEHICLE_YEAR", ValueNames: []string{"2018"}}}}, []string{"MLA101"}},
		{"other domain", compat.Selector{DomainID: "MLA-OTHER", Attributes: []compat.SelectorAttr{{ID: "BRAND", ValueIDs: []string{"9909"}}}}, []string{}},
		{"no match", compat.Selector{DomainID: dom, Attributes: []compat.SelectorAttr{{ID: "BRAND", ValueNames: []string{"Ford"}}, {ID: "MODEL", ValueIDs: []string{"60279"}}}}, []string{}},
	}
	for _, c := range cases {
		ps, err := e.Store.FamilyProducts(ctx, c.sel, 10)
		must(t, err)
		if got := ids(ps); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: family = %v, want %v", c.name, got, c.want)
		}
		n, err := e.Store.CountFamily(ctx, c.sel)
		if c.sel.DomainID == "MLA-OTHER" { // no such domain
			if !errors.Is(err, compatport.ErrNotFound) {
				t.Errorf("%s: count = %d, %v, want ErrNotFound", c.name, n, err)
			}
			continue
		}
		must(t, err)
		if n != len(c.want) {
			t.Errorf("%s: count = %d, want %d", c.name, n, len(c.want))
		}
	}
	ps, err := e.Store.FamilyProducts(ctx, cases[2].sel, 2)
	must(t, err)
	if len(ps) != 2 {
		t.Fatalf("limit 2 returned %d", len(ps))
	}
}

func newCompat(id, product string, at time.Time) compat.Compatibility {
	return compat.Compatibility{ID: id, ItemID: "MLA1100", DomainID: "MLA-CARS_AND_VANS", ProductID: product,
		Source: compat.SourceSeller, CreationSource: compat.CreationManual, NoteStatus: compat.NoteNone,
		Restrictions: []compat.Restriction{}, DateCreated: at, LastUpdated: at}
}

// testConcurrentAdds: callers adding the same vehicle at once, each in its
// own transaction and without the item's lock, all succeed and only one
// adds it (the insert itself skips a stored vehicle; a read-then-insert
// failed on the unique index).
func testConcurrentAdds(t *testing.T, e Env) {
	seedItem(t, e)
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	const callers = 6
	var wg sync.WaitGroup
	added := make([]int, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.Tx.RunInTx(ctx, func(ctx context.Context) error {
				got, err := e.Store.AddCompatibilities(ctx, []compat.Compatibility{newCompat(fmt.Sprintf("c%d", i), "MLA101", at)})
				added[i] = len(got)
				return err
			})
		}()
	}
	wg.Wait()
	total := 0
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		total += added[i]
	}
	if total != 1 {
		t.Fatalf("%d callers added the vehicle; want 1", total)
	}
}

func testCompatibilities(t *testing.T, e Env) {
	seedItem(t, e)
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	a := newCompat("c1", "MLA101", at)
	a.Note, a.NoteStatus = "solo 5 puertas", compat.NotePending
	a.Restrictions = []compat.Restriction{{AttributeID: "POSITION", AttributeCode: 1, AttributeValues: []compat.RestrictionSet{{Values: []compat.RestrictionVal{{ValueID: "1", ValueName: "Delantera", ValueCode: 1}}}}}}
	b := newCompat("c2", "MLA102", at.Add(time.Second))
	added, err := e.Store.AddCompatibilities(ctx, []compat.Compatibility{a, b})
	must(t, err)
	if len(added) != 2 {
		t.Fatalf("added %d, want 2", len(added))
	}
	// The same vehicle again is skipped; a new one is added.
	added, err = e.Store.AddCompatibilities(ctx, []compat.Compatibility{newCompat("c3", "MLA101", at), newCompat("c4", "MLA103", at.Add(2*time.Second))})
	must(t, err)
	if len(added) != 1 || added[0].ID != "c4" {
		t.Fatalf("second add = %+v, want only c4", added)
	}
	cs, err := e.Store.Compatibilities(ctx, "MLA1100")
	must(t, err)
	if len(cs) != 3 || cs[0].ID != "c1" || cs[1].ID != "c2" || cs[2].ID != "c4" {
		t.Fatalf("list = %+v", cs)
	}
	a.ProductName = "Ford Ka 2018"
	if !reflect.DeepEqual(cs[0], a) {
		t.Fatalf("stored %+v\nwant %+v", cs[0], a)
	}
	one, err := e.Store.Compatibility(ctx, "MLA1100", "c2")
	must(t, err)
	if one.ProductName != "Ford Ka 2019" {
		t.Fatalf("one = %+v", one)
	}
	if _, err := e.Store.Compatibility(ctx, "MLA1101", "c2"); !errors.Is(err, compatport.ErrNotFound) {
		t.Fatalf("other item's compatibility: %v", err)
	}
	one.Note, one.NoteStatus, one.Restrictions = "x", compat.NotePending, []compat.Restriction{}
	must(t, e.Store.UpdateCompatibility(ctx, one))
	ok, err := e.Store.SetNoteStatus(ctx, "c2", "other", compat.NoteApproved, at)
	must(t, err)
	if ok {
		t.Fatal("status set on a changed note")
	}
	ok, err = e.Store.SetNoteStatus(ctx, "c2", "x", compat.NoteApproved, at)
	must(t, err)
	if !ok {
		t.Fatal("status not set")
	}
	one, _ = e.Store.Compatibility(ctx, "MLA1100", "c2")
	if one.Note != "x" || one.NoteStatus != compat.NoteApproved {
		t.Fatalf("after update = %+v", one)
	}
	del, err := e.Store.DeleteCompatibilities(ctx, "MLA1100", []string{"c2", "nope"})
	must(t, err)
	if !reflect.DeepEqual(del, []string{"c2"}) {
		t.Fatalf("deleted %v", del)
	}
	del, err = e.Store.DeleteCompatibilities(ctx, "MLA1100", nil)
	must(t, err)
	if !reflect.DeepEqual(del, []string{"c1", "c4"}) {
		t.Fatalf("deleted all %v", del)
	}
	cs, _ = e.Store.Compatibilities(ctx, "MLA1100")
	if len(cs) != 0 {
		t.Fatalf("left %d", len(cs))
	}
}

func testRollback(t *testing.T, e Env) {
	seedItem(t, e)
	boom := errors.New("boom")
	err := e.Tx.RunInTx(ctx, func(ctx context.Context) error {
		if _, err := e.Store.AddCompatibilities(ctx, []compat.Compatibility{newCompat("c1", "MLA101", time.Now())}); err != nil {
			return err
		}
		if err := e.Store.PutState(ctx, compat.State{ItemID: "MLA1100", Universal: true}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("tx: %v", err)
	}
	cs, _ := e.Store.Compatibilities(ctx, "MLA1100")
	st, _ := e.Store.State(ctx, "MLA1100")
	if len(cs) != 0 || st.Universal {
		t.Fatalf("rolled back tx left %d compatibilities, state %+v", len(cs), st)
	}
}

func testState(t *testing.T, e Env) {
	seedItem(t, e)
	st, err := e.Store.State(ctx, "MLA1100")
	must(t, err)
	if !reflect.DeepEqual(st, compat.State{ItemID: "MLA1100", UniversalDomainIDs: []string{}}) {
		t.Fatalf("zero state = %+v", st)
	}
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	want := compat.State{ItemID: "MLA1100", Universal: true, UniversalDomainIDs: []string{"MLA-CARS_AND_VANS"}}
	must(t, e.Store.PutState(ctx, want))
	st, _ = e.Store.State(ctx, "MLA1100")
	if !reflect.DeepEqual(st, want) {
		t.Fatalf("state = %+v", st)
	}
	want = compat.State{ItemID: "MLA1100", UniversalDomainIDs: []string{}, HasException: true, ExceptionComment: "none fits", ExceptionDate: &at}
	must(t, e.Store.PutState(ctx, want))
	st, _ = e.Store.State(ctx, "MLA1100")
	if st.Universal || !st.HasException || st.ExceptionComment != "none fits" || st.ExceptionDate == nil || !st.ExceptionDate.Equal(at) {
		t.Fatalf("state = %+v", st)
	}
}

// testListing: the list's one read answers the item's seller, its
// universal domains only when universal, and every column of its
// compatibilities as stored, by creation then by vehicle.
func testListing(t *testing.T, e Env) {
	if _, err := e.Store.Listing(ctx, "MLA1100"); !errors.Is(err, compatport.ErrNotFound) {
		t.Fatalf("unknown item: %v", err)
	}
	seedItem(t, e)
	l, err := e.Store.Listing(ctx, "MLA1100")
	must(t, err)
	if l.SellerID != 123 || l.UniversalDomainIDs != nil || len(l.Compatibilities) != 0 {
		t.Fatalf("listing of an item with nothing = %+v", l)
	}
	must(t, e.Store.PutState(ctx, compat.State{ItemID: "MLA1100", Universal: true, UniversalDomainIDs: []string{}}))
	if l, _ = e.Store.Listing(ctx, "MLA1100"); l.UniversalDomainIDs == nil || len(l.UniversalDomainIDs) != 0 {
		t.Fatalf("universal in no domain = %#v", l.UniversalDomainIDs)
	}
	must(t, e.Store.PutState(ctx, compat.State{ItemID: "MLA1100", Universal: true, UniversalDomainIDs: []string{"MLA-CARS_AND_VANS"}}))
	if l, _ = e.Store.Listing(ctx, "MLA1100"); !reflect.DeepEqual(l.UniversalDomainIDs, []string{"MLA-CARS_AND_VANS"}) {
		t.Fatalf("universal domains = %#v", l.UniversalDomainIDs)
	}
	must(t, e.Store.PutState(ctx, compat.State{ItemID: "MLA1100", UniversalDomainIDs: []string{"MLA-CARS_AND_VANS"}}))
	at := time.Date(2026, 11, 20, 12, 0, 0, 123456000, time.UTC)
	first := newCompat("c9", "MLA103", at.Add(-time.Minute))
	first.Note, first.NoteStatus, first.CreationSource = "only the 1.6", compat.NotePending, compat.CreationCopy
	first.LastUpdated = at.Add(time.Hour)
	first.Restrictions = []compat.Restriction{{AttributeID: "POSITION", AttributeCode: 7, AttributeValues: []compat.RestrictionSet{{Values: []compat.RestrictionVal{{ValueID: "1", ValueName: "Front", ValueCode: 3}}}}}}
	_, err = e.Store.AddCompatibilities(ctx, []compat.Compatibility{newCompat("c2", "MLA102", at), newCompat("c1", "MLA101", at), first})
	must(t, err)
	l, err = e.Store.Listing(ctx, "MLA1100")
	must(t, err)
	if l.UniversalDomainIDs != nil || len(l.Compatibilities) != 3 {
		t.Fatalf("listing = %+v", l)
	}
	want := []compat.Compatibility{first, newCompat("c1", "MLA101", at), newCompat("c2", "MLA102", at)}
	for i, w := range want {
		got := l.Compatibilities[i]
		if got.Claims != 0 || got.ProductName == "" || got.ID != w.ID || got.ItemID != w.ItemID || got.DomainID != w.DomainID ||
			got.ProductID != w.ProductID || got.Source != w.Source || got.CreationSource != w.CreationSource || got.Note != w.Note ||
			got.NoteStatus != w.NoteStatus || !reflect.DeepEqual(got.Restrictions, w.Restrictions) ||
			!got.DateCreated.Equal(w.DateCreated) || !got.LastUpdated.Equal(w.LastUpdated) || got.DateCreated.Location() != time.UTC {
			t.Fatalf("compatibility %d = %+v, want %+v", i, got, w)
		}
	}
	// Read inside a transaction (another driver path on PostgreSQL): the
	// same listing, neither kept nor taken from what is kept (no Derived).
	must(t, e.Tx.RunInTx(ctx, func(ctx context.Context) error {
		in, err := e.Store.Listing(ctx, "MLA1100")
		if err == nil && in.Derived != nil {
			t.Errorf("a listing in a transaction has derived values: %+v", in)
		}
		l.Derived = nil
		if err == nil && !reflect.DeepEqual(in, l) {
			t.Errorf("listing in a transaction = %+v, want %+v", in, l)
		}
		return err
	}))
}

func testSnapshots(t *testing.T, e Env) {
	seedItem(t, e)
	e.Seed.User(t, 456)
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	c1 := newCompat("c1", "MLA101", at)
	c1.Note = "n"
	_, err := e.Store.AddCompatibilities(ctx, []compat.Compatibility{c1, newCompat("c2", "MLA102", at)})
	must(t, err)
	for i, claim := range []bool{true, true, false, true} {
		id := int64(9001 + i)
		e.Seed.Order(t, id, 123, 456, "MLA1100", claim)
		must(t, e.Store.AddSnapshot(ctx, compat.Snapshot{OrderID: id, ItemID: "MLA1100", SellerID: 123, ProductID: "MLA101",
			UserSelection: []byte(`[]`), Status: compat.Confirmed, CompatibilityID: "c1", Restrictions: []compat.Restriction{},
			DateCreated: at, DateUpdated: at}))
	}
	// A second snapshot of the same order is ignored.
	must(t, e.Store.AddSnapshot(ctx, compat.Snapshot{OrderID: 9001, ItemID: "MLA1100", SellerID: 123, Status: compat.NoUserSelection, DateCreated: at, DateUpdated: at}))
	sn, err := e.Store.Snapshot(ctx, 9001)
	must(t, err)
	if sn.Status != compat.Confirmed || sn.CompatibilityID != "c1" || string(sn.UserSelection) != "[]" || sn.CompatibilityDeleted {
		t.Fatalf("snapshot = %+v", sn)
	}
	if _, err := e.Store.Snapshot(ctx, 1); !errors.Is(err, compatport.ErrNotFound) {
		t.Fatalf("unknown snapshot: %v", err)
	}
	o, err := e.Store.Order(ctx, 9003)
	must(t, err)
	if o.HasClaim || o.SellerID != 123 {
		t.Fatalf("order = %+v", o)
	}
	if _, err := e.Store.Order(ctx, 1); !errors.Is(err, compatport.ErrNotFound) {
		t.Fatalf("unknown order: %v", err)
	}
	claims, err := e.Store.Claims(ctx, []string{"c1", "c2"})
	must(t, err)
	if !reflect.DeepEqual(claims, map[string]int{"c1": 3}) {
		t.Fatalf("claims = %v", claims)
	}
	listing, err := e.Store.Listing(ctx, "MLA1100")
	must(t, err)
	claimed := listing.Compatibilities
	if len(claimed) != 2 || claimed[0].ID != "c1" || claimed[0].Claims != 3 || claimed[0].Note != "n" || claimed[0].ProductName == "" ||
		claimed[1].ID != "c2" || claimed[1].Claims != 0 {
		t.Fatalf("claimed compatibilities = %+v", claimed)
	}
	counts, err := e.Store.Counts(ctx, "MLA-CARS_AND_VANS", []string{"MLA1100"})
	must(t, err)
	if got := counts["MLA1100"]; got.Compatibility != 2 || got.Claims != 3 || got.Notes != 1 || got.Restrictions != 0 {
		t.Fatalf("counts = %+v", got)
	}
	counts, _ = e.Store.Counts(ctx, "MLA-OTHER", []string{"MLA1100"})
	if len(counts) != 0 {
		t.Fatalf("counts of another domain = %+v", counts)
	}
	later := at.Add(time.Hour)
	must(t, e.Store.MarkSnapshotsDeleted(ctx, []string{"c1"}, later))
	sn, _ = e.Store.Snapshot(ctx, 9002)
	if !sn.CompatibilityDeleted || !sn.DateUpdated.Equal(later) {
		t.Fatalf("after delete = %+v", sn)
	}
}

func testSuggestions(t *testing.T, e Env) {
	it := seedItem(t, e)
	cp := "MLA777"
	it.CatalogProductID = &cp
	e.Seed.Item(t, it)
	other := it
	other.ID, other.PartNumber, other.CatalogProductID = "MLA1200", kerneltest.Ptr("PN-9"), &cp
	e.Seed.Item(t, other)
	paused := it
	paused.ID, paused.Status = "MLA1300", "paused"
	e.Seed.Item(t, paused)
	at := time.Now()
	mk := func(id, item, product string) compat.Compatibility {
		c := newCompat(id, product, at)
		c.ItemID = item
		return c
	}
	_, err := e.Store.AddCompatibilities(ctx, []compat.Compatibility{mk("a", "MLA1100", "MLA101"), mk("b", "MLA1200", "MLA101"),
		mk("c", "MLA1200", "MLA102"), mk("d", "MLA1300", "MLA103")})
	must(t, err)
	sg, err := e.Store.Suggestions(ctx, it)
	must(t, err)
	if got := ids(sg); !reflect.DeepEqual(got, []string{"MLA102"}) {
		t.Fatalf("suggestions = %v, want [MLA102]", got)
	}
	// By part number: MLA1400 shares PN-9 with MLA1200.
	pn := it
	pn.ID, pn.CatalogProductID, pn.PartNumber = "MLA1400", nil, kerneltest.Ptr("PN-9")
	e.Seed.Item(t, pn)
	sg, _ = e.Store.Suggestions(ctx, pn)
	got := ids(sg)
	sort.Strings(got)
	if !reflect.DeepEqual(got, []string{"MLA101", "MLA102"}) {
		t.Fatalf("part number suggestions = %v", got)
	}
	none := pn
	none.PartNumber = nil
	if sg, _ := e.Store.Suggestions(ctx, none); len(sg) != 0 {
		t.Fatalf("item without catalog product or part number has suggestions %v", ids(sg))
	}
}

func testJobs(t *testing.T, e Env) {
	first, err := e.Store.MarkJobDone(ctx, "copy-1", time.Now())
	must(t, err)
	again, err := e.Store.MarkJobDone(ctx, "copy-1", time.Now())
	must(t, err)
	if !first || again {
		t.Fatalf("first %v again %v", first, again)
	}
}
