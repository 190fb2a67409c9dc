// Package shipping holds the rules of area C: the shipping modes a seller may
// use in a category, a category's shipping preferences, the per-site rate
// tables of the sandbox and the free-shipping cost computed from them
// (volumetric weight, weight tiers, reputation discounts), all as pure
// functions over exact money.
package shipping

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/feria/feria/core/catalog"
)

// Package is a parcel: height, width and length in centimetres, weight in
// grams, all positive integers (sandbox.md, "Shipping costs").
type Package struct {
	Height, Width, Length, Weight int64
}

// String is the package in the dimensions form of the API: HxWxL,weight.
func (p Package) String() string {
	return fmt.Sprintf("%dx%dx%d,%d", p.Height, p.Width, p.Length, p.Weight)
}

// ParseDimensions reads "HxWxL,weight" in centimetres and grams; every
// figure must be a positive integer written in plain digits.
func ParseDimensions(s string) (Package, error) {
	bad := fmt.Errorf("must be <height>x<width>x<length>,<weight> in positive whole centimetres and grams, got %q", s)
	sizes, weight, ok := strings.Cut(s, ",")
	if !ok {
		return Package{}, bad
	}
	parts := strings.Split(sizes, "x")
	if len(parts) != 3 {
		return Package{}, bad
	}
	var v [4]int64
	for i, raw := range append(parts, weight) {
		if raw == "" || strings.TrimLeft(raw, "0123456789") != "" {
			return Package{}, bad
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 {
			return Package{}, bad
		}
		v[i] = n
	}
	return Package{Height: v[0], Width: v[1], Length: v[2], Weight: v[3]}, nil
}

// Source says where the dimensions of a cost came from.
type Source string

// Where dimensions come from, in the order they are tried.
const (
	FromQuery    Source = "query"
	FromItem     Source = "item"
	FromCategory Source = "category"
)

// PackageOf picks the dimensions of a cost as sandbox.md orders them: the
// query's when given, else the item's shipping.dimensions, else the
// category's standard dimensions. item may be nil (a listing not yet
// created); query "" means not given.
func PackageOf(query string, item *catalog.Item, c catalog.Category) (Package, Source, error) {
	if query != "" {
		p, err := ParseDimensions(query)
		if err != nil {
			return Package{}, FromQuery, ErrBadDimensions.With("dimensions "+err.Error()).
				WithCause("dimensions", "dimensions "+err.Error())
		}
		return p, FromQuery, nil
	}
	if !NeedsCategory(query, item) {
		p, err := ParseDimensions(*item.Shipping.Dimensions)
		if err != nil {
			msg := fmt.Sprintf("item %s has shipping.dimensions that %s", item.ID, err.Error())
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
func NeedsCategory(query string, item *catalog.Item) bool {
	return query == "" && (item == nil || item.Shipping.Dimensions == nil || *item.Shipping.Dimensions == "")
}

// CategoryPackage is a category's standard dimensions as a package; ok is
// false when the category has none (any figure zero or not whole).
func CategoryPackage(d catalog.Dimensions) (Package, bool) {
	var v [4]int64
	for i, f := range []float64{d.Height, d.Width, d.Length, d.Weight} {
		if f <= 0 || f != math.Trunc(f) || f > math.MaxInt64/2 {
			return Package{}, false
		}
		v[i] = int64(f)
	}
	return Package{Height: v[0], Width: v[1], Length: v[2], Weight: v[3]}, true
}
