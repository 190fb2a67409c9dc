package compatsvc_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/compat/compatsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/catalogport/catalogporttest"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/ports/compatport/compatporttest"
)

// Use-case tests of compatsvc on the in-memory fake of its ports (the fake
// passes the same contract suite as the SQL stores).

func attr(id, valueID, valueName string) compatporttest.Attr {
	return compatporttest.Attr{ID: id, ValueID: valueID, ValueName: valueName}
}

var now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

type env struct {
	svc    *compatsvc.Service
	mem    *compatporttest.Memory
	seller context.Context // the seller of every MLA11xx item (123)
	other  context.Context // the seller of MLA1200 (456)
}

// newEnv seeds: part domain MLA-CAR_SHOCK_ABSORBERS (links to CARS_AND_VANS,
// with POSITION values, and MOTOS), MLA-MOTO_PARTS (links to MOTOS only),
// vehicle products MLA101..103 (cars, children of MLA100), MLA201 (motos),
// MLA301 (trucks, linked to nothing), MLB1 (other site); categories MLA1747
// (all enabled, required), MLA1748 (all disabled), MLA1749 (no
// compatibilities); items MLA1100 (1747), MLA1101 (1748), MLA1102 (1749),
// MLA1103 (1747, closed), MLA1104 (moto parts, 1747), MLA1200 (456's).
func newEnv(t *testing.T) env {
	t.Helper()
	mem := compatporttest.NewMemory()
	s := mem.Seed()
	s.User(t, 123)
	s.User(t, 456)
	all := &compat.CategorySettings{Required: true, NoteStatus: compat.Enabled, RestrictionsStatus: compat.Enabled, UniversalStatus: compat.Enabled}
	none := &compat.CategorySettings{NoteStatus: compat.Disabled, RestrictionsStatus: compat.Disabled, UniversalStatus: compat.Disabled}
	s.Category(t, "MLA1747", "MLA", all)
	s.Category(t, "MLA1748", "MLA", none)
	s.Category(t, "MLA1749", "MLA", nil)
	pos := []compat.RestrictionValue{{AttributeID: "POSITION", Values: []compat.ValueEntry{{ValueID: "1", ValueName: "Delantera"}, {ValueID: "2", ValueName: "Trasera"}}}}
	s.Domain(t, "MLA-CAR_SHOCK_ABSORBERS", "MLA", []compat.DomainLink{
		{CompatibleDomainID: "MLA-CARS_AND_VANS", Type: "EXTENSION", RestrictionValues: pos},
		{CompatibleDomainID: "MLA-MOTOS", Type: "EXTENSION"},
		{CompatibleDomainID: "MLA-TRUCKS", Type: "OTHER"}})
	s.Domain(t, "MLA-MOTO_PARTS", "MLA", []compat.DomainLink{{CompatibleDomainID: "MLA-MOTOS", Type: "EXTENSION"}})
	for _, d := range []string{"MLA-CARS_AND_VANS", "MLA-MOTOS", "MLA-TRUCKS"} {
		s.Domain(t, d, "MLA", nil)
	}
	s.Domain(t, "MLB-CARS", "MLB", nil)
	s.Product(t, compat.Product{ID: "MLA100", SiteID: "MLA", DomainID: "MLA-CARS_AND_VANS", Name: "Ford Ka"}, attr("BRAND", "9909", "Ford"))
	for _, p := range []struct{ id, name, brand, bname string }{{"MLA101", "Ford Ka 2018", "9909", "Ford"}, {"MLA102", "Ford Ka 2019", "9909", "Ford"}, {"MLA103", "Fiat Uno", "67", "Fiat"}} {
		s.Product(t, compat.Product{ID: p.id, SiteID: "MLA", DomainID: "MLA-CARS_AND_VANS", Name: p.name, ParentID: kerneltest.Ptr("MLA100")}, attr("BRAND", p.brand, p.bname))
	}
	s.Product(t, compat.Product{ID: "MLA201", SiteID: "MLA", DomainID: "MLA-MOTOS", Name: "Honda CB", ParentID: kerneltest.Ptr("MLA200")}, attr("BRAND", "1", "Honda"))
	s.Product(t, compat.Product{ID: "MLA301", SiteID: "MLA", DomainID: "MLA-TRUCKS", Name: "Scania", ParentID: kerneltest.Ptr("MLA300")})
	s.Product(t, compat.Product{ID: "MLB1", SiteID: "MLB", DomainID: "MLB-CARS", Name: "Gol", ParentID: kerneltest.Ptr("MLB0")})
	item := func(id string, seller int64, cat, dom, status string) compat.Item {
		return compat.Item{ID: id, SiteID: "MLA", SellerID: seller, Title: "Item " + id, CategoryID: cat, DomainID: dom, Status: status, CatalogProductID: kerneltest.Ptr("MLA9000")}
	}
	s.Item(t, item("MLA1100", 123, "MLA1747", "MLA-CAR_SHOCK_ABSORBERS", "active"))
	s.Item(t, item("MLA1101", 123, "MLA1748", "MLA-CAR_SHOCK_ABSORBERS", "active"))
	s.Item(t, item("MLA1102", 123, "MLA1749", "MLA-CAR_SHOCK_ABSORBERS", "active"))
	s.Item(t, item("MLA1103", 123, "MLA1747", "MLA-CAR_SHOCK_ABSORBERS", "closed"))
	s.Item(t, item("MLA1104", 123, "MLA1747", "MLA-MOTO_PARTS", "active"))
	s.Item(t, item("MLA1200", 456, "MLA1747", "MLA-CAR_SHOCK_ABSORBERS", "active"))
	checker := compatport.NoteCheckFunc(func(_ context.Context, _, note string) error {
		if strings.Contains(note, "http") {
			return kernel.E(kernel.NotAcceptable, "not_acceptable", "links are not allowed")
		}
		return nil
	})
	svc := compatsvc.New(compatsvc.Deps{Store: mem, Tx: mem, Outbox: mem, Notes: checker, Items: &catalogporttest.ItemWatch{},
		Clock: &kerneltest.Clock{At: now}})
	bg := context.Background()
	return env{svc: svc, mem: mem,
		seller: kernel.WithCaller(bg, kernel.Caller{UserID: 123, SiteID: "MLA"}),
		other:  kernel.WithCaller(bg, kernel.Caller{UserID: 456, SiteID: "MLA"})}
}

func products(ids ...string) compat.Nodes {
	n := compat.Nodes{}
	for _, id := range ids {
		n.Products = append(n.Products, compat.ProductEntry{ID: id})
	}
	return n
}

func family(domain, attr string, values ...string) compat.Nodes {
	return compat.Nodes{Families: []compat.FamilyEntry{{Selector: compat.Selector{DomainID: domain,
		Attributes: []compat.SelectorAttr{{ID: attr, ValueIDs: values}}}}}}
}

func position(values ...string) *[]compat.Restriction {
	set := compat.RestrictionSet{}
	for _, v := range values {
		set.Values = append(set.Values, compat.RestrictionVal{ValueID: v})
	}
	return &[]compat.Restriction{{AttributeID: "POSITION", AttributeValues: []compat.RestrictionSet{set}}}
}

func TestCreateRules(t *testing.T) {
	cases := []struct {
		name  string
		item  string
		ctx   func(e env) context.Context
		nodes compat.Nodes
		want  int
		err   string
	}{
		{"products and a family", "MLA1100", nil, compat.Nodes{Products: products("MLA101").Products, Families: family("MLA-CARS_AND_VANS", "BRAND", "67").Families}, 2, ""},
		{"a group", "MLA1100", nil, compat.Nodes{Groups: []compat.GroupEntry{{IDs: []string{"MLA101", "MLA102", "MLA201"}}}}, 3, ""},
		{"the same vehicle twice counts once", "MLA1100", nil, products("MLA101", "MLA101"), 1, ""},
		{"family by name", "MLA1100", nil, compat.Nodes{Families: []compat.FamilyEntry{{Selector: compat.Selector{DomainID: "MLA-CARS_AND_VANS",
			Attributes: []compat.SelectorAttr{{ID: "BRAND", ValueNames: []string{"FORD"}}}}}}}, 2, ""},
		{"nothing", "MLA1100", nil, compat.Nodes{}, 0, "Invalid arguments for specific request"},
		{"universal with products", "MLA1100", nil, compat.Nodes{Products: products("MLA101").Products, Universal: kerneltest.Ptr(true)}, 0, "Invalid arguments for specific request"},
		{"not the seller", "MLA1100", func(e env) context.Context { return e.other }, products("MLA101"), 0, "the caller has no permission on item MLA1100"},
		{"no caller", "MLA1100", func(env) context.Context { return context.Background() }, products("MLA101"), 0, "the caller has no permission on item MLA1100"},
		{"unknown item", "MLA9", nil, products("MLA101"), 0, "item MLA9 not found"},
		{"bad item id", "x9", nil, products("MLA101"), 0, "ids are badly formatted"},
		{"bad product id", "MLA1100", nil, products("101"), 0, "ids are badly formatted"},
		{"unknown product", "MLA1100", nil, products("MLA999"), 0, "product MLA999 not found"},
		{"other site", "MLA1100", nil, products("MLB1"), 0, "products or domains are not of the item's site"},
		{"family of another site", "MLA1100", nil, family("MLB-CARS", "BRAND", "3"), 0, "products or domains are not of the item's site"},
		{"unknown family domain", "MLA1100", nil, family("MLA-NOPE", "BRAND", "3"), 0, "domain MLA-NOPE not found"},
		{"a parent", "MLA1100", nil, products("MLA100"), 0, "products are not all children"},
		{"domain not linked", "MLA1100", nil, products("MLA301"), 0, "the item's domain is not compatible with the specified domains"},
		{"no compatibilities in the category", "MLA1102", nil, products("MLA101"), 0, "no compatibility is configured for the item's category"},
		{"note not allowed", "MLA1101", nil, compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Note: kerneltest.Ptr("x")}}}, 0, "the item's category does not allow notes"},
		{"empty note where notes are not allowed", "MLA1101", nil, compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Note: kerneltest.Ptr("")}}}, 1, ""},
		{"restrictions not allowed", "MLA1101", nil, compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Restrictions: position("1")}}}, 0, "the item's category does not allow restrictions"},
		{"unknown restriction value", "MLA1100", nil, compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Restrictions: position("9")}}}, 0, "restrictions are not valid for the domains"},
		{"restriction on a domain without values", "MLA1100", nil, compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA201", Restrictions: position("1")}}}, 0, "restrictions are not valid for the domains"},
		{"client sends ITEM_COPY", "MLA1100", nil, compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", CreationSource: compat.CreationCopy}}}, 0, "creation_source is not valid"},
		{"accepting a suggestion", "MLA1100", nil, compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", CreationSource: compat.CreationSuggestions}}}, 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			ctx := e.seller
			if c.ctx != nil {
				ctx = c.ctx(e)
			}
			n, err := e.svc.Create(ctx, c.item, c.nodes)
			kerneltest.WantErr(t, "create", err, kerneltest.Want{Message: c.err})
			if n != c.want {
				t.Fatalf("created %d, want %d", n, c.want)
			}
			cs, _ := e.mem.Compatibilities(ctx, c.item)
			if len(cs) != c.want {
				t.Fatalf("stored %d, want %d", len(cs), c.want)
			}
		})
	}
}

func TestCreateStoresNoteRestrictionsAndModeration(t *testing.T) {
	e := newEnv(t)
	n := compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Note: kerneltest.Ptr("solo 5 puertas"), Restrictions: position("2")},
		{ID: "MLA102", Note: kerneltest.Ptr("ver http://x")}, {ID: "MLA103"}}}
	if _, err := e.svc.Create(e.seller, "MLA1100", n); err != nil {
		t.Fatal(err)
	}
	l, err := e.svc.List(e.seller, "MLA1100")
	if err != nil {
		t.Fatal(err)
	}
	first := l.Entries[0]
	if first.NoteStatus != compat.NotePending || first.CreationSource != compat.CreationManual || first.Source != compat.SourceSeller ||
		first.ProductName != "Ford Ka 2018" || compat.ReputationOf(first.Claims) != (compat.Reputation{Level: compat.LevelGreen}) {
		t.Fatalf("first = %+v", first)
	}
	r := first.Restrictions[0]
	if r.AttributeCode != 1 || r.AttributeValues[0].Values[0] != (compat.RestrictionVal{ValueID: "2", ValueName: "Trasera", ValueCode: 2}) {
		t.Fatalf("restriction codes = %+v", r)
	}
	if l.Entries[2].NoteStatus != compat.NoteNone {
		t.Fatalf("no note: status %s", l.Entries[2].NoteStatus)
	}
	msgs := e.mem.Messages()
	if len(msgs) != 2 || msgs[0].Type != compatport.TaskModerateNote {
		t.Fatalf("outbox = %+v, want two moderation jobs", msgs)
	}
	// The moderation job approves the clean note and rejects the link.
	for _, id := range []int{0, 1} {
		c := l.Entries[id]
		if err := e.svc.ModerateNote(e.seller, compatport.NoteJob{CompatibilityID: c.ID, ItemID: "MLA1100", Note: c.Note}); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := e.svc.Get(e.seller, "MLA1100", l.Entries[0].ID)
	b, _ := e.svc.Get(e.seller, "MLA1100", l.Entries[1].ID)
	if a.NoteStatus != compat.NoteApproved || b.NoteStatus != compat.NoteRejected {
		t.Fatalf("after moderation: %s, %s", a.NoteStatus, b.NoteStatus)
	}
	// A job for a note changed since leaves the new note alone.
	if _, err := e.svc.Put(e.seller, "MLA1100", compat.PutRequest{Update: &compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Note: kerneltest.Ptr("nueva")}}}}); err != nil {
		t.Fatal(err)
	}
	_ = e.svc.ModerateNote(e.seller, compatport.NoteJob{CompatibilityID: a.ID, ItemID: "MLA1100", Note: "solo 5 puertas"})
	if a, _ = e.svc.Get(e.seller, "MLA1100", a.ID); a.Note != "nueva" || a.NoteStatus != compat.NotePending {
		t.Fatalf("stale job changed the note: %+v", a.Compatibility)
	}
	// Empty note and restrictions remove them.
	if _, err := e.svc.Put(e.seller, "MLA1100", compat.PutRequest{Update: &compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Note: kerneltest.Ptr(""), Restrictions: &[]compat.Restriction{}}}}}); err != nil {
		t.Fatal(err)
	}
	if a, _ = e.svc.Get(e.seller, "MLA1100", a.ID); a.Note != "" || a.NoteStatus != compat.NoteNone || len(a.Restrictions) != 0 {
		t.Fatalf("after removal: %+v", a.Compatibility)
	}
}

func TestLimits(t *testing.T) {
	e := newEnv(t)
	s := e.mem.Seed()
	var atMax, past []string
	for i := 0; i < compat.MaxProducts+1; i++ {
		id := "MLA" + itoa(5000+i)
		s.Product(t, compat.Product{ID: id, SiteID: "MLA", DomainID: "MLA-CARS_AND_VANS", Name: id, ParentID: kerneltest.Ptr("MLA100")}, attr("BRAND", "77", "Renault"))
		past = append(past, id)
	}
	atMax = past[:compat.MaxProducts]
	_, err := e.svc.Create(e.seller, "MLA1100", products(past...))
	kerneltest.WantErr(t, "one product too many", err, kerneltest.Want{Message: compat.ErrTooManyProducts.Message})
	_, err = e.svc.Create(e.seller, "MLA1100", family("MLA-CARS_AND_VANS", "BRAND", "77"))
	kerneltest.WantErr(t, "a family one too large", err, kerneltest.Want{Message: compat.ErrTooManyProducts.Message})
	_, err = e.svc.Create(e.seller, "MLA1100", compat.Nodes{Products: products(past[:compat.MaxProducts-1]...).Products, Groups: []compat.GroupEntry{{IDs: []string{"MLA101", "MLA102"}}}})
	kerneltest.WantErr(t, "one short of the limit + 2 in a group", err, kerneltest.Want{Message: compat.ErrTooManyProducts.Message})
	n, err := e.svc.Create(e.seller, "MLA1100", products(atMax...))
	if err != nil || n != compat.MaxProducts {
		t.Fatalf("%d products: %d %v", compat.MaxProducts, n, err)
	}
	// One domain too many: one product in each of MaxDomains+1 linked domains.
	links := []compat.DomainLink{}
	var eleven []string
	for i := 1; i <= compat.MaxDomains+1; i++ {
		d := "MLA-V" + itoa(i)
		s.Domain(t, d, "MLA", nil)
		links = append(links, compat.DomainLink{CompatibleDomainID: d, Type: "EXTENSION"})
		id := "MLA" + itoa(400+i)
		s.Product(t, compat.Product{ID: id, SiteID: "MLA", DomainID: d, Name: d, ParentID: kerneltest.Ptr("MLA400")})
		eleven = append(eleven, id)
	}
	s.Domain(t, "MLA-CAR_SHOCK_ABSORBERS", "MLA", links)
	_, err = e.svc.Create(e.seller, "MLA1101", products(eleven...))
	kerneltest.WantErr(t, "one domain too many", err, kerneltest.Want{Message: compat.ErrTooManyDomains.Message})
	if n, err = e.svc.Create(e.seller, "MLA1101", products(eleven[:compat.MaxDomains]...)); err != nil || n != compat.MaxDomains {
		t.Fatalf("%d domains: %d %v", compat.MaxDomains, n, err)
	}
	// Updates are not bound by the 10-domain rule.
	if _, err = e.svc.Create(e.seller, "MLA1101", products(eleven[compat.MaxDomains])); err != nil {
		t.Fatal(err)
	}
	res, err := e.svc.Put(e.seller, "MLA1101", compat.PutRequest{Update: kerneltest.Ptr(products(eleven...))})
	if err != nil || res.Updated != 11 {
		t.Fatalf("update of 11 domains: %+v %v", res, err)
	}
	// Deletes are.
	var del []compat.Selector
	for i := 1; i <= 11; i++ {
		del = append(del, family("MLA-V"+itoa(i), "BRAND", "x").Families[0].Selector)
	}
	_, err = e.svc.Delete(e.seller, "MLA1101", del)
	kerneltest.WantErr(t, "delete of 11 domains", err, kerneltest.Want{Message: "more than 10 product domains"})
	if gone, err := e.svc.Delete(e.seller, "MLA1101", del[:10]); err != nil || len(gone) != 0 {
		t.Fatalf("delete of 10 domains matching nothing: %v %v", gone, err)
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

// TestStateTable walks the contract's state table of item compatibilities on
// one item, each step with its expected error.
func TestStateTable(t *testing.T) {
	e := newEnv(t)
	ctx := e.seller
	const item = "MLA1100"
	univ := compat.Nodes{Universal: kerneltest.Ptr(true)}
	hasException := func(want bool) func() error {
		return func() error {
			got, err := e.svc.Exception(ctx, item)
			if err == nil && got != want {
				return errors.New("has_exception mismatch")
			}
			return err
		}
	}
	steps := []struct {
		name string
		do   func() error
		err  string
	}{
		{"none: GET exception", hasException(false), ""},
		{"none: exception without comment", func() error { return e.svc.ReportException(ctx, item, nil) }, "comment is required"},
		{"none: exception of 256 characters", func() error { return e.svc.ReportException(ctx, item, kerneltest.Ptr(strings.Repeat("ñ", 256))) }, "comment has 256 characters; at most 255 are allowed"},
		{"none: exception of 255 characters", func() error { return e.svc.ReportException(ctx, item, kerneltest.Ptr(strings.Repeat("ñ", 255))) }, ""},
		{"exception reported: GET", hasException(true), ""},
		{"exception reported: again", func() error { return e.svc.ReportException(ctx, item, kerneltest.Ptr("x")) }, "the item already has an exception"},
		{"exception: create compatibilities", func() error { _, err := e.svc.Create(ctx, item, products("MLA101")); return err }, ""},
		{"has compatibilities: GET exception is false", hasException(false), ""},
		{"has compatibilities: exception", func() error { return e.svc.ReportException(ctx, item, kerneltest.Ptr("x")) }, "the item has compatibilities"},
		{"has compatibilities: universal", func() error { _, err := e.svc.Create(ctx, item, univ); return err }, "the item has compatibilities that must be removed first"},
		{"has compatibilities: delete all", func() error { _, err := e.svc.Delete(ctx, item, nil); return err }, ""},
		{"none again: the old exception stands", hasException(true), ""},
		{"none: universal", func() error { _, err := e.svc.Create(ctx, item, univ); return err }, ""},
		{"universal clears the exception", hasException(false), ""},
		{"universal: create", func() error { _, err := e.svc.Create(ctx, item, products("MLA101")); return err }, "the item is universal and must be reset before creating compatibilities"},
		{"universal: PUT create", func() error {
			_, err := e.svc.Put(ctx, item, compat.PutRequest{Create: kerneltest.Ptr(products("MLA101"))})
			return err
		}, "the item is universal and must be reset before creating compatibilities"},
		{"universal: exception", func() error { return e.svc.ReportException(ctx, item, kerneltest.Ptr("x")) }, "the item has compatibilities"},
		{"universal: PUT universal false and create", func() error {
			_, err := e.svc.Put(ctx, item, compat.PutRequest{Universal: kerneltest.Ptr(false), Create: kerneltest.Ptr(products("MLA102"))})
			return err
		}, ""},
		{"closed item: exception", func() error { return e.svc.ReportException(ctx, "MLA1103", kerneltest.Ptr("x")) }, "item MLA1103 is closed"},
		{"category without compatibilities: exception", func() error { return e.svc.ReportException(ctx, "MLA1102", kerneltest.Ptr("x")) }, "the item's category has no compatibilities"},
		{"category not requiring them: exception", func() error { return e.svc.ReportException(ctx, "MLA1101", kerneltest.Ptr("x")) }, "the item's category has no compatibilities"},
		{"category without universal", func() error { _, err := e.svc.Create(ctx, "MLA1101", univ); return err }, "no universal compatibility is configured for the item's category"},
	}
	for _, s := range steps {
		kerneltest.WantErr(t, s.name, s.do(), kerneltest.Want{Message: s.err})
	}
	l, _ := e.svc.List(ctx, item)
	if len(l.Entries) != 1 || l.Entries[0].ProductID != "MLA102" || l.UniversalDomains != nil {
		t.Fatalf("final list = %+v", l)
	}
}

func TestUniversalListsTopDomains(t *testing.T) {
	e := newEnv(t)
	if n, err := e.svc.Create(e.seller, "MLA1100", compat.Nodes{Universal: kerneltest.Ptr(true)}); err != nil || n != 1 {
		t.Fatalf("universal: %d %v", n, err)
	}
	l, _ := e.svc.List(e.seller, "MLA1100")
	if len(l.Entries) != 0 || strings.Join(l.UniversalDomains, ",") != "MLA-CARS_AND_VANS,MLA-MOTOS" {
		t.Fatalf("universal list = %+v", l)
	}
	// DELETE of all resets it.
	if _, err := e.svc.Delete(e.seller, "MLA1100", nil); err != nil {
		t.Fatal(err)
	}
	if l, _ = e.svc.List(e.seller, "MLA1100"); l.UniversalDomains != nil {
		t.Fatalf("after delete: %+v", l)
	}
}

func TestPutIsOneTransaction(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.Create(e.seller, "MLA1100", compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101"}, {ID: "MLA102", Note: kerneltest.Ptr("n")}}}); err != nil {
		t.Fatal(err)
	}
	before := len(e.mem.Messages())
	_, err := e.svc.Put(e.seller, "MLA1100", compat.PutRequest{Delete: kerneltest.Ptr(products("MLA101")),
		Update: &compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA102", Note: kerneltest.Ptr("m")}}}, Create: kerneltest.Ptr(products("MLA999"))})
	kerneltest.WantErr(t, "put with an unknown product", err, kerneltest.Want{Message: "product MLA999 not found"})
	cs, _ := e.mem.Compatibilities(e.seller, "MLA1100")
	if len(cs) != 2 || cs[1].Note != "n" || len(e.mem.Messages()) != before {
		t.Fatalf("a failed PUT left changes: %+v, %d messages", cs, len(e.mem.Messages()))
	}
	res, err := e.svc.Put(e.seller, "MLA1100", compat.PutRequest{Delete: kerneltest.Ptr(products("MLA101")), Create: kerneltest.Ptr(products("MLA101", "MLA103"))})
	if err != nil || res.Created != 2 || len(res.Deleted) != 1 {
		t.Fatalf("delete then create: %+v %v", res, err)
	}
	_, err = e.svc.Put(e.seller, "MLA1100", compat.PutRequest{Update: kerneltest.Ptr(products("MLA201"))})
	kerneltest.WantErr(t, "update of a vehicle the item lacks", err, kerneltest.Want{Message: "the item has no compatibility with product MLA201"})
	_, err = e.svc.Put(e.seller, "MLA1100", compat.PutRequest{})
	kerneltest.WantErr(t, "empty put", err, kerneltest.Want{Message: "Invalid arguments for specific request"})
}

// TestCopy checks the copy rule both ways: onto an item without
// compatibilities everything is copied, onto one with some only the
// vehicles it lacks; domains the target cannot take are skipped; notes and
// restrictions travel only with extended_information.
func TestCopy(t *testing.T) {
	e := newEnv(t)
	src := compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Note: kerneltest.Ptr("solo 5 puertas"), Restrictions: position("1")}, {ID: "MLA102"}, {ID: "MLA201"}}}
	if _, err := e.svc.Create(e.seller, "MLA1100", src); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		target   string
		before   []string
		extended bool
		copied   []string
		err      string
	}{
		{"onto an empty item: all", "MLA1101", nil, false, []string{"MLA101", "MLA102", "MLA201"}, ""},
		{"onto an item with some: only the new", "MLA1101", []string{"MLA102"}, false, []string{"MLA101", "MLA201"}, ""},
		{"onto moto parts: cars skipped", "MLA1104", nil, true, []string{"MLA201"}, ""},
		{"from an item of another seller", "MLA1101", nil, false, nil, "the caller has no permission on item MLA1200"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if _, err := e.svc.Create(e.seller, "MLA1100", src); err != nil {
				t.Fatal(err)
			}
			if c.before != nil {
				if _, err := e.svc.Create(e.seller, c.target, products(c.before...)); err != nil {
					t.Fatal(err)
				}
			}
			from := "MLA1100"
			if c.err != "" {
				from = "MLA1200"
			}
			res, err := e.svc.Put(e.seller, c.target, compat.PutRequest{CopyFrom: &compat.CopyRequest{ItemID: from, ExtendedInformation: c.extended}})
			kerneltest.WantErr(t, "copy", err, kerneltest.Want{Message: c.err})
			if c.err != "" {
				return
			}
			var got []string
			for _, en := range res.Copied.Entries {
				got = append(got, en.ProductID)
				if en.CreationSource != compat.CreationCopy {
					t.Fatalf("copied creation_source %s", en.CreationSource)
				}
			}
			if strings.Join(got, ",") != strings.Join(c.copied, ",") || res.Created != len(c.copied) {
				t.Fatalf("copied %v (%d), want %v", got, res.Created, c.copied)
			}
		})
	}
	// Extended information: notes and restrictions travel where the target
	// allows them (MLA1747), not onto MLA1101 (its category disables both).
	for _, c := range []struct {
		target, src string
		extended    bool
		note        string
		restr       int
	}{{"MLA1100", "", false, "", 0}, {"MLA1100", "", true, "solo 5 puertas", 1}, {"MLA1101", "", true, "", 0}} {
		e := newEnv(t)
		s := e.mem.Seed()
		s.Item(t, compat.Item{ID: "MLA1300", SiteID: "MLA", SellerID: 123, Title: "src", CategoryID: "MLA1747", DomainID: "MLA-CAR_SHOCK_ABSORBERS", Status: "active"})
		if _, err := e.svc.Create(e.seller, "MLA1300", src); err != nil {
			t.Fatal(err)
		}
		res, err := e.svc.Put(e.seller, c.target, compat.PutRequest{CopyFrom: &compat.CopyRequest{ItemID: "MLA1300", ExtendedInformation: c.extended}})
		if err != nil {
			t.Fatal(err)
		}
		first := res.Copied.Entries[0]
		if first.Note != c.note || len(first.Restrictions) != c.restr {
			t.Fatalf("%s extended=%v: note %q restrictions %d, want %q %d", c.target, c.extended, first.Note, len(first.Restrictions), c.note, c.restr)
		}
	}
	// A copy onto a universal item is refused.
	e = newEnv(t)
	_, _ = e.svc.Create(e.seller, "MLA1100", src)
	if _, err := e.svc.Create(e.seller, "MLA1200", compat.Nodes{Universal: kerneltest.Ptr(true)}); err == nil {
		t.Fatal("another seller made MLA1200 universal")
	}
	e.mem.Seed().Item(t, compat.Item{ID: "MLA1301", SiteID: "MLA", SellerID: 123, Title: "u", CategoryID: "MLA1747", DomainID: "MLA-CAR_SHOCK_ABSORBERS", Status: "active"})
	_, _ = e.svc.Create(e.seller, "MLA1301", compat.Nodes{Universal: kerneltest.Ptr(true)})
	_, err := e.svc.Put(e.seller, "MLA1301", compat.PutRequest{CopyFrom: &compat.CopyRequest{ItemID: "MLA1100"}})
	kerneltest.WantErr(t, "copy onto a universal item", err, kerneltest.Want{Message: "the item is universal and must be reset before creating compatibilities"})
}

func TestCopyJobIsIdempotent(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.Create(e.seller, "MLA1100", products("MLA101", "MLA102")); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.CopyLater(e.seller, "MLA1101", compat.CopyRequest{ItemID: "MLA1100"}); err != nil {
		t.Fatal(err)
	}
	msgs := e.mem.Messages()
	if len(msgs) != 1 || msgs[0].Type != compatport.TaskCopy {
		t.Fatalf("outbox = %+v", msgs)
	}
	j := compatport.CopyJob{ID: msgs[0].ID, ItemID: "MLA1101", SourceID: "MLA1100"}
	for i := 0; i < 2; i++ {
		if err := e.svc.Copy(context.Background(), j); err != nil {
			t.Fatal(err)
		}
		// The seller deletes one copied vehicle; a retried job must not bring it back.
		if i == 0 {
			cs, _ := e.mem.Compatibilities(e.seller, "MLA1101")
			if _, err := e.svc.DeleteOne(e.seller, "MLA1101", cs[0].ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cs, _ := e.mem.Compatibilities(e.seller, "MLA1101"); len(cs) != 1 {
		t.Fatalf("after a retried job: %d compatibilities, want 1", len(cs))
	}
}

// TestSnapshots: CONFIRMED, INCOMPATIBLE and NO_USER_SELECTION, the
// deleted flag, and the four error rows in the contract's order.
func TestSnapshots(t *testing.T) {
	e := newEnv(t)
	if _, err := e.svc.Create(e.seller, "MLA1100", compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Restrictions: position("1")}}}); err != nil {
		t.Fatal(err)
	}
	cs, _ := e.mem.Compatibilities(e.seller, "MLA1100")
	sel := func(p string) *sales.CompatibilitySelection {
		return &sales.CompatibilitySelection{ProductID: p, LabelValues: []sales.LabelValue{{Label: "Marca", ValueName: "Ford"}}}
	}
	seed := e.mem.Seed()
	for _, o := range []struct {
		id    int64
		sel   *sales.CompatibilitySelection
		claim bool
	}{{1, sel("MLA101"), true}, {2, sel("MLA103"), true}, {3, nil, true}, {4, sel("MLA101"), false}} {
		seed.Order(t, o.id, 123, 789, "MLA1100", o.claim)
		so := sales.Order{ID: o.id, SellerID: 123, Items: []sales.OrderItem{{ItemID: "MLA1100"}}, CompatibilitySelection: o.sel, HasClaim: o.claim}
		if err := e.svc.OrderStored(context.Background(), so, true); err != nil {
			t.Fatal(err)
		}
		// A later store of the same order takes no second snapshot.
		if err := e.svc.OrderStored(context.Background(), sales.Order{ID: o.id, Items: so.Items}, false); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		order   int64
		ctx     context.Context
		status  string
		compat  string
		product string
		err     string
	}{
		{1, e.seller, compat.Confirmed, cs[0].ID, "MLA101", ""},
		{2, e.seller, compat.Incompatible, "", "MLA103", ""},
		{3, e.seller, compat.NoUserSelection, "", "", ""},
		{99, e.seller, "", "", "", "snapshot for the order id not found"},
		{1, e.other, "", "", "", "caller must be the seller of the item"},
		{4, e.seller, "", "", "", "snapshot only for orders with claims"},
	}
	for _, c := range cases {
		s, err := e.svc.Snapshot(c.ctx, c.order)
		kerneltest.WantErr(t, "snapshot", err, kerneltest.Want{Message: c.err})
		if c.err == "" && (s.Status != c.status || s.CompatibilityID != c.compat || s.ProductID != c.product || s.CompatibilityDeleted) {
			t.Fatalf("order %d snapshot = %+v", c.order, s)
		}
	}
	// Reputation: orders 1 (claim) counts; 4 (no claim) does not.
	l, _ := e.svc.List(e.seller, "MLA1100")
	if compat.ReputationOf(l.Entries[0].Claims) != (compat.Reputation{Level: compat.LevelGreen, TotalClaims: 1}) {
		t.Fatalf("reputation = %+v", compat.ReputationOf(l.Entries[0].Claims))
	}
	if _, err := e.svc.DeleteOne(e.seller, "MLA1100", cs[0].ID); err != nil {
		t.Fatal(err)
	}
	if s, _ := e.svc.Snapshot(e.seller, 1); !s.CompatibilityDeleted || s.Status != compat.Confirmed {
		t.Fatalf("after delete = %+v", s)
	}
}

func TestReputationThreshold(t *testing.T) {
	for _, c := range []struct {
		claims int
		level  string
		red    int
	}{{0, compat.LevelGreen, 0}, {compat.RedThreshold, compat.LevelGreen, 0}, {compat.RedThreshold + 1, compat.LevelRed, 1}} {
		e := newEnv(t)
		if _, err := e.svc.Create(e.seller, "MLA1100", products("MLA101")); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < c.claims; i++ {
			id := int64(100 + i)
			e.mem.Seed().Order(t, id, 123, 789, "MLA1100", true)
			_ = e.svc.OrderStored(context.Background(), sales.Order{ID: id, Items: []sales.OrderItem{{ItemID: "MLA1100"}},
				CompatibilitySelection: &sales.CompatibilitySelection{ProductID: "MLA101"}}, true)
		}
		l, _ := e.svc.List(e.seller, "MLA1100")
		if got := compat.ReputationOf(l.Entries[0].Claims); got != (compat.Reputation{Level: c.level, TotalClaims: c.claims}) {
			t.Fatalf("%d claims: %+v", c.claims, got)
		}
		cards, err := e.svc.Cards(e.seller, "MLA-CARS_AND_VANS", "MLA1100", "", []string{compat.FilterReputation})
		if err != nil || cards[0].Quantity != c.red {
			t.Fatalf("%d claims: cards %+v %v", c.claims, cards, err)
		}
		sum, _ := e.svc.Summary(e.seller, "", []string{"MLA1100"})
		if sum[0].Claims != c.claims || sum[0].Compatibility != 1 {
			t.Fatalf("%d claims: summary %+v", c.claims, sum)
		}
	}
}

func TestSuggestionsAndSummary(t *testing.T) {
	e := newEnv(t)
	// MLA1200 (another seller) shares the catalog product MLA9000.
	if _, err := e.svc.Create(e.other, "MLA1200", products("MLA101", "MLA102")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Create(e.seller, "MLA1100", compat.Nodes{Products: []compat.ProductEntry{{ID: "MLA101", Note: kerneltest.Ptr("n")}, {ID: "MLA201", Restrictions: &[]compat.Restriction{}}}}); err != nil {
		t.Fatal(err)
	}
	cards, err := e.svc.Cards(e.seller, "MLA-CARS_AND_VANS", "MLA1100", "MLA101", []string{compat.FilterSuggested, compat.FilterReputation})
	if err != nil || len(cards) != 2 || cards[0].Filter != compat.FilterSuggested || cards[0].Quantity != 1 || cards[1].Quantity != 0 {
		t.Fatalf("cards = %+v %v", cards, err)
	}
	_, err = e.svc.Cards(e.seller, "MLA-CARS_AND_VANS", "MLA1100", "", []string{"OTHER"})
	kerneltest.WantErr(t, "unknown filter", err, kerneltest.Want{Message: "filters must be REPUTATION, SUGGESTED or both"})
	sum, err := e.svc.Summary(e.seller, "MLA-CARS_AND_VANS", []string{"MLA1100", "MLA1101"})
	if err != nil || len(sum) != 2 || sum[0] != (compat.Summary{ItemID: "MLA1100", ItemTitle: "Item MLA1100", Compatibility: 1, Notes: 1}) ||
		sum[1] != (compat.Summary{ItemID: "MLA1101", ItemTitle: "Item MLA1101"}) {
		t.Fatalf("summary = %+v %v", sum, err)
	}
	many := make([]string, compat.MaxSummaryItems+1)
	for i := range many {
		many[i] = "MLA1100"
	}
	_, err = e.svc.Summary(e.seller, "", many)
	kerneltest.WantErr(t, "101 items", err, kerneltest.Want{Message: "more than 100 items"})
	if _, err = e.svc.Summary(e.seller, "", many[:100]); err != nil {
		t.Fatalf("100 items: %v", err)
	}
	_, err = e.svc.Summary(e.seller, "", []string{"MLA1100", "MLA1200"})
	kerneltest.WantErr(t, "another seller's item", err, kerneltest.Want{Message: "the caller has no permission on item MLA1200"})
}
