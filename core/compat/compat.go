// Package compat is area B: compatibilities between parts
// listings (items) and catalog vehicle products, the universal and exception
// states of an item, reputation, suggestions and the order snapshots. This
// package holds the types and the pure rules; compatsvc runs the use cases.
package compat

import (
	"strings"
	"time"
)

// Limits of the contract.
const (
	// MaxProducts is the most vehicle products one request may name,
	// family expansions included.
	MaxProducts = 200
	// MaxDomains is the most vehicle domains one create or delete may touch.
	MaxDomains = 10
	// MaxExceptionComment is the longest exception comment, in characters.
	MaxExceptionComment = 255
	// MaxSummaryItems bounds a summary request (docs/decisions.md).
	MaxSummaryItems = 100
	// RedThreshold: a compatibility with more claims than this is RED.
	RedThreshold = 2
)

// Values of the status fields of a category's compatibility settings.
const (
	Enabled  = "ENABLED"
	Disabled = "DISABLED"
)

// Sources, creation sources and note statuses (docs/decisions.md).
const (
	SourceSeller = "SELLER"

	CreationManual      = "MANUAL"
	CreationSuggestions = "ITEM_SUGGESTIONS"
	CreationCopy        = "ITEM_COPY"

	NoteNone     = "NONE"
	NotePending  = "PENDING"
	NoteApproved = "APPROVED"
	NoteChecked  = "CHECKED"
	NoteRejected = "REJECTED"

	LevelGreen = "GREEN"
	LevelRed   = "RED"
)

// Snapshot statuses.
const (
	Confirmed       = "CONFIRMED"
	Incompatible    = "INCOMPATIBLE"
	NoUserSelection = "NO_USER_SELECTION"
)

// Card filters.
const (
	FilterReputation = "REPUTATION"
	FilterSuggested  = "SUGGESTED"
)

// CategorySettings are a category's compatibility settings; a nil
// *CategorySettings means the category takes no compatibilities.
type CategorySettings struct {
	Required           bool   `json:"required"`
	NoteStatus         string `json:"note_status"`
	RestrictionsStatus string `json:"restrictions_status"`
	UniversalStatus    string `json:"universal_status"`
}

// NotesAllowed reports whether the category allows notes.
func (c *CategorySettings) NotesAllowed() bool { return c != nil && c.NoteStatus == Enabled }

// RestrictionsAllowed reports whether the category allows restrictions.
func (c *CategorySettings) RestrictionsAllowed() bool {
	return c != nil && c.RestrictionsStatus == Enabled
}

// UniversalAllowed reports whether the category allows universal items.
func (c *CategorySettings) UniversalAllowed() bool { return c != nil && c.UniversalStatus == Enabled }

// Item is what the rules need of a listing.
type Item struct {
	ID               string
	SiteID           string
	SellerID         int64
	Title            string
	CategoryID       string
	DomainID         string
	Status           string
	CatalogProductID *string
	PartNumber       *string
	Category         *CategorySettings
}

// Active reports whether the item is neither closed nor inactive.
func (i Item) Active() bool { return i.Status == "active" }

// Domain is one entry of the cross-domain compatibility dump.
type Domain struct {
	ID     string
	SiteID string
	Main   bool
	// Raw is the stored compatibilities array, served as is by the dump.
	Raw   []byte
	Links []DomainLink
}

// DomainLink is one element of a dump entry's compatibilities array.
type DomainLink struct {
	CompatibleDomainID string             `json:"compatible_domain_id"`
	Type               string             `json:"type"`
	RestrictionValues  []RestrictionValue `json:"restriction_values"`
}

// RestrictionValue is the set of values a restriction attribute may take.
type RestrictionValue struct {
	AttributeID string       `json:"attribute_id"`
	Values      []ValueEntry `json:"values"`
}

// ValueEntry is one allowed restriction value.
type ValueEntry struct {
	ValueID   string `json:"value_id"`
	ValueName string `json:"value_name"`
}

// Link returns the EXTENSION link of d to the vehicle domain, if any: only
// EXTENSION links support loading compatibilities.
func (d Domain) Link(vehicleDomain string) (DomainLink, bool) {
	for _, l := range d.Links {
		if l.CompatibleDomainID == vehicleDomain && l.Type == "EXTENSION" {
			return l, true
		}
	}
	return DomainLink{}, false
}

// TopDomains are the vehicle domains d's parts may be compatible with: the
// domain_ids a universal item answers.
func (d Domain) TopDomains() []string {
	out := []string{}
	for _, l := range d.Links {
		if l.Type == "EXTENSION" {
			out = append(out, l.CompatibleDomainID)
		}
	}
	return out
}

// Product is a catalog (vehicle) product.
type Product struct {
	ID       string
	SiteID   string
	DomainID string
	Name     string
	ParentID *string
}

// Restriction limits a compatibility, e.g. to a POSITION.
type Restriction struct {
	AttributeID     string           `json:"attribute_id"`
	AttributeCode   int              `json:"attribute_code"`
	AttributeValues []RestrictionSet `json:"attribute_values"`
}

// RestrictionSet is one set of values of a restriction.
type RestrictionSet struct {
	Values []RestrictionVal `json:"values"`
}

// RestrictionVal is one value of a restriction.
type RestrictionVal struct {
	ValueID   string `json:"value_id"`
	ValueName string `json:"value_name"`
	ValueCode int    `json:"value_code"`
}

// Compatibility says an item fits a vehicle product.
type Compatibility struct {
	ID             string
	ItemID         string
	DomainID       string
	ProductID      string
	ProductName    string
	Source         string
	CreationSource string
	Note           string
	NoteStatus     string
	Restrictions   []Restriction
	DateCreated    time.Time
	LastUpdated    time.Time
}

// Reputation of a compatibility: the claims of orders whose snapshot
// confirmed it.
type Reputation struct {
	Level       string `json:"level"`
	TotalClaims int    `json:"total_claims"`
}

// ReputationOf turns a claim count into a reputation.
func ReputationOf(claims int) Reputation {
	if claims > RedThreshold {
		return Reputation{Level: LevelRed, TotalClaims: claims}
	}
	return Reputation{Level: LevelGreen, TotalClaims: claims}
}

// State is the per-item state beside the compatibilities.
type State struct {
	ItemID             string
	Universal          bool
	UniversalDomainIDs []string
	HasException       bool
	ExceptionComment   string
	ExceptionDate      *time.Time
}

// SelectorAttr is one attribute of a family selector: a product matches when
// its attribute has one of ValueIDs or one of ValueNames (lower-cased).
type SelectorAttr struct {
	ID         string
	ValueIDs   []string
	ValueNames []string
}

// Selector is a product-family selector.
type Selector struct {
	DomainID   string
	Attributes []SelectorAttr
}

// NormalizeName is how value names are compared: case-insensitively.
func NormalizeName(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Summary is one entry of the compatibilities summary.
type Summary struct {
	ItemID        string `json:"item_id"`
	ItemTitle     string `json:"item_title"`
	Compatibility int    `json:"compatibilities_count"`
	Claims        int    `json:"compatibilities_claims_count"`
	Notes         int    `json:"notes_count"`
	Restrictions  int    `json:"restrictions_count"`
}

// Snapshot is the compatibility state of an order's item when the order was
// first stored.
type Snapshot struct {
	OrderID              int64
	ItemID               string
	SellerID             int64
	ProductID            string
	UserSelection        []byte // the label_values JSON the buyer sent
	Status               string
	CompatibilityID      string
	Note                 string
	Restrictions         []Restriction
	CompatibilityDeleted bool
	DateCreated          time.Time
	DateUpdated          time.Time
}

// Order is what the snapshot read needs of an order.
type Order struct {
	ID       int64
	SellerID int64
	HasClaim bool
}
