// Package catalog holds what listings of parts live in: categories (with
// their shipping preferences and compatibility settings), catalog domains
// (the compatibility dump entries), catalog products (families of parents and
// children) and items, with the rules that validate them.
package catalog

import (
	"fmt"
	"slices"
	"time"
)

// Category is a marketplace category with the shipping preferences sellers
// may use in it and its compatibility settings.
type Category struct {
	ID                      string              `json:"id"`
	SiteID                  string              `json:"site_id"`
	Name                    string              `json:"name"`
	DomainID                string              `json:"domain_id"`
	ShippingPreferences     ShippingPreferences `json:"shipping_preferences"`
	AcceptedShippingMethods []int64             `json:"accepted_shipping_methods"`
	// Compatibilities nil: the category takes no compatibilities.
	Compatibilities *CategoryCompatibilities `json:"compatibilities"`
	DateCreated     time.Time                `json:"date_created"`
	LastModified    time.Time                `json:"last_modified"`
}

// ShippingPreferences are the shipping settings of a category.
type ShippingPreferences struct {
	Dimensions Dimensions `json:"dimensions"`
	Logistics  []Logistic `json:"logistics"`
	Restricted bool       `json:"restricted"`
}

// Dimensions are package dimensions in whole centimetres and grams
// (docs/sandbox.md: "Dimensions are positive integers (cm and g)"). A category
// without standard dimensions has them all zero.
type Dimensions struct {
	Height int64 `json:"height"`
	Width  int64 `json:"width"`
	Length int64 `json:"length"`
	Weight int64 `json:"weight"`
}

// Known reports whether every dimension is given (positive).
func (d Dimensions) Known() bool {
	return d.Height > 0 && d.Width > 0 && d.Length > 0 && d.Weight > 0
}

// String is the dimensions in the form of the API: HxWxL,weight.
func (d Dimensions) String() string {
	return fmt.Sprintf("%dx%dx%d,%d", d.Height, d.Width, d.Length, d.Weight)
}

// Logistic is one logistics mode and the types it offers.
type Logistic struct {
	Mode  string   `json:"mode"`
	Types []string `json:"types"`
}

// CategoryCompatibilities are a category's compatibility settings.
type CategoryCompatibilities struct {
	Required           bool   `json:"required"`
	NoteStatus         string `json:"note_status"`
	RestrictionsStatus string `json:"restrictions_status"`
	UniversalStatus    string `json:"universal_status"`
}

// Domain is a catalog domain as the cross-domain compatibility dump shows it.
type Domain struct {
	ID              string                `json:"domain_id"`
	SiteID          string                `json:"site_id"`
	Main            bool                  `json:"main"`
	Compatibilities []DomainCompatibility `json:"compatibilities"`
}

// DomainCompatibility says that parts of a domain can be declared compatible
// with products of another (the vehicle) domain.
type DomainCompatibility struct {
	CompatibleDomainID string             `json:"compatible_domain_id"`
	Type               string             `json:"type"`
	Required           bool               `json:"required"`
	Restrictions       []any              `json:"restrictions"`
	Categories         []DomainCategory   `json:"categories"`
	RestrictionValues  []RestrictionValue `json:"restriction_values"`
}

// DomainCategory is a category that supports loading compatibilities.
type DomainCategory struct {
	ID                 string `json:"id"`
	Required           bool   `json:"required"`
	NoteStatus         string `json:"note_status"`
	RestrictionsStatus string `json:"restrictions_status"`
	UniversalStatus    string `json:"universal_status"`
}

// RestrictionValue is the set of values a restriction attribute (POSITION)
// may take between a vehicle domain and a part domain.
type RestrictionValue struct {
	AttributeID string       `json:"attribute_id"`
	Values      []ValueEntry `json:"values"`
}

// ValueEntry is one allowed restriction value.
type ValueEntry struct {
	ValueID   string `json:"value_id"`
	ValueName string `json:"value_name"`
}

// Product is a catalog product; ParentID nil marks a parent (a family head).
type Product struct {
	ID         string             `json:"id"`
	SiteID     string             `json:"site_id"`
	DomainID   string             `json:"domain_id"`
	Name       string             `json:"name"`
	ParentID   *string            `json:"parent_id"`
	Attributes []ProductAttribute `json:"attributes"`
}

// ProductAttribute is one attribute of a product.
type ProductAttribute struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	ValueID   string `json:"value_id"`
	ValueName string `json:"value_name"`
}

// IsParent reports whether the product heads a family.
func (p Product) IsParent() bool { return p.ParentID == nil }

// Item statuses the sandbox accepts.
var ItemStatuses = []string{"active", "paused", "closed", "under_review", "inactive"}

// Item is a listing.
type Item struct {
	ID                string          `json:"id"`
	SiteID            string          `json:"site_id"`
	Title             string          `json:"title"`
	SellerID          int64           `json:"seller_id"`
	CategoryID        string          `json:"category_id"`
	DomainID          string          `json:"domain_id"`
	Status            string          `json:"status"`
	Price             float64         `json:"price"`
	CurrencyID        string          `json:"currency_id"`
	AvailableQuantity int64           `json:"available_quantity"`
	ListingTypeID     string          `json:"listing_type_id"`
	Condition         string          `json:"condition"`
	OfficialStoreID   *int64          `json:"official_store_id"`
	CatalogProductID  *string         `json:"catalog_product_id"`
	Attributes        []ItemAttribute `json:"attributes"`
	// Tags are the stored tags; computed ones are added by View.
	Tags     []string     `json:"tags"`
	Shipping ItemShipping `json:"shipping"`
	ItemExtra
	DateCreated time.Time `json:"date_created"`
	LastUpdated time.Time `json:"last_updated"`
}

// ItemExtra are the item fields of the contract that no query filters on.
type ItemExtra struct {
	Warranty        *string  `json:"warranty"`
	ParentItemID    *string  `json:"parent_item_id"`
	DealIDs         []string `json:"deal_ids"`
	AutomaticRelist bool     `json:"automatic_relist"`
	Health          *float64 `json:"health"`
	CatalogListing  bool     `json:"catalog_listing"`
}

// ItemAttribute is one attribute of an item.
type ItemAttribute struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	ValueID   *string          `json:"value_id"`
	ValueName *string          `json:"value_name"`
	Values    []AttributeValue `json:"values"`
	ValueType string           `json:"value_type"`
}

// AttributeValue is one value of an item attribute.
type AttributeValue struct {
	ID     *string `json:"id"`
	Name   *string `json:"name"`
	Struct any     `json:"struct"`
}

// ItemShipping is the shipping object inside an item.
type ItemShipping struct {
	Mode         string       `json:"mode"`
	LocalPickUp  bool         `json:"local_pick_up"`
	FreeShipping bool         `json:"free_shipping"`
	LogisticType string       `json:"logistic_type"`
	Dimensions   *string      `json:"dimensions"`
	Methods      []any        `json:"methods"`
	Costs        []any        `json:"costs"`
	FreeMethods  []FreeMethod `json:"free_methods"`
	Tags         []string     `json:"tags"`
}

// Parcel is what pricing the shipping of an item reads of it: who sells
// it on which site, its category, and the dimensions it was listed with. It
// is read many at a time without the rest of the item.
type Parcel struct {
	ItemID     string
	SiteID     string
	SellerID   int64
	CategoryID string
	// Dimensions are the item's shipping.dimensions; nil when it has none.
	Dimensions *string
}

// FreeMethod is a free-shipping method of an item.
type FreeMethod struct {
	ID   int64    `json:"id"`
	Rule FreeRule `json:"rule"`
}

// FreeRule is where a free method is free.
type FreeRule struct {
	FreeMode string `json:"free_mode"`
	Value    any    `json:"value"`
}

// Attribute ids with a meaning to the service.
const (
	AttrPartNumber         = "PART_NUMBER"
	AttrHasCompatibilities = "HAS_COMPATIBILITIES"
)

// Computed item tags.
const (
	TagIncomplete = "incomplete_compatibilities"
	TagPending    = "pending_compatibilities"
)

// ComputedTags are the tags the service derives and never stores from a body.
var ComputedTags = []string{TagIncomplete, TagPending}

// TagSelfServiceIn is the shipping tag of an item with local delivery
// ('flex') enabled; computed from the flex module's record, never stored
// from a body.
const TagSelfServiceIn = "self_service_in"

// IsComputedTag reports whether tag is one of ComputedTags.
func IsComputedTag(tag string) bool { return slices.Contains(ComputedTags, tag) }

// PartNumber is the value_name of the item's PART_NUMBER attribute, or nil.
func (it Item) PartNumber() *string {
	for _, a := range it.Attributes {
		if a.ID == AttrPartNumber && a.ValueName != nil && *a.ValueName != "" {
			v := *a.ValueName
			return &v
		}
	}
	return nil
}

// Facts are what the service derives about an item from the compatibility
// tables and its category at read time.
type Facts struct {
	// HasCompatibilities: the item has at least one compatibility. Its
	// answers need no more than that, and whether any exists is one index
	// probe where a count read every one of them.
	HasCompatibilities bool
	Universal          bool
	Incomplete         bool
	Pending            bool
	// SelfService: the seller enabled local delivery ('flex') on the item.
	SelfService bool
}
