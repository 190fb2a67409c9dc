package catalogsvc_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/catalog/catalogsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/accountport/accountporttest"
	"github.com/feria/feria/ports/catalogport"
	"github.com/feria/feria/ports/catalogport/catalogporttest"
	"github.com/feria/feria/ports/webhooksport/webhooksporttest"
	"github.com/google/go-cmp/cmp"
)

// users knows seller 123 of MLA and seller 200 of MLB; any other id is
// unknown, and 500 fails as a broken backend would.
var (
	errDown = errors.New("users down")
	users   = accountporttest.Users{
		Known: map[int64]account.User{123: {ID: 123, SiteID: "MLA"}, 200: {ID: 200, SiteID: "MLB"}},
		Down:  map[int64]error{500: errDown},
	}
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func setup(t *testing.T) (*catalogsvc.Service, *catalogporttest.Memory, *kerneltest.Clock) {
	t.Helper()
	m := catalogporttest.NewMemory()
	c := &kerneltest.Clock{At: t0}
	yes := true
	cat := catalogporttest.Category("MLA1747", &yes)
	if err := m.UpsertCategory(context.Background(), cat); err != nil {
		t.Fatal(err)
	}
	return newService(m, stores{}, c), m, c
}

// newService builds the service on m, with the official stores of sellers
// os, a clock and fakes of every other port.
func newService(m *catalogporttest.Memory, os catalogport.OfficialStores, c kernel.Clock) *catalogsvc.Service {
	return catalogsvc.New(catalogsvc.Deps{Store: m, Users: users, OfficialStores: os, Changes: &webhooksporttest.Changes{},
		Tx: kerneltest.Tx{}, Clock: c})
}

func TestPutItem(t *testing.T) {
	ctx := context.Background()
	body := func() catalog.Item {
		return catalog.Item{ID: "MLA1100", SiteID: "MLA", SellerID: 123, Title: "Amortiguador", CategoryID: "MLA1747"}
	}
	tests := []struct {
		name    string
		edit    func(*catalog.Item)
		kind    kernel.Kind
		field   string
		message string
	}{
		{"unknown seller", func(it *catalog.Item) { it.SellerID = 999 }, kernel.Invalid, "seller_id", "seller 999 does not exist"},
		{"seller of another site", func(it *catalog.Item) { it.SellerID = 200 }, kernel.Invalid, "seller_id", "seller 200 is a user of site MLB, not MLA"},
		{"unknown category", func(it *catalog.Item) { it.CategoryID = "MLA9999" }, kernel.Invalid, "category_id", "category MLA9999 does not exist"},
		{"unknown site", func(it *catalog.Item) { it.SiteID = "XXX" }, kernel.Invalid, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XXX"`},
		{"bad status", func(it *catalog.Item) { it.Status = "sold" }, kernel.Invalid, "status", `status must be one of active, paused, closed, under_review, inactive, got "sold"`},
		{"users backend down", func(it *catalog.Item) { it.SellerID = 500 }, kernel.Internal, "", "internal server error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, m, _ := setup(t)
			it := body()
			tt.edit(&it)
			_, err := s.PutItem(ctx, it)
			if tt.kind == kernel.Internal {
				if !errors.Is(err, errDown) {
					t.Fatalf("err = %v, want the backend's", err)
				}
			} else {
				kerneltest.WantErr(t, "", err, kerneltest.Want{Kind: tt.kind, Message: tt.message, Causes: []string{tt.field}})
			}
			if _, err := m.Item(ctx, it.ID); err == nil {
				t.Errorf("a rejected item was stored")
			}
		})
	}

	t.Run("defaults, dropped computed fields, dates", func(t *testing.T) {
		s, m, c := setup(t)
		it := body()
		it.Tags = []string{"good_quality_thumbnail", catalog.TagIncomplete, catalog.TagPending}
		it.Attributes = []catalog.ItemAttribute{{ID: catalog.AttrHasCompatibilities}, {ID: "BRAND", ValueName: kerneltest.Ptr("Acme")}}
		v, err := s.PutItem(ctx, it)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := m.Item(ctx, "MLA1100")
		if got.Status != "active" || got.CurrencyID != "ARS" || got.Condition != "new" || got.ListingTypeID != "gold_special" ||
			got.Shipping.Mode != "not_specified" || got.DomainID != "MLA-CAR_SHOCK_ABSORBERS" {
			t.Errorf("defaults: %+v", got)
		}
		if !reflect.DeepEqual(got.Tags, []string{"good_quality_thumbnail"}) || len(got.Attributes) != 1 || got.Attributes[0].ID != "BRAND" ||
			got.Attributes[0].Values == nil || got.DealIDs == nil || got.Shipping.Methods == nil || got.Shipping.FreeMethods == nil {
			t.Errorf("stored tags/attributes/lists: %+v", got)
		}
		// The view answers the computed tag: the category requires
		// compatibilities and the item has none.
		if diff := cmp.Diff([]string{"good_quality_thumbnail", catalog.TagIncomplete}, v.Tags); diff != "" {
			t.Errorf("view tags (-want +got):\n%s", diff)
		}
		if !got.DateCreated.Equal(t0) || !got.LastUpdated.Equal(t0) {
			t.Errorf("dates: %v %v", got.DateCreated, got.LastUpdated)
		}
		// The same body later changes nothing, not even last_updated.
		c.At = t0.Add(time.Hour)
		again, err := s.PutItem(ctx, it)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(v, again); diff != "" {
			t.Errorf("re-put changed the item (-want +got):\n%s", diff)
		}
		// A change keeps date_created and moves last_updated.
		it.Price = 90
		changed, err := s.PutItem(ctx, it)
		if err != nil {
			t.Fatal(err)
		}
		if !changed.DateCreated.Equal(t0) || !changed.LastUpdated.Equal(t0.Add(time.Hour)) || changed.Price != 90 {
			t.Errorf("changed: %v %v %v, want date_created kept, last_updated moved", changed.DateCreated, changed.LastUpdated, changed.Price)
		}
	})

	// Area C's country-wide free shipping names a free method without the
	// flag: the listing offers free shipping, and the view shows
	// free_methods in place of methods.
	t.Run("a free method makes shipping free", func(t *testing.T) {
		s, _, _ := setup(t)
		it := body()
		it.Shipping = catalog.ItemShipping{Mode: "me2", FreeMethods: []catalog.FreeMethod{{ID: 73328, Rule: catalog.FreeRule{FreeMode: "country"}}}}
		v, err := s.PutItem(ctx, it)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Shipping.FreeShipping || v.Shipping.Methods != nil || v.Shipping.FreeMethods == nil || len(*v.Shipping.FreeMethods) != 1 {
			t.Errorf("shipping %+v, want free with its free method and no methods", v.Shipping)
		}
	})
}

func TestItemView(t *testing.T) {
	ctx := context.Background()
	s, m, _ := setup(t)
	if _, err := s.ItemView(ctx, "MLA1"); !errors.Is(err, catalog.ErrItemNotFound) {
		t.Errorf("missing item: %v", err)
	}
	if _, err := s.PutItem(ctx, catalog.Item{ID: "MLA1100", SiteID: "MLA", SellerID: 123, Title: "A", CategoryID: "MLA1747"}); err != nil {
		t.Fatal(err)
	}
	m.AddCompatibility(ctx, "MLA1100", "MLA15197901")
	v, err := s.ItemView(ctx, "MLA1100")
	if err != nil {
		t.Fatal(err)
	}
	last := v.Attributes[len(v.Attributes)-1]
	if last.ID != catalog.AttrHasCompatibilities || len(v.Tags) != 0 {
		t.Errorf("view with a compatibility: tags %v, attributes %+v", v.Tags, v.Attributes)
	}
}

func TestPutCatalog(t *testing.T) {
	ctx := context.Background()
	s, _, c := setup(t)
	t.Run("category keeps date_created and fills lists", func(t *testing.T) {
		cat := catalog.Category{ID: "MLA2000", SiteID: "MLA", Name: "Frenos",
			ShippingPreferences: catalog.ShippingPreferences{Logistics: []catalog.Logistic{{Mode: "me2"}}}}
		got, err := s.PutCategory(ctx, cat)
		if err != nil {
			t.Fatal(err)
		}
		if got.AcceptedShippingMethods == nil || got.ShippingPreferences.Logistics[0].Types == nil || !got.DateCreated.Equal(t0) {
			t.Errorf("category: %+v", got)
		}
		c.At = t0.Add(time.Hour)
		if got, _ = s.PutCategory(ctx, cat); !got.DateCreated.Equal(t0) || !got.LastModified.Equal(t0) {
			t.Errorf("same body again: %v %v, want both kept", got.DateCreated, got.LastModified)
		}
		cat.Name = "Frenos y discos"
		if got, _ = s.PutCategory(ctx, cat); !got.DateCreated.Equal(t0) || !got.LastModified.Equal(t0.Add(time.Hour)) {
			t.Errorf("changed: %v %v, want date_created kept, last_modified moved", got.DateCreated, got.LastModified)
		}
		c.At = t0
	})
	tests := []struct {
		name    string
		put     func() error
		field   string
		message string
	}{
		{"category of an unknown site", func() error {
			_, err := s.PutCategory(ctx, catalog.Category{ID: "XXX1", SiteID: "XXX", Name: "n"})
			return err
		}, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XXX"`},
		{"category compatibilities status", func() error {
			_, err := s.PutCategory(ctx, catalog.Category{ID: "MLA1", SiteID: "MLA", Name: "n",
				Compatibilities: &catalog.CategoryCompatibilities{NoteStatus: "ON", RestrictionsStatus: "ENABLED", UniversalStatus: "ENABLED"}})
			return err
		}, "compatibilities.note_status", `compatibilities.note_status must be one of ENABLED, DISABLED, got "ON"`},
		{"domain id", func() error {
			_, err := s.PutDomain(ctx, catalog.Domain{ID: "MLA-lower", SiteID: "MLA"})
			return err
		}, "domain_id", `domain_id must be MLA-<DOMAIN_NAME>, got "MLA-lower"`},
		{"product of a missing domain", func() error {
			_, err := s.PutProduct(ctx, catalogporttest.Product("MLA15197901", nil, "2016"))
			return err
		}, "domain_id", "domain MLA-CARS_AND_VANS does not exist"},
		{"product its own parent", func() error {
			_, err := s.PutProduct(ctx, catalogporttest.Product("MLA15197901", kerneltest.Ptr("MLA15197901"), "2016"))
			return err
		}, "parent_id", "parent_id must not be the product itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kerneltest.WantErr(t, "", tt.put(), kerneltest.Want{Kind: kernel.Invalid, Message: tt.message, Causes: []string{tt.field}})
		})
	}
	t.Run("domain then product", func(t *testing.T) {
		d, err := s.PutDomain(ctx, catalog.Domain{ID: "MLA-CARS_AND_VANS", SiteID: "MLA", Main: true})
		if err != nil || d.Compatibilities == nil {
			t.Fatalf("domain: %+v %v", d, err)
		}
		p, err := s.PutProduct(ctx, catalogporttest.Product("MLA15197901", kerneltest.Ptr("MLA15197894"), "2016"))
		if err != nil || p.ID != "MLA15197901" {
			t.Fatalf("product: %+v %v", p, err)
		}
		if _, err := s.Product(ctx, "MLA1"); !errors.Is(err, catalog.ErrProductNotFound) {
			t.Errorf("missing product: %v", err)
		}
		if _, err := s.Domain(ctx, "MLA-NOPE"); !errors.Is(err, catalog.ErrDomainNotFound) {
			t.Errorf("missing domain: %v", err)
		}
		if _, err := s.Category(ctx, "MLA1"); !errors.Is(err, catalog.ErrCategoryNotFound) {
			t.Errorf("missing category: %v", err)
		}
	})
}

func TestSearchItems(t *testing.T) {
	s, m, _ := setup(t)
	bg := context.Background()
	for _, id := range []string{"MLA1102", "MLA1100", "MLA1101"} {
		if err := m.UpsertItem(bg, catalogporttest.Item(id, "MLA1747", 123, "")); err != nil {
			t.Fatal(err)
		}
	}
	m.AddCompatibility(bg, "MLA1100", "MLA15197901")
	seller := kernel.WithCaller(bg, kernel.Caller{UserID: 123, SiteID: "MLA"})
	tests := []struct {
		name  string
		ctx   context.Context
		q     catalog.ItemQuery
		page  paging.Request
		ids   []string
		total int
		err   *kernel.Error
		msg   string
	}{
		{name: "no caller", ctx: bg, q: catalog.ItemQuery{SellerID: 123}, page: paging.Default(), err: catalogsvc.ErrNoCaller, msg: "access token required"},
		{name: "another seller", ctx: seller, q: catalog.ItemQuery{SellerID: 124}, page: paging.Default(), err: catalogsvc.ErrNotSeller,
			msg: "the caller (user 123) may only search its own items, not those of seller 124"},
		{name: "unknown tag", ctx: seller, q: catalog.ItemQuery{SellerID: 123, Tags: []string{"new"}}, page: paging.Default(), err: catalogsvc.ErrInvalidTags,
			msg: `tags must be incomplete_compatibilities or pending_compatibilities, got "new"`},
		{name: "all, by id", ctx: seller, q: catalog.ItemQuery{SellerID: 123}, page: paging.Default(), ids: []string{"MLA1100", "MLA1101", "MLA1102"}, total: 3},
		{name: "incomplete", ctx: seller, q: catalog.ItemQuery{SellerID: 123, Tags: []string{catalog.TagIncomplete}}, page: paging.Default(), ids: []string{"MLA1101", "MLA1102"}, total: 2},
		{name: "a page", ctx: seller, q: catalog.ItemQuery{SellerID: 123}, page: paging.Request{Limit: 1, Offset: 1}, ids: []string{"MLA1101"}, total: 3},
		{name: "status", ctx: seller, q: catalog.ItemQuery{SellerID: 123, Status: "paused"}, page: paging.Default(), ids: []string{}, total: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := s.SearchItems(tt.ctx, tt.q, tt.page)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || kernel.MessageOf(err) != tt.msg {
					t.Fatalf("err = %v, want %v %q", err, tt.err, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.IDs, tt.ids) || r.Page != tt.page.Of(tt.total) {
				t.Errorf("got %v %+v, want %v total %d", r.IDs, r.Page, tt.ids, tt.total)
			}
		})
	}
}

// stores binds seller 123 to the official stores of its map, per site.
type stores map[string][]int64

func (s stores) OfficialStoreIDs(_ context.Context, userID int64, siteID string) ([]int64, error) {
	if userID == 123 {
		return s[siteID], nil
	}
	return nil, nil
}

func TestPutItemOfficialStore(t *testing.T) {
	ctx := context.Background()
	required := "official_store_id is required for seller 123, bound to several official stores; allowed ids: 5001, 5002"
	tests := []struct {
		name   string
		stores stores
		store  *int64
		is     error
		msg    string
		cause  string
	}{
		{name: "no bindings, none named", stores: stores{}},
		{name: "no bindings, any named", stores: stores{}, store: kerneltest.Ptr[int64](9999)},
		{name: "bindings on another site only", stores: stores{"MLB": {7001, 7002}}},
		{name: "one binding, none named", stores: stores{"MLA": {5001}}},
		{name: "one binding, it named", stores: stores{"MLA": {5001}}, store: kerneltest.Ptr[int64](5001)},
		{name: "several, one named", stores: stores{"MLA": {5001, 5002}}, store: kerneltest.Ptr[int64](5002)},
		{name: "several, none named", stores: stores{"MLA": {5001, 5002}}, is: catalog.ErrOfficialStoreRequired, msg: required, cause: "item.official_store_id.invalid"},
		{name: "one binding, another named", stores: stores{"MLA": {5001}}, store: kerneltest.Ptr[int64](5003), is: catalog.ErrOfficialStoreNotAllowed,
			msg: "body.invalid_official_store_id", cause: "official_store_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := catalogporttest.NewMemory()
			yes := true
			if err := m.UpsertCategory(ctx, catalogporttest.Category("MLA1747", &yes)); err != nil {
				t.Fatal(err)
			}
			s := newService(m, tt.stores, &kerneltest.Clock{At: t0})
			v, err := s.PutItem(ctx, catalog.Item{ID: "MLA1100", SiteID: "MLA", SellerID: 123, Title: "A", CategoryID: "MLA1747", OfficialStoreID: tt.store})
			if tt.is == nil {
				if err != nil || !reflect.DeepEqual(v.OfficialStoreID, tt.store) {
					t.Fatalf("PutItem = %v %v, want stored with %v", v.OfficialStoreID, err, tt.store)
				}
				return
			}
			var e *kernel.Error
			if !errors.Is(err, tt.is) || !errors.As(err, &e) || e.Message != tt.msg || len(e.Causes) != 1 || e.Causes[0].Code != tt.cause {
				t.Fatalf("err = %#v, want %v %q with cause %s", err, tt.is, tt.msg, tt.cause)
			}
			if _, err := m.Item(ctx, "MLA1100"); err == nil {
				t.Errorf("a refused item was stored")
			}
		})
	}
}

// A scan answers blocks until one comes back empty, whose scroll_id is "";
// each scroll_id continues the query it was issued for.
func TestScanItems(t *testing.T) {
	s, m, _ := setup(t)
	bg := context.Background()
	for _, id := range []string{"MLA1102", "MLA1100", "MLA1101"} {
		it := catalogporttest.Item(id, "MLA1747", 123, "")
		if id == "MLA1101" {
			it.Status = "paused"
		}
		if err := m.UpsertItem(bg, it); err != nil {
			t.Fatal(err)
		}
	}
	seller := kernel.WithCaller(bg, kernel.Caller{UserID: 123, SiteID: "MLA"})
	active := catalog.ItemQuery{SellerID: 123, Status: "active"}
	r, err := s.ScanItems(seller, active, "", 1)
	if err != nil || !reflect.DeepEqual(r.IDs, []string{"MLA1100"}) || r.Total != 2 || r.Limit != 1 || r.ScrollID == "" {
		t.Fatalf("first block: %+v %v", r, err)
	}
	// The scroll carries the status: the query sent beside it is not read.
	r, err = s.ScanItems(seller, catalog.ItemQuery{SellerID: 123}, r.ScrollID, 5)
	if err != nil || !reflect.DeepEqual(r.IDs, []string{"MLA1102"}) || r.Total != 2 || r.ScrollID == "" {
		t.Fatalf("second block: %+v %v", r, err)
	}
	r, err = s.ScanItems(seller, active, r.ScrollID, 5)
	if err != nil || len(r.IDs) != 0 || r.ScrollID != "" {
		t.Fatalf("last block: %+v %v", r, err)
	}
	for _, c := range []struct {
		name   string
		ctx    context.Context
		q      catalog.ItemQuery
		scroll string
		limit  int
		err    *kernel.Error
	}{
		{"no caller", bg, active, "", 1, catalogsvc.ErrNoCaller},
		{"another seller", seller, catalog.ItemQuery{SellerID: 124}, "", 1, catalogsvc.ErrNotSeller},
		{"limit 0", seller, active, "", 0, paging.ErrInvalid},
		{"garbage", seller, active, "%%%", 1, catalog.ErrScrollID},
		{"another seller's scroll", seller, active, catalog.ScrollAfter(catalog.ItemQuery{SellerID: 124}, "MLA1").ID(), 1, catalog.ErrScrollID},
		{"a scroll with an unknown tag", seller, active, catalog.ScrollAfter(catalog.ItemQuery{SellerID: 123, Tags: []string{"x"}}, "MLA1").ID(), 1, catalogsvc.ErrInvalidTags},
	} {
		if _, err := s.ScanItems(c.ctx, c.q, c.scroll, c.limit); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
}

func TestSearchSite(t *testing.T) {
	s, m, _ := setup(t)
	bg := context.Background()
	it := catalogporttest.Item("MLA1100", "MLA1747", 123, "")
	it.Title = "Amortiguador Delantero"
	if err := m.UpsertItem(bg, it); err != nil {
		t.Fatal(err)
	}
	r, err := s.SearchSite(bg, catalog.SiteQuery{SiteID: "MLA", Words: catalog.SearchWords("delan")}, paging.Default())
	if err != nil || len(r.Items) != 1 || r.Items[0].ID != "MLA1100" || r.Page != paging.Default().Of(1) {
		t.Fatalf("search: %+v %v", r, err)
	}
	_, err = s.SearchSite(bg, catalog.SiteQuery{SiteID: "MLX"}, paging.Default())
	if !errors.Is(err, catalogsvc.ErrSite) || kernel.MessageOf(err) != `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "MLX"` {
		t.Errorf("unknown site: %v", err)
	}
}
