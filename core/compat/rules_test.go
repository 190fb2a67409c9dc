package compat

import (
	"fmt"
	"testing"
	"time"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/google/go-cmp/cmp"
)

func product(id, domain string) Product {
	return Product{ID: id, SiteID: "MLA", DomainID: domain, Name: "car " + id, ParentID: kerneltest.Ptr("MLA1")}
}

func TestCheckCreate(t *testing.T) {
	yes, no := kerneltest.Ptr(true), kerneltest.Ptr(false)
	some := []ProductEntry{{ID: "MLA2"}}
	for _, c := range []struct {
		name      string
		n         Nodes
		universal bool
		want      error
	}{
		{"products", Nodes{Products: some}, false, nil},
		{"universal", Nodes{Universal: yes}, true, nil},
		{"nothing", Nodes{}, false, ErrInvalidArguments},
		{"universal false alone", Nodes{Universal: no}, false, ErrInvalidArguments},
		{"universal and products", Nodes{Universal: yes, Products: some}, false, ErrInvalidArguments},
		{"bad id", Nodes{Products: []ProductEntry{{ID: "2"}}}, false, ErrBadFormat},
	} {
		got, err := CheckCreate(c.n)
		kerneltest.WantErr(t, c.name, err, kerneltest.Want{Is: c.want})
		if got != c.universal {
			t.Errorf("%s: universal %v, want %v", c.name, got, c.universal)
		}
	}
}

func TestPlanPut(t *testing.T) {
	yes, no := kerneltest.Ptr(true), kerneltest.Ptr(false)
	some := &Nodes{Products: []ProductEntry{{ID: "MLA2"}}}
	for _, c := range []struct {
		name      string
		req       PutRequest
		universal *bool
		want      kerneltest.Want
	}{
		{"delete", PutRequest{Delete: some}, nil, kerneltest.Want{}},
		{"universal false", PutRequest{Universal: no}, no, kerneltest.Want{}},
		{"universal of create wins", PutRequest{Universal: no, Create: &Nodes{Universal: yes}}, yes, kerneltest.Want{}},
		{"universal true beside a delete", PutRequest{Universal: yes, Delete: some}, yes, kerneltest.Want{}},
		{"nothing", PutRequest{}, nil, kerneltest.Want{Is: ErrInvalidArguments, Causes: []string{"body", "universal"}}},
		{"empty nodes", PutRequest{Create: &Nodes{}, Update: &Nodes{}}, nil, kerneltest.Want{Is: ErrInvalidArguments, Causes: []string{"body", "universal"}}},
		{"universal true beside an update", PutRequest{Universal: yes, Update: some}, yes, kerneltest.Want{Is: ErrInvalidArguments, Causes: []string{"body", "universal"}}},
		{"bad create", PutRequest{Create: &Nodes{Products: []ProductEntry{{}}}}, nil, kerneltest.Want{Is: ErrIncomplete, Causes: []string{"create.products.id"}}},
		{"bad update", PutRequest{Update: &Nodes{Groups: []GroupEntry{{}}}}, nil, kerneltest.Want{Is: ErrIncomplete, Causes: []string{"update.products_group.ids"}}},
		{"bad delete", PutRequest{Delete: &Nodes{Products: []ProductEntry{{ID: "x"}}}}, nil, kerneltest.Want{Is: ErrBadFormat, Causes: []string{"delete.products.id"}}},
	} {
		p, err := PlanPut(c.req)
		kerneltest.WantErr(t, c.name, err, c.want)
		if err == nil && !cmp.Equal(p.Universal, c.universal) {
			t.Errorf("%s: universal %v, want %v", c.name, p.Universal, c.universal)
		}
		if err == nil && c.req.Delete != nil && len(p.Delete.Products) != len(c.req.Delete.Products) {
			t.Errorf("%s: delete %+v, want %+v", c.name, p.Delete, *c.req.Delete)
		}
	}
}

// The 200-product rule: on the products named outright, then on the
// distinct products of the request, families included.
func TestTheProductLimit(t *testing.T) {
	ids := func(n int) []string { return make([]string, n) }
	for _, c := range []struct {
		n    int
		want kerneltest.Want
	}{{0, kerneltest.Want{}}, {MaxProducts, kerneltest.Want{}}, {MaxProducts + 1, kerneltest.Want{Is: ErrTooManyProducts, Causes: []string{"products"}}}} {
		kerneltest.WantErr(t, "named", CheckNamed(ids(c.n)), c.want)
		kerneltest.WantErr(t, "counted", CheckCounted(c.n), c.want)
	}
	n := Nodes{Products: []ProductEntry{{ID: "MLA2"}}, Groups: []GroupEntry{{IDs: []string{"MLA3", "MLA2"}}}}
	if diff := cmp.Diff([]string{"MLA2", "MLA3", "MLA2"}, NamedProducts(n)); diff != "" {
		t.Errorf("NamedProducts (-want +got):\n%s", diff)
	}
}

func TestCheckProduct(t *testing.T) {
	parent := product("MLA1", "MLA-CARS")
	parent.ParentID = nil
	other := product("MLB2", "MLB-CARS")
	other.SiteID = "MLB"
	for _, c := range []struct {
		name  string
		p     Product
		found bool
		want  error
	}{
		{"child", product("MLA2", "MLA-CARS"), true, nil},
		{"missing", Product{}, false, ErrProductNotFound},
		{"other site", other, true, ErrOtherSite},
		{"parent", parent, true, ErrNotChildren},
	} {
		want := kerneltest.Want{Is: c.want}
		if c.want != nil {
			want.Causes = []string{"products"}
		}
		kerneltest.WantErr(t, c.name, CheckProduct(c.p.ID, c.p, c.found, "MLA"), want)
	}
	f := FamilyEntry{Selector: Selector{DomainID: "MLB-CARS"}}
	kerneltest.WantErr(t, "family of the site", CheckFamilyDomain(f, Domain{ID: "MLB-CARS", SiteID: "MLB"}, "MLB"), kerneltest.Want{})
	kerneltest.WantErr(t, "family of another site", CheckFamilyDomain(f, Domain{ID: "MLB-CARS", SiteID: "MLB"}, "MLA"),
		kerneltest.Want{Is: ErrOtherSite, Causes: []string{"products_families.domain_id"}})
}

func TestTargets(t *testing.T) {
	products := map[string]Product{"MLA2": product("MLA2", "MLA-CARS"), "MLA3": product("MLA3", "MLA-TRUCKS")}
	counted := map[string]bool{"MLA9": true}
	ts := NewTargets(counted)
	n := Nodes{Products: []ProductEntry{{ID: "MLA2", Note: kerneltest.Ptr("a")}},
		Groups: []GroupEntry{{IDs: []string{"MLA2", "MLA3"}, CreationSource: CreationSuggestions}}}
	if err := ts.AddNamed(n, products, "MLA"); err != nil {
		t.Fatal(err)
	}
	want := []Target{{Product: products["MLA2"], Note: kerneltest.Ptr("a")}, {Product: products["MLA3"], Creation: CreationSuggestions}}
	if diff := cmp.Diff(want, ts.List); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"MLA9": true, "MLA2": true, "MLA3": true}, counted); diff != "" {
		t.Errorf("counted (-want +got):\n%s", diff)
	}
	// The first failing product stops the collection: products before groups.
	err := NewTargets(map[string]bool{}).AddNamed(Nodes{Products: []ProductEntry{{ID: "MLA4"}}, Groups: []GroupEntry{{IDs: []string{"MLA5"}}}}, products, "MLA")
	if err == nil || err.(*kernel.Error).Message != "product MLA4 not found" {
		t.Errorf("AddNamed of unknown products = %v", err)
	}
	family := make([]Product, MaxProducts-len(counted))
	for i := range family {
		family[i] = product(fmt.Sprintf("MLA%d", 1000+i), "MLA-CARS")
	}
	if over := ts.AddFamily(FamilyEntry{}, family); over {
		t.Errorf("%d products are over the limit", len(counted))
	}
	if over := ts.AddFamily(FamilyEntry{}, []Product{product("MLA7", "MLA-CARS")}); !over {
		t.Errorf("%d products are not over the limit", len(counted))
	}
}

func TestDomainCount(t *testing.T) {
	ts := []Target{{Product: product("MLA2", "MLA-B")}, {Product: product("MLA3", "MLA-A")}, {Product: product("MLA4", "MLA-B")}}
	got := Domains(ts, []FamilyEntry{{Selector: Selector{DomainID: "MLA-C"}}})
	if diff := cmp.Diff([]string{"MLA-A", "MLA-B", "MLA-C"}, got); diff != "" {
		t.Errorf("Domains (-want +got):\n%s", diff)
	}
	eleven := make([]string, MaxDomains+1)
	for _, c := range []struct {
		op      Op
		domains []string
		want    error
	}{
		{OpCreate, eleven[:MaxDomains], nil}, {OpCreate, eleven, ErrTooManyDomains},
		{OpDelete, eleven, ErrTooManyDomains}, {OpUpdate, eleven, nil},
	} {
		kerneltest.WantErr(t, "domains", CheckDomainCount(c.op, c.domains), kerneltest.Want{Is: c.want})
	}
}

func TestLink(t *testing.T) {
	link := DomainLink{CompatibleDomainID: "MLA-CARS", Type: "EXTENSION", RestrictionValues: []RestrictionValue{
		{AttributeID: "POSITION", Values: []ValueEntry{{ValueID: "1", ValueName: "Front"}}}}}
	own := Domain{ID: "MLA-PARTS", Links: []DomainLink{link, {CompatibleDomainID: "MLA-BIKES", Type: "OTHER"}}}
	open := &CategorySettings{NoteStatus: Enabled, RestrictionsStatus: Enabled}
	front := &[]Restriction{{AttributeID: "POSITION", AttributeValues: []RestrictionSet{{Values: []RestrictionVal{{ValueID: "1"}}}}}}
	checked := []Restriction{{AttributeID: "POSITION", AttributeCode: 1, AttributeValues: []RestrictionSet{{Values: []RestrictionVal{{ValueID: "1", ValueName: "Front", ValueCode: 1}}}}}}
	car := product("MLA2", "MLA-CARS")
	for _, c := range []struct {
		name     string
		category *CategorySettings
		domains  []string
		t        Target
		want     error
	}{
		{"bare", nil, []string{"MLA-CARS"}, Target{Product: car}, nil},
		{"empty note and restrictions anywhere", nil, []string{"MLA-CARS"}, Target{Product: car, Note: kerneltest.Ptr(""), Restr: &[]Restriction{}}, nil},
		{"note and restrictions", open, []string{"MLA-CARS"}, Target{Product: car, Note: kerneltest.Ptr("n"), Restr: front}, nil},
		{"not an extension", open, []string{"MLA-BIKES"}, Target{Product: car}, ErrDomainMismatch},
		{"no link", open, []string{"MLA-CARS", "MLA-TRUCKS"}, Target{Product: car}, ErrDomainMismatch},
		{"note not allowed", &CategorySettings{}, []string{"MLA-CARS"}, Target{Product: car, Note: kerneltest.Ptr("n")}, ErrNoteNotAllowed},
		{"restrictions not allowed", &CategorySettings{NoteStatus: Enabled}, []string{"MLA-CARS"}, Target{Product: car, Restr: front}, ErrRestrNotAllowed},
		{"bad restriction", open, []string{"MLA-CARS"}, Target{Product: car, Restr: &[]Restriction{{AttributeID: "SIDE"}}}, ErrBadRestriction},
	} {
		ts := []Target{c.t}
		err := Link(Item{DomainID: "MLA-PARTS", CategoryID: "MLA5", Category: c.category}, own, c.domains, ts)
		kerneltest.WantErr(t, c.name, err, kerneltest.Want{Is: c.want})
		if err == nil && !cmp.Equal(ts[0].Link, link) {
			t.Errorf("%s: link %+v", c.name, ts[0].Link)
		}
		if c.name == "note and restrictions" {
			if diff := cmp.Diff(checked, *ts[0].Restr); diff != "" {
				t.Errorf("restrictions (-want +got):\n%s", diff)
			}
		}
	}
}

func TestNewAmendCopied(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)
	car := product("MLA2", "MLA-CARS")
	rs := []Restriction{{AttributeID: "POSITION"}}
	bare := Compatibility{ID: "c1", ItemID: "MLA100", DomainID: "MLA-CARS", ProductID: "MLA2", ProductName: car.Name,
		Source: SourceSeller, CreationSource: CreationManual, NoteStatus: NoteNone, Restrictions: []Restriction{}, DateCreated: now, LastUpdated: now}
	with := func(f func(*Compatibility)) Compatibility { c := bare; f(&c); return c }
	for _, c := range []struct {
		name string
		got  Compatibility
		want Compatibility
	}{
		{"new bare", New("MLA100", Target{Product: car}, "c1", now), bare},
		{"new with all", New("MLA100", Target{Product: car, Creation: CreationSuggestions, Note: kerneltest.Ptr("n"), Restr: &rs}, "c1", now),
			with(func(c *Compatibility) {
				c.CreationSource, c.Note, c.NoteStatus, c.Restrictions = CreationSuggestions, "n", NotePending, rs
			})},
		{"new empty note", New("MLA100", Target{Product: car, Note: kerneltest.Ptr("")}, "c1", now), bare},
		{"amend nothing", Amend(bare, Target{}, later), with(func(c *Compatibility) { c.LastUpdated = later })},
		{"amend note", Amend(bare, Target{Note: kerneltest.Ptr("n"), Restr: &rs}, later),
			with(func(c *Compatibility) {
				c.Note, c.NoteStatus, c.Restrictions, c.LastUpdated = "n", NotePending, rs, later
			})},
		{"amend same note", Amend(with(func(c *Compatibility) { c.Note, c.NoteStatus = "n", NoteApproved }), Target{Note: kerneltest.Ptr("n")}, later),
			with(func(c *Compatibility) { c.Note, c.NoteStatus, c.LastUpdated = "n", NoteApproved, later })},
		{"amend note removed", Amend(with(func(c *Compatibility) { c.Note, c.NoteStatus = "n", NoteApproved }), Target{Note: kerneltest.Ptr("")}, later),
			with(func(c *Compatibility) { c.LastUpdated = later })},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
	link := DomainLink{CompatibleDomainID: "MLA-CARS", RestrictionValues: []RestrictionValue{{AttributeID: "POSITION"}}}
	src := with(func(c *Compatibility) { c.ID, c.ItemID, c.Note, c.Restrictions = "s1", "MLA900", "n", rs })
	copied := with(func(c *Compatibility) { c.CreationSource = CreationCopy })
	open := Item{ID: "MLA100", Category: &CategorySettings{NoteStatus: Enabled, RestrictionsStatus: Enabled}}
	for _, c := range []struct {
		name     string
		it       Item
		link     DomainLink
		extended bool
		want     Compatibility
	}{
		{"plain", open, link, false, copied},
		{"extended", open, link, true, with(func(c *Compatibility) {
			c.CreationSource, c.Note, c.NoteStatus, c.Restrictions = CreationCopy, "n", NotePending, []Restriction{{AttributeID: "POSITION", AttributeCode: 1, AttributeValues: []RestrictionSet{}}}
		})},
		{"extended, category closed", Item{ID: "MLA100"}, link, true, copied},
		{"extended, restriction refused", open, DomainLink{}, true, with(func(c *Compatibility) {
			c.CreationSource, c.Note, c.NoteStatus = CreationCopy, "n", NotePending
		})},
	} {
		if diff := cmp.Diff(c.want, Copied(c.it, src, c.link, c.extended, "c1", now)); diff != "" {
			t.Errorf("Copied %s (-want +got):\n%s", c.name, diff)
		}
	}
}
