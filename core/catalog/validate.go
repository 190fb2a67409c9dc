package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/feria/feria/core/kernel"
)

// Validation errors; their causes name the fields.
var (
	ErrInvalidCategory = kernel.E(kernel.Invalid, "bad_request", "invalid category")
	ErrInvalidDomain   = kernel.E(kernel.Invalid, "bad_request", "invalid domain")
	ErrInvalidProduct  = kernel.E(kernel.Invalid, "bad_request", "invalid product")
	ErrInvalidItem     = kernel.E(kernel.Invalid, "bad_request", "invalid item")
)

// Errors of an item's official_store_id, with the codes of area D: a seller
// bound to several official stores must name one, and only one of its own.
var (
	ErrOfficialStoreRequired   = kernel.E(kernel.Invalid, "validation_error", "official_store_id is required")
	ErrOfficialStoreNotAllowed = kernel.E(kernel.Permission, "forbidden", "body.invalid_official_store_id")
)

// Not-found errors of the module.
var (
	ErrCategoryNotFound = kernel.E(kernel.NotExist, "not_found", "category not found")
	ErrDomainNotFound   = kernel.E(kernel.NotExist, "not_found", "domain not found")
	ErrProductNotFound  = kernel.E(kernel.NotExist, "not_found", "product not found")
	ErrItemNotFound     = kernel.E(kernel.NotExist, "not_found", "item not found")
)

// problems is the kernel's accumulator with the id checks every catalog
// resource shares.
type problems struct{ kernel.Problems }

// SiteID checks that an item, category or product id is the site id
// followed by digits.
func (p *problems) SiteID(field, id, site string) {
	if got := kernel.SiteOf(id); got == "" || got != site {
		p.Add(field, "%s must be the site id %s followed by digits, got %q", field, site, id)
	}
}

// DomainID checks a domain id of the form <site_id>-<NAME>.
func (p *problems) DomainID(field, id, site string) {
	name, ok := strings.CutPrefix(id, site+"-")
	if !ok || name == "" || strings.ToUpper(name) != name || strings.ContainsAny(name, " \t") {
		p.Add(field, "%s must be %s-<DOMAIN_NAME>, got %q", field, site, id)
	}
}

// enum checks that v is one of the allowed values.
func (p *problems) enum(field, v string, allowed ...string) {
	if !slices.Contains(allowed, v) {
		p.Add(field, "%s must be one of %s, got %q", field, strings.Join(allowed, ", "), v)
	}
}

// attributeID checks the id of the attribute at field: given, and not given
// before (seen records the ids met so far).
func (p *problems) attributeID(field, id string, seen map[string]bool) {
	switch {
	case id == "":
		p.Add(field+".id", "%s.id is required", field)
	case seen[id]:
		p.Add(field+".id", "attribute %s is given twice", id)
	}
	seen[id] = true
}

// logisticTypes are the logistics modes of the contract and their types.
var logisticTypes = map[string][]string{
	"me1":           {"default"},
	"me2":           {"drop_off", "xd_drop_off", "self_service", "cross_docking", "fulfillment"},
	"not_specified": {"not_specified"},
	"custom":        {"custom"},
}

// ShippingModes are the shipping modes an item or category may name.
var ShippingModes = []string{"me1", "me2", "not_specified", "custom"}

// ValidateCategory checks a category to be stored.
func ValidateCategory(c Category) error {
	var p problems
	if p.Site("site_id", c.SiteID) {
		p.SiteID("category_id", c.ID, c.SiteID)
		if c.DomainID != "" {
			p.DomainID("domain_id", c.DomainID, c.SiteID)
		}
	}
	if strings.TrimSpace(c.Name) == "" {
		p.Add("name", "name is required")
	}
	d := c.ShippingPreferences.Dimensions
	for _, f := range []struct {
		name string
		v    int64
	}{{"height", d.Height}, {"width", d.Width}, {"length", d.Length}, {"weight", d.Weight}} {
		if f.v < 0 {
			p.Add("shipping_preferences.dimensions."+f.name, "shipping_preferences.dimensions.%s must not be negative", f.name)
		}
	}
	for i, l := range c.ShippingPreferences.Logistics {
		field := fmt.Sprintf("shipping_preferences.logistics[%d]", i)
		types, ok := logisticTypes[l.Mode]
		if !ok {
			p.enum(field+".mode", l.Mode, ShippingModes...)
			continue
		}
		for j, t := range l.Types {
			p.enum(fmt.Sprintf("%s.types[%d]", field, j), t, types...)
		}
	}
	for i, m := range c.AcceptedShippingMethods {
		if m <= 0 {
			p.Add(fmt.Sprintf("accepted_shipping_methods[%d]", i), "accepted_shipping_methods must be positive integers")
		}
	}
	if cc := c.Compatibilities; cc != nil {
		p.enum("compatibilities.note_status", cc.NoteStatus, "ENABLED", "DISABLED")
		p.enum("compatibilities.restrictions_status", cc.RestrictionsStatus, "ENABLED", "DISABLED")
		p.enum("compatibilities.universal_status", cc.UniversalStatus, "ENABLED", "DISABLED")
	}
	return p.Err(ErrInvalidCategory)
}

// ValidateDomain checks a domain (dump entry) to be stored. The categories
// and domains it names need not exist: categories and domains name each
// other, so neither checks the other.
func ValidateDomain(d Domain) error {
	var p problems
	siteOK := p.Site("site_id", d.SiteID)
	if siteOK {
		p.DomainID("domain_id", d.ID, d.SiteID)
	}
	for i, c := range d.Compatibilities {
		field := fmt.Sprintf("compatibilities[%d]", i)
		if c.CompatibleDomainID == "" {
			p.Add(field+".compatible_domain_id", "%s.compatible_domain_id is required", field)
		} else if siteOK {
			p.DomainID(field+".compatible_domain_id", c.CompatibleDomainID, d.SiteID)
		}
		if strings.TrimSpace(c.Type) == "" {
			p.Add(field+".type", "%s.type is required", field)
		}
		for j, cat := range c.Categories {
			cf := fmt.Sprintf("%s.categories[%d]", field, j)
			if kernel.SiteOf(cat.ID) != d.SiteID {
				p.Add(cf+".id", "%s.id must be a category id of site %s, got %q", cf, d.SiteID, cat.ID)
			}
			p.enum(cf+".note_status", cat.NoteStatus, "ENABLED", "DISABLED")
			p.enum(cf+".restrictions_status", cat.RestrictionsStatus, "ENABLED", "DISABLED")
			p.enum(cf+".universal_status", cat.UniversalStatus, "ENABLED", "DISABLED")
		}
		for j, rv := range c.RestrictionValues {
			rf := fmt.Sprintf("%s.restriction_values[%d]", field, j)
			if rv.AttributeID == "" {
				p.Add(rf+".attribute_id", "%s.attribute_id is required", rf)
			}
			for k, v := range rv.Values {
				if v.ValueID == "" || v.ValueName == "" {
					p.Add(fmt.Sprintf("%s.values[%d]", rf, k), "%s.values[%d] needs value_id and value_name", rf, k)
				}
			}
		}
	}
	return p.Err(ErrInvalidDomain)
}

// ValidateProduct checks a product to be stored (not its references).
func ValidateProduct(pr Product) error {
	var p problems
	if p.Site("site_id", pr.SiteID) {
		p.SiteID("product_id", pr.ID, pr.SiteID)
		p.DomainID("domain_id", pr.DomainID, pr.SiteID)
		if pr.ParentID != nil {
			p.SiteID("parent_id", *pr.ParentID, pr.SiteID)
		}
	}
	if pr.ParentID != nil && *pr.ParentID == pr.ID {
		p.Add("parent_id", "parent_id must not be the product itself")
	}
	if strings.TrimSpace(pr.Name) == "" {
		p.Add("name", "name is required")
	}
	seen := map[string]bool{}
	for i, a := range pr.Attributes {
		field := fmt.Sprintf("attributes[%d]", i)
		p.attributeID(field, a.ID, seen)
		if a.ValueID == "" && a.ValueName == "" {
			p.Add(field, "%s needs value_id or value_name", field)
		}
	}
	return p.Err(ErrInvalidProduct)
}

// ValidateItem checks an item to be stored (not its references).
func ValidateItem(it Item) error {
	var p problems
	siteOK := p.Site("site_id", it.SiteID)
	if siteOK {
		p.SiteID("item_id", it.ID, it.SiteID)
		p.SiteID("category_id", it.CategoryID, it.SiteID)
		if it.DomainID != "" {
			p.DomainID("domain_id", it.DomainID, it.SiteID)
		}
		if it.CatalogProductID != nil {
			p.SiteID("catalog_product_id", *it.CatalogProductID, it.SiteID)
		}
		if it.ParentItemID != nil {
			p.SiteID("parent_item_id", *it.ParentItemID, it.SiteID)
		}
	}
	if it.SellerID <= 0 {
		p.Add("seller_id", "seller_id must be a positive integer")
	}
	if strings.TrimSpace(it.Title) == "" {
		p.Add("title", "title is required")
	}
	p.enum("status", it.Status, ItemStatuses...)
	if it.Price < 0 {
		p.Add("price", "price must not be negative")
	}
	// An unknown site has no default currency: only its site_id is wrong.
	if (siteOK || it.CurrencyID != "") && (len(it.CurrencyID) != 3 || strings.ToUpper(it.CurrencyID) != it.CurrencyID) {
		p.Add("currency_id", "currency_id must be a three-letter currency code, got %q", it.CurrencyID)
	}
	if it.AvailableQuantity < 0 {
		p.Add("available_quantity", "available_quantity must not be negative")
	}
	p.enum("condition", it.Condition, "new", "used", "not_specified")
	if it.OfficialStoreID != nil && *it.OfficialStoreID <= 0 {
		p.Add("official_store_id", "official_store_id must be a positive integer or null")
	}
	seen := map[string]bool{}
	for i, a := range it.Attributes {
		field := fmt.Sprintf("attributes[%d]", i)
		p.attributeID(field, a.ID, seen)
	}
	s := it.Shipping
	p.enum("shipping.mode", s.Mode, ShippingModes...)
	if s.Dimensions != nil {
		if _, err := ParseDimensions(*s.Dimensions); err != nil {
			p.Add("shipping.dimensions", "shipping.dimensions %s", err.Error())
		}
	}
	// Free methods are methods of the managed shipping; without it, free
	// shipping is the flag alone (area C's custom free shipping).
	if len(s.FreeMethods) > 0 && s.Mode != "me1" && s.Mode != "me2" {
		p.Add("shipping.free_methods", "shipping.free_methods need shipping.mode me2 (or me1); with mode %s offer free shipping with free_shipping true alone", s.Mode)
	}
	for i, m := range s.FreeMethods {
		field := fmt.Sprintf("shipping.free_methods[%d]", i)
		if m.ID <= 0 {
			p.Add(field+".id", "%s.id must be a positive integer", field)
		}
		p.enum(field+".rule.free_mode", m.Rule.FreeMode, "country", "exclude_region")
	}
	return p.Err(ErrInvalidItem)
}

// ParseDimensions reads "HxWxL,weight" in centimetres and grams; every
// figure must be a positive integer written in plain digits.
func ParseDimensions(s string) (Dimensions, error) {
	bad := fmt.Errorf("must be <height>x<width>x<length>,<weight> in positive whole centimetres and grams, got %q", s)
	sizes, weight, ok := strings.Cut(s, ",")
	if !ok {
		return Dimensions{}, bad
	}
	parts := strings.Split(sizes, "x")
	if len(parts) != 3 {
		return Dimensions{}, bad
	}
	var v [4]int64
	for i, raw := range append(parts, weight) {
		if raw == "" || strings.TrimLeft(raw, "0123456789") != "" {
			return Dimensions{}, bad
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 {
			return Dimensions{}, bad
		}
		v[i] = n
	}
	return Dimensions{Height: v[0], Width: v[1], Length: v[2], Weight: v[3]}, nil
}
