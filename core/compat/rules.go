package compat

import (
	"fmt"
	"sort"
	"time"
)

// The rules of a create, update or delete, in the order of the contract's
// errors. compatsvc reads what they need and applies them in that order.

// Target is one vehicle product a request resolved to, with what its node
// says of it and, once linked, the link between the item's domain and the
// product's.
type Target struct {
	Product  Product
	Creation string
	Note     *string
	Restr    *[]Restriction
	Link     DomainLink
}

// Plan is a PUT once checked: its three node sets and its universal flag.
type Plan struct {
	Create, Update, Delete Nodes
	Universal              *bool
}

// ErrArguments is the universal row's general message with its detail.
func ErrArguments() error {
	return ErrInvalidArguments.
		WithCause("body", "at least one of products, products_groups, products_families or universal must be sent").
		WithCause("universal", "with universal no products may be sent")
}

// CheckCreate checks a POST's nodes: universal or products, never both nor
// neither. It reports whether the item is to become universal.
func CheckCreate(n Nodes) (bool, error) {
	universal := n.Universal != nil && *n.Universal
	if universal && !n.Empty() || !universal && n.Empty() {
		return false, ErrArguments()
	}
	return universal, CheckNodes(n, "")
}

// PlanPut checks a PUT other than a copy: something to do, no products
// beside universal true, and the nodes of each set well formed. The
// universal of the create node wins over the top-level one.
func PlanPut(req PutRequest) (Plan, error) {
	var p Plan
	for _, c := range []struct {
		from *Nodes
		to   *Nodes
	}{{req.Create, &p.Create}, {req.Update, &p.Update}, {req.Delete, &p.Delete}} {
		if c.from != nil {
			*c.to = *c.from
		}
	}
	p.Universal = req.Universal
	if p.Create.Universal != nil {
		p.Universal = p.Create.Universal
	}
	nothing := p.Create.Empty() && p.Update.Empty() && p.Delete.Empty()
	if nothing && p.Universal == nil || p.Universal != nil && *p.Universal && !(p.Create.Empty() && p.Update.Empty()) {
		return p, ErrArguments()
	}
	for _, c := range []struct {
		n    Nodes
		node string
	}{{p.Create, "create."}, {p.Update, "update."}, {p.Delete, "delete."}} {
		if err := CheckNodes(c.n, c.node); err != nil {
			return p, err
		}
	}
	return p, nil
}

// NamedProducts lists the product ids the products and groups nodes name.
func NamedProducts(n Nodes) []string {
	var ids []string
	for _, p := range n.Products {
		ids = append(ids, p.ID)
	}
	for _, g := range n.Groups {
		ids = append(ids, g.IDs...)
	}
	return ids
}

// CheckNamed is the 200-product rule on the products a request names
// outright, before anything is read.
func CheckNamed(ids []string) error {
	if len(ids) > MaxProducts {
		return ErrTooManyProducts.WithCause("products", fmt.Sprintf("%d products specified; at most %d", len(ids), MaxProducts))
	}
	return nil
}

// CheckCounted is the 200-product rule on the distinct products of a whole
// request, families included.
func CheckCounted(n int) error {
	if n > MaxProducts {
		return ErrTooManyProducts.WithCause("products", fmt.Sprintf("more than %d products in the request, families included", MaxProducts))
	}
	return nil
}

// CheckProduct checks a named product: it exists (found), is of the item's
// site and is a child product.
func CheckProduct(id string, p Product, found bool, site string) error {
	if !found {
		return ErrProductNotFound.Withf("product %s not found", id).WithCause("products", "product "+id+" does not exist")
	}
	if p.SiteID != site {
		return ErrOtherSite.WithCause("products", "product "+id+" is not of site "+site)
	}
	if p.ParentID == nil {
		return ErrNotChildren.WithCause("products", "product "+id+" is a parent product")
	}
	return nil
}

// CheckFamilyDomain checks that the domain d of a family is of the item's
// site.
func CheckFamilyDomain(f FamilyEntry, d Domain, site string) error {
	if d.SiteID != site {
		return ErrOtherSite.WithCause("products_families.domain_id", "domain "+f.DomainID+" is not of site "+site)
	}
	return nil
}

// Targets collects a request's targets once each, and counts their products
// in Counted, shared by the node sets of one request (the 200-product limit
// is per request).
type Targets struct {
	List    []Target
	Counted map[string]bool
	seen    map[string]bool
}

// NewTargets starts a collection counting into counted.
func NewTargets(counted map[string]bool) *Targets {
	return &Targets{Counted: counted, seen: map[string]bool{}}
}

// Add adds t unless its product is already in.
func (ts *Targets) Add(t Target) {
	if ts.seen[t.Product.ID] {
		return
	}
	ts.seen[t.Product.ID] = true
	ts.Counted[t.Product.ID] = true
	ts.List = append(ts.List, t)
}

// AddNamed checks and adds the products of the products and groups nodes,
// products first; products holds those the store found.
func (ts *Targets) AddNamed(n Nodes, products map[string]Product, site string) error {
	add := func(id, creation string, note *string, restr *[]Restriction) error {
		p, ok := products[id]
		if err := CheckProduct(id, p, ok, site); err != nil {
			return err
		}
		ts.Add(Target{Product: p, Creation: creation, Note: note, Restr: restr})
		return nil
	}
	for _, e := range n.Products {
		if err := add(e.ID, e.CreationSource, e.Note, e.Restrictions); err != nil {
			return err
		}
	}
	for _, g := range n.Groups {
		for _, id := range g.IDs {
			if err := add(id, g.CreationSource, g.Note, g.Restrictions); err != nil {
				return err
			}
		}
	}
	return nil
}

// AddFamily adds the products of a family; it reports whether the request
// is now over the 200-product limit, so no further family need be read.
func (ts *Targets) AddFamily(f FamilyEntry, ps []Product) (over bool) {
	for _, p := range ps {
		ts.Add(Target{Product: p, Creation: f.CreationSource, Note: f.Note, Restr: f.Restrictions})
	}
	return len(ts.Counted) > MaxProducts
}

// Domains are the vehicle domains of targets and families, sorted.
func Domains(ts []Target, families []FamilyEntry) []string {
	set := map[string]bool{}
	for _, t := range ts {
		set[t.Product.DomainID] = true
	}
	for _, f := range families {
		set[f.DomainID] = true
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// CheckDomainCount is the 10-domain rule: a create or a delete touches at
// most MaxDomains vehicle domains; an update is not bound.
func CheckDomainCount(op Op, domains []string) error {
	if op != OpUpdate && len(domains) > MaxDomains {
		return ErrTooManyDomains.WithCause("domains", fmt.Sprintf("%d product domains; at most %d", len(domains), MaxDomains))
	}
	return nil
}

// Link checks that the item's domain (own) links to every vehicle domain,
// then gives each target its link and checks its note and restrictions
// against the item's category and the link. It changes ts in place.
func Link(it Item, own Domain, domains []string, ts []Target) error {
	for _, d := range domains {
		if _, ok := own.Link(d); !ok {
			return ErrDomainMismatch.WithCause("domain_id", "item domain "+it.DomainID+" is not compatible with "+d)
		}
	}
	for i := range ts {
		t := &ts[i]
		t.Link, _ = own.Link(t.Product.DomainID)
		if t.Note != nil && *t.Note != "" && !it.Category.NotesAllowed() {
			return ErrNoteNotAllowed.WithCause("note", "category "+it.CategoryID+" does not allow notes")
		}
		if t.Restr == nil || len(*t.Restr) == 0 {
			continue
		}
		if !it.Category.RestrictionsAllowed() {
			return ErrRestrNotAllowed.WithCause("restrictions", "category "+it.CategoryID+" does not allow restrictions")
		}
		rs, err := CheckRestrictions(*t.Restr, t.Link)
		if err != nil {
			return err
		}
		t.Restr = &rs
	}
	return nil
}

// New is the compatibility a create makes of a target: MANUAL unless the
// node said otherwise, a note pending moderation.
func New(itemID string, t Target, id string, now time.Time) Compatibility {
	c := Compatibility{ID: id, ItemID: itemID, DomainID: t.Product.DomainID, ProductID: t.Product.ID,
		ProductName: t.Product.Name, Source: SourceSeller, CreationSource: t.Creation,
		NoteStatus: NoteNone, Restrictions: []Restriction{}, DateCreated: now, LastUpdated: now}
	if c.CreationSource == "" {
		c.CreationSource = CreationManual
	}
	if t.Note != nil && *t.Note != "" {
		c.Note, c.NoteStatus = *t.Note, NotePending
	}
	if t.Restr != nil {
		c.Restrictions = *t.Restr
	}
	return c
}

// Amend is c after an update by t: a changed note goes back to moderation
// (or to none when removed), restrictions sent replace the old ones.
func Amend(c Compatibility, t Target, now time.Time) Compatibility {
	if t.Note != nil && *t.Note != c.Note {
		c.Note, c.NoteStatus = *t.Note, NotePending
		if c.Note == "" {
			c.NoteStatus = NoteNone
		}
	}
	if t.Restr != nil {
		c.Restrictions = *t.Restr
	}
	c.LastUpdated = now
	return c
}

// OnlyFamilies reports whether n names families and nothing else: an update
// of families changes the item's vehicles they cover and skips the others.
func (n Nodes) OnlyFamilies() bool {
	return len(n.Families) > 0 && len(n.Products) == 0 && len(n.Groups) == 0
}

// Copied is the compatibility a copy makes of the source's c, linked by
// link: notes and restrictions travel only with extended and where the
// item's category allows them; restrictions the link refuses stay behind.
func Copied(it Item, c Compatibility, link DomainLink, extended bool, id string, now time.Time) Compatibility {
	n := Compatibility{ID: id, ItemID: it.ID, DomainID: c.DomainID, ProductID: c.ProductID, ProductName: c.ProductName,
		Source: SourceSeller, CreationSource: CreationCopy, NoteStatus: NoteNone,
		Restrictions: []Restriction{}, DateCreated: now, LastUpdated: now}
	if extended && c.Note != "" && it.Category.NotesAllowed() {
		n.Note, n.NoteStatus = c.Note, NotePending
	}
	if extended && len(c.Restrictions) > 0 && it.Category.RestrictionsAllowed() {
		if rs, err := CheckRestrictions(c.Restrictions, link); err == nil {
			n.Restrictions = rs
		}
	}
	return n
}
