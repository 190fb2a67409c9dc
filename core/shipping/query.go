package shipping

import (
	"fmt"
	"slices"
	"strings"

	"github.com/feria/feria/core/kernel"
)

// MaxItems is the most items one multi-item cost call may name (area C's
// limits: "Items per multi-item shipping cost call: 50").
const MaxItems = 50

// ListingTypes are the listing types a listing not yet created may name.
var ListingTypes = []string{"free", "bronze", "silver", "gold", "gold_special", "gold_premium", "gold_pro"}

// Conditions are the item conditions a listing not yet created may name.
var Conditions = []string{"new", "used", "not_specified"}

// ErrBadQuery is a cost request whose parameters break a rule; its cause
// names the parameter.
var ErrBadQuery = kernel.E(kernel.Invalid, "bad_request", "invalid shipping cost query")

// Form is which of area C's forms a /users/{user_id}/shipping_options/free
// request is.
type Form uint8

// The forms of the user cost request.
const (
	// ByDimensions is a package of the given dimensions.
	ByDimensions Form = iota + 1
	// ByItem is an existing listing (item_id), for the user as seller.
	ByItem
	// ByListing is a listing not yet created (category_id, currency_id,
	// listing_type_id, condition, item_price).
	ByListing
)

// CostQuery is a read /users/{user_id}/shipping_options/free request whose
// parameters are well-formed; what they name is checked by the use case.
type CostQuery struct {
	Form Form
	// Dimensions are the given dimensions ("" when none; required only in
	// the ByDimensions form, where nothing else supplies them).
	Dimensions string
	ItemID     string
	Listing    Listing
}

// Listing is a listing not yet created, as the cost request describes it.
type Listing struct {
	CategoryID    string
	CurrencyID    string
	ListingTypeID string
	Condition     string
	ItemPrice     Decimal
}

// listingParams are the parameters of the ByListing form, in the order
// errors name them.
var listingParams = []string{"category_id", "currency_id", "listing_type_id", "condition", "item_price"}

// ReadCostQuery reads the query parameters of a user cost request (get
// returns "" for one not given) and tells its form: item_id makes it the
// existing-listing form, any parameter of a listing the new-listing form,
// and otherwise dimensions are required.
func ReadCostQuery(get func(name string) string) (CostQuery, error) {
	var p kernel.Problems
	q := CostQuery{Dimensions: get("dimensions")}
	checkDimensions(&p, q.Dimensions)
	var given []string
	for _, name := range listingParams {
		if get(name) != "" {
			given = append(given, name)
		}
	}
	switch {
	case get("item_id") != "":
		q.Form, q.ItemID = ByItem, get("item_id")
		if kernel.SiteOf(q.ItemID) == "" {
			p.Add("item_id", "item_id must be a site id followed by digits, got %q", q.ItemID)
		}
		for _, name := range given {
			p.Add(name, "%s describes a listing not yet created; an existing one is named by item_id alone", name)
		}
	case len(given) > 0:
		q.Form = ByListing
		l := Listing{CategoryID: get("category_id"), CurrencyID: get("currency_id"), ListingTypeID: get("listing_type_id"),
			Condition: get("condition"), ItemPrice: Decimal(get("item_price"))}
		for _, name := range listingParams {
			if get(name) == "" {
				p.Add(name, "%s is required to price a listing not yet created", name)
			}
		}
		if l.CategoryID != "" && kernel.SiteOf(l.CategoryID) == "" {
			p.Add("category_id", "category_id must be a site id followed by digits, got %q", l.CategoryID)
		}
		if l.CurrencyID != "" && (len(l.CurrencyID) != 3 || strings.ToUpper(l.CurrencyID) != l.CurrencyID) {
			p.Add("currency_id", "currency_id must be a three-letter currency code, got %q", l.CurrencyID)
		}
		if l.ListingTypeID != "" && !slices.Contains(ListingTypes, l.ListingTypeID) {
			p.Add("listing_type_id", "listing_type_id must be one of %s, got %q", strings.Join(ListingTypes, ", "), l.ListingTypeID)
		}
		if l.Condition != "" && !slices.Contains(Conditions, l.Condition) {
			p.Add("condition", "condition must be one of %s, got %q", strings.Join(Conditions, ", "), l.Condition)
		}
		if l.ItemPrice != "" {
			if v, ok := l.ItemPrice.Rat(); !ok || v.Sign() <= 0 || strings.ContainsAny(string(l.ItemPrice), "eE+") {
				p.Add("item_price", "item_price must be a positive number such as 15000 or 99.90, got %q", l.ItemPrice)
			}
		}
		q.Listing = l
	default:
		q.Form = ByDimensions
		if q.Dimensions == "" {
			p.Add("dimensions", "dimensions is required: <height>x<width>x<length>,<weight> (or item_id, or the fields of a listing not yet created)")
		}
	}
	if err := p.Err(ErrBadQuery); err != nil {
		return CostQuery{}, err
	}
	return q, nil
}

// ReadDimensions checks an optional dimensions parameter ("" is none).
func ReadDimensions(s string) error {
	var p kernel.Problems
	checkDimensions(&p, s)
	return p.Err(ErrBadQuery)
}

func checkDimensions(p *kernel.Problems, s string) {
	if s == "" {
		return
	}
	if _, err := ParseDimensions(s); err != nil {
		p.Add("dimensions", "dimensions %s", err.Error())
	}
}

// ReadVerbose reads the verbose parameter: absent or false, or true.
func ReadVerbose(s string) (bool, error) {
	switch s {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	msg := fmt.Sprintf("verbose must be true or false, got %q", s)
	return false, ErrBadQuery.With(msg).WithCause("verbose", msg)
}

// ReadIDs reads the ids parameter of the multi-item cost call: item ids
// separated by commas, at most MaxItems distinct ones; a repeated id is
// answered once, in the order first given.
func ReadIDs(raw string) ([]string, error) {
	bad := func(format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		return ErrBadQuery.With(msg).WithCause("ids", msg)
	}
	if raw == "" {
		return nil, bad("ids is required: comma-separated item ids, at most %d", MaxItems)
	}
	var ids, malformed []string
	seen := map[string]bool{}
	for _, id := range strings.Split(raw, ",") {
		id = strings.TrimSpace(id)
		switch {
		case kernel.SiteOf(id) == "":
			malformed = append(malformed, fmt.Sprintf("%q", id))
		case !seen[id]:
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(malformed) > 0 {
		return nil, bad("ids must be item ids (a site id followed by digits); not one: %s", strings.Join(malformed, ", "))
	}
	if len(ids) > MaxItems {
		return nil, bad("ids names %d items; at most %d are allowed", len(ids), MaxItems)
	}
	return ids, nil
}
