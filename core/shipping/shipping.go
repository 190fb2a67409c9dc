// Package shipping holds the rules of area C: the shipping modes a seller may
// use in a category, a category's shipping preferences, the per-site rate
// tables of the sandbox and the free-shipping cost computed from them
// (volumetric weight, weight tiers, reputation discounts), all as pure
// functions over exact money.
package shipping

import (
	"fmt"

	"github.com/feria/feria/core/catalog"
)

// Package is a parcel: height, width and length in centimetres, weight in
// grams, all positive integers (docs/sandbox.md, "Shipping costs"); the catalog's
// dimensions of a package to be priced.
type Package struct {
	Height, Width, Length, Weight int64
}

// String is the package in the dimensions form of the API: HxWxL,weight.
func (p Package) String() string { return catalog.Dimensions(p).String() }

// ParseDimensions reads "HxWxL,weight" in centimetres and grams with the
// catalog's rule (an item's shipping.dimensions obeys the same): every
// figure a positive integer written in plain digits.
func ParseDimensions(s string) (Package, error) {
	d, err := catalog.ParseDimensions(s)
	return Package(d), err
}

// Source says where the dimensions of a cost came from.
type Source string

// Where dimensions come from, in the order they are tried.
const (
	FromQuery    Source = "query"
	FromItem     Source = "item"
	FromCategory Source = "category"
)

// PackageOf picks the dimensions of a cost as docs/sandbox.md orders them: the
// query's when given, else the item's shipping.dimensions, else the
// category's standard dimensions. item may be nil (a listing not yet
// created); query "" means not given.
func PackageOf(query string, item *catalog.Parcel, c catalog.Category) (Package, Source, error) {
	if query != "" {
		p, err := ParseDimensions(query)
		if err != nil {
			return Package{}, FromQuery, ErrBadDimensions.With("dimensions "+err.Error()).
				WithCause("dimensions", "dimensions "+err.Error())
		}
		return p, FromQuery, nil
	}
	if !NeedsCategory(query, item) {
		p, err := ParseDimensions(*item.Dimensions)
		if err != nil {
			msg := fmt.Sprintf("item %s has shipping.dimensions that %s", item.ItemID, err.Error())
			return Package{}, FromItem, ErrBadDimensions.With(msg).WithCause("dimensions", msg)
		}
		return p, FromItem, nil
	}
	p, ok := CategoryPackage(c.ShippingPreferences.Dimensions)
	if !ok {
		msg := fmt.Sprintf("category %s has no standard dimensions; give dimensions=<height>x<width>x<length>,<weight>", c.ID)
		return Package{}, FromCategory, ErrNoDimensions.With(msg).WithCause("dimensions", msg)
	}
	return p, FromCategory, nil
}

// NeedsCategory reports whether PackageOf will fall back to the category's
// dimensions, so that a caller reads the category only then.
func NeedsCategory(query string, item *catalog.Parcel) bool {
	return query == "" && (item == nil || item.Dimensions == nil || *item.Dimensions == "")
}

// CategoryPackage is a category's standard dimensions as a package; ok is
// false when the category has none (any figure zero).
func CategoryPackage(d catalog.Dimensions) (Package, bool) {
	return Package(d), d.Known()
}
