package compat

import (
	"strings"
	"unicode/utf8"

	"github.com/feria/feria/core/kernel"
)

// ProductEntry names one vehicle product (products node).
type ProductEntry struct {
	ID             string
	CreationSource string
	// Note nil: not sent (unchanged on update); "" removes it.
	Note *string
	// Restrictions nil: not sent; empty: removes them.
	Restrictions *[]Restriction
}

// GroupEntry gives several products one note and one restriction.
type GroupEntry struct {
	IDs            []string
	CreationSource string
	Note           *string
	Restrictions   *[]Restriction
}

// FamilyEntry names every product of a family.
type FamilyEntry struct {
	Selector
	CreationSource string
	Note           *string
	Restrictions   *[]Restriction
}

// Nodes are the products, products_group and products_families nodes of a
// create, update or delete, and the universal flag.
type Nodes struct {
	Products  []ProductEntry
	Groups    []GroupEntry
	Families  []FamilyEntry
	Universal *bool
}

// Empty reports whether no product, group or family is named.
func (n Nodes) Empty() bool {
	return len(n.Products) == 0 && len(n.Groups) == 0 && len(n.Families) == 0
}

// CopyRequest asks for the compatibilities of another item.
type CopyRequest struct {
	ItemID              string
	ExtendedInformation bool
}

// PutRequest is the body of PUT /items/{item_id}/compatibilities.
type PutRequest struct {
	Create    *Nodes
	CopyFrom  *CopyRequest
	Update    *Nodes
	Delete    *Nodes
	Universal *bool // top-level universal, as "Universal may also be sent by PUT"
}

// Op is the operation entries are checked for: the limits differ.
type Op uint8

const (
	OpCreate Op = iota
	OpUpdate
	OpDelete
)

// ValidProductID reports whether id is a site prefix followed by digits.
func ValidProductID(id string) bool { return kernel.SiteOf(id) != "" }

// ValidItemID is ValidProductID for items.
func ValidItemID(id string) bool { return kernel.SiteOf(id) != "" }

// ValidDomainID reports whether id is <site_id>-<DOMAIN_NAME>.
func ValidDomainID(id string) bool {
	site, name, ok := strings.Cut(id, "-")
	if !ok || name == "" {
		return false
	}
	_, known := kernel.LookupSite(site)
	return known
}

// ValidCreationSource reports whether a client may send s ("" is the default).
func ValidCreationSource(s string) bool {
	return s == "" || s == CreationManual || s == CreationSuggestions
}

// CheckSelector checks a family selector's completeness and formats.
func CheckSelector(s Selector, field string) error {
	if s.DomainID == "" {
		return ErrIncomplete.WithCause(field+".domain_id", "domain_id is required")
	}
	if !ValidDomainID(s.DomainID) {
		return ErrBadFormat.WithCause(field+".domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>")
	}
	if len(s.Attributes) == 0 {
		return ErrIncomplete.WithCause(field+".attributes", "at least one attribute is required")
	}
	for _, a := range s.Attributes {
		if a.ID == "" {
			return ErrIncomplete.WithCause(field+".attributes.id", "attribute id is required")
		}
		if len(a.ValueIDs) == 0 && len(a.ValueNames) == 0 {
			return ErrIncomplete.WithCause(field+".attributes."+a.ID, "value_id, value_name or value_ids is required")
		}
	}
	return nil
}

// CheckNodes checks completeness, id formats and creation sources of nodes,
// before anything is read.
func CheckNodes(n Nodes, node string) error {
	for _, p := range n.Products {
		if p.ID == "" {
			return ErrIncomplete.WithCause(node+"products.id", "product id is required")
		}
		if !ValidProductID(p.ID) {
			return ErrBadFormat.WithCause(node+"products.id", "product id "+p.ID+" is badly formatted")
		}
		if !ValidCreationSource(p.CreationSource) {
			return ErrBadCreation.WithCause(node+"products.creation_source", "creation_source must be MANUAL or ITEM_SUGGESTIONS")
		}
	}
	for _, g := range n.Groups {
		if len(g.IDs) == 0 {
			return ErrIncomplete.WithCause(node+"products_group.ids", "ids are required")
		}
		for _, id := range g.IDs {
			if !ValidProductID(id) {
				return ErrBadFormat.WithCause(node+"products_group.ids", "product id "+id+" is badly formatted")
			}
		}
		if !ValidCreationSource(g.CreationSource) {
			return ErrBadCreation.WithCause(node+"products_group.creation_source", "creation_source must be MANUAL or ITEM_SUGGESTIONS")
		}
	}
	for _, f := range n.Families {
		if err := CheckSelector(f.Selector, node+"products_families"); err != nil {
			return err
		}
		if !ValidCreationSource(f.CreationSource) {
			return ErrBadCreation.WithCause(node+"products_families.creation_source", "creation_source must be MANUAL or ITEM_SUGGESTIONS")
		}
	}
	return nil
}

// CheckComment checks an exception comment: 1..255 characters.
func CheckComment(comment *string) error {
	if comment == nil || strings.TrimSpace(*comment) == "" {
		return ErrCommentMissing.WithCause("comment", "comment is required")
	}
	if n := utf8.RuneCountInString(*comment); n > MaxExceptionComment {
		return ErrCommentTooLong.Withf("comment has %d characters; at most %d are allowed", n, MaxExceptionComment).
			WithCause("comment", ErrCommentTooLong.Message)
	}
	return nil
}

// CheckRestrictions checks restrictions against the values the link between
// the item's domain and the vehicle domain allows, and fills the codes shown
// in answers: attribute_code is the 1-based position of the attribute in the
// link's restriction values, value_code the position of the value.
func CheckRestrictions(rs []Restriction, link DomainLink) ([]Restriction, error) {
	out := make([]Restriction, 0, len(rs))
	for _, r := range rs {
		if r.AttributeID == "" {
			return nil, ErrIncomplete.WithCause("restrictions.attribute_id", "attribute_id is required")
		}
		ai := -1
		for i, rv := range link.RestrictionValues {
			if rv.AttributeID == r.AttributeID {
				ai = i
			}
		}
		if ai < 0 {
			return nil, ErrBadRestriction.WithCause("restrictions.attribute_id",
				"attribute "+r.AttributeID+" is not a restriction of "+link.CompatibleDomainID)
		}
		allowed := link.RestrictionValues[ai].Values
		nr := Restriction{AttributeID: r.AttributeID, AttributeCode: ai + 1, AttributeValues: []RestrictionSet{}}
		for _, set := range r.AttributeValues {
			ns := RestrictionSet{Values: []RestrictionVal{}}
			for _, v := range set.Values {
				vi := -1
				for i, a := range allowed {
					if (v.ValueID != "" && a.ValueID == v.ValueID) || (v.ValueID == "" && v.ValueName != "" && NormalizeName(a.ValueName) == NormalizeName(v.ValueName)) {
						vi = i
					}
				}
				if vi < 0 {
					return nil, ErrBadRestriction.WithCause("restrictions.attribute_values",
						"value "+v.ValueID+v.ValueName+" is not allowed for "+r.AttributeID)
				}
				ns.Values = append(ns.Values, RestrictionVal{ValueID: allowed[vi].ValueID, ValueName: allowed[vi].ValueName, ValueCode: vi + 1})
			}
			nr.AttributeValues = append(nr.AttributeValues, ns)
		}
		out = append(out, nr)
	}
	return out, nil
}
