package compatapi

import (
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// --- request bodies ---

type valueJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type attrJSON struct {
	ID        string      `json:"id"`
	ValueID   *string     `json:"value_id"`
	ValueName *string     `json:"value_name"`
	ValueIDs  []string    `json:"value_ids"`
	Values    []valueJSON `json:"values"`
}

type selectorJSON struct {
	DomainID   string     `json:"domain_id"`
	Attributes []attrJSON `json:"attributes"`
}

func (s selectorJSON) selector() compat.Selector {
	sel := compat.Selector{DomainID: s.DomainID, Attributes: []compat.SelectorAttr{}}
	for _, a := range s.Attributes {
		sa := compat.SelectorAttr{ID: a.ID}
		if a.ValueID != nil && *a.ValueID != "" {
			sa.ValueIDs = append(sa.ValueIDs, *a.ValueID)
		}
		if a.ValueName != nil && *a.ValueName != "" {
			sa.ValueNames = append(sa.ValueNames, *a.ValueName)
		}
		for _, v := range a.ValueIDs {
			if v != "" {
				sa.ValueIDs = append(sa.ValueIDs, v)
			}
		}
		// The delete-by-family form: values of {id, name}.
		for _, v := range a.Values {
			if v.ID != "" {
				sa.ValueIDs = append(sa.ValueIDs, v.ID)
			} else if v.Name != "" {
				sa.ValueNames = append(sa.ValueNames, v.Name)
			}
		}
		sel.Attributes = append(sel.Attributes, sa)
	}
	return sel
}

type productJSON struct {
	ID             string                `json:"id"`
	CreationSource string                `json:"creation_source"`
	Note           *string               `json:"note"`
	Restrictions   *[]compat.Restriction `json:"restrictions"`
}

type groupJSON struct {
	IDs            []string              `json:"ids"`
	CreationSource string                `json:"creation_source"`
	Note           *string               `json:"note"`
	Restrictions   *[]compat.Restriction `json:"restrictions"`
}

type familyJSON struct {
	selectorJSON
	CreationSource string                `json:"creation_source"`
	Note           *string               `json:"note"`
	Restrictions   *[]compat.Restriction `json:"restrictions"`
}

type copyJSON struct {
	ItemID              string `json:"item_id"`
	ExtendedInformation bool   `json:"extended_information"`
}

type nodesJSON struct {
	Products         []productJSON `json:"products"`
	ProductsGroup    []groupJSON   `json:"products_group"`
	ProductsGroups   []groupJSON   `json:"products_groups"` // the spelling of the marketplace's error detail
	ProductsFamilies []familyJSON  `json:"products_families"`
	Universal        *bool         `json:"universal"`
	ItemToCopy       *copyJSON     `json:"item_to_copy"`
}

func (n nodesJSON) nodes() compat.Nodes {
	out := compat.Nodes{Universal: n.Universal}
	for _, p := range n.Products {
		out.Products = append(out.Products, compat.ProductEntry{ID: p.ID, CreationSource: p.CreationSource, Note: p.Note, Restrictions: p.Restrictions})
	}
	for _, g := range append(append([]groupJSON{}, n.ProductsGroup...), n.ProductsGroups...) {
		out.Groups = append(out.Groups, compat.GroupEntry{IDs: g.IDs, CreationSource: g.CreationSource, Note: g.Note, Restrictions: g.Restrictions})
	}
	for _, f := range n.ProductsFamilies {
		out.Families = append(out.Families, compat.FamilyEntry{Selector: f.selector(), CreationSource: f.CreationSource, Note: f.Note, Restrictions: f.Restrictions})
	}
	return out
}

// --- answers ---

type reputationJSON = compat.Reputation

type entryJSON struct {
	ID                 string                `json:"id"`
	DomainID           string                `json:"domain_id"`
	CatalogProductID   string                `json:"catalog_product_id"`
	CatalogProductName string                `json:"catalog_product_name"`
	Source             string                `json:"source"`
	CreationSource     string                `json:"creation_source"`
	Note               *string               `json:"note,omitempty"`
	NoteStatus         string                `json:"note_status,omitempty"`
	Restrictions       *[]compat.Restriction `json:"restrictions,omitempty"`
	Reputation         reputationJSON        `json:"reputation"`
}

// entry is a compatibility as answered: note and restrictions only in the
// extended list and the single read, note_status only in the single read.
func entry(e compatport.Entry, extended, single bool) entryJSON {
	out := entryJSON{ID: e.ID, DomainID: e.DomainID, CatalogProductID: e.ProductID, CatalogProductName: e.ProductName,
		Source: e.Source, CreationSource: e.CreationSource, Reputation: e.Reputation}
	if extended || single {
		note, rs := e.Note, e.Restrictions
		if rs == nil {
			rs = []compat.Restriction{}
		}
		out.Note, out.Restrictions = &note, &rs
	}
	if single {
		out.NoteStatus = e.NoteStatus
	}
	return out
}

type universalJSON struct {
	DomainIDs []string `json:"domain_ids"`
}

type listJSON struct {
	Products []entryJSON    `json:"products"`
	Count    int            `json:"catalog_compatibilities_count"`
	Univ     *universalJSON `json:"universal,omitempty"`
}

func list(l compatport.List, extended bool) listJSON {
	out := listJSON{Products: make([]entryJSON, 0, len(l.Entries)), Count: len(l.Entries)}
	for i := range l.Entries {
		e := &l.Entries[i]
		out.Products = append(out.Products, entry(compatport.Entry{Compatibility: e.Compatibility, Reputation: compat.ReputationOf(e.Claims)}, extended, false))
	}
	if l.UniversalDomains != nil {
		out.Univ = &universalJSON{DomainIDs: l.UniversalDomains}
	}
	return out
}
