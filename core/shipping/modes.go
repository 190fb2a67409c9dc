package shipping

import (
	"slices"
	"time"

	"github.com/feria/feria/core/catalog"
)

// Mode is one shipping mode a seller may use in a category, as the shipping
// modes answer of area C shows it.
type Mode struct {
	Mode               string     `json:"mode"`
	ShippingAttributes Attributes `json:"shipping_attributes"`
}

// Attributes say what a listing of the mode may or must carry: costs and
// dimensions ("required", "optional", "not_allowed" or, for dimensions the
// marketplace computes itself, "clear"), and its free-shipping options.
type Attributes struct {
	Costs      string `json:"costs"`
	Dimensions string `json:"dimensions"`
	Free       Free   `json:"free"`
}

// Free are the free-shipping options of a mode.
type Free struct {
	// Methods says whether free methods may be named ("optional") or not
	// ("not_allowed").
	Methods         string  `json:"methods"`
	AcceptedMethods []int64 `json:"accepted_methods"`
	Rules           []Rule  `json:"rules"`
}

// Rule is a way of offering free shipping. Value lists the regions it
// leaves out; null when it leaves out none.
type Rule struct {
	FreeMode         string   `json:"free_mode"`
	Value            []string `json:"value"`
	Default          bool     `json:"default"`
	FreeShippingFlag bool     `json:"free_shipping_flag"`
}

// Free modes of a rule and of an item's free method.
const (
	FreeCountry       = "country"
	FreeExcludeRegion = "exclude_region"
)

// CountryExclusions are the regions that free_mode country leaves out on a
// site: on the Brazilian site the north (BR-N), the north-east (BR-NE) and
// the risk areas (BR-RISK), as area C says.
var CountryExclusions = map[string][]string{"MLB": {"BR-N", "BR-NE", "BR-RISK"}}

// Modes are the shipping modes a seller of site siteID may use in category
// c: one per logistics mode of the category, in the category's order. The
// managed modes (me1, me2) offer the category's accepted methods for free
// shipping to the whole country; not_specified offers only the free-shipping
// flag (custom free shipping, without methods); custom offers none.
func Modes(siteID string, c catalog.Category) []Mode {
	country := Rule{FreeMode: FreeCountry, Value: CountryExclusions[siteID], Default: true, FreeShippingFlag: true}
	accepted := c.AcceptedShippingMethods
	if accepted == nil {
		accepted = []int64{}
	}
	out := make([]Mode, 0, len(c.ShippingPreferences.Logistics))
	for _, l := range c.ShippingPreferences.Logistics {
		// A category naming a mode twice (with other types) offers it once.
		if slices.ContainsFunc(out, func(m Mode) bool { return m.Mode == l.Mode }) {
			continue
		}
		m := Mode{Mode: l.Mode}
		switch l.Mode {
		case "me2":
			m.ShippingAttributes = Attributes{Costs: "not_allowed", Dimensions: "clear",
				Free: Free{Methods: "optional", AcceptedMethods: accepted, Rules: []Rule{country}}}
		case "me1":
			m.ShippingAttributes = Attributes{Costs: "not_allowed", Dimensions: "required",
				Free: Free{Methods: "optional", AcceptedMethods: accepted, Rules: []Rule{country}}}
		case "not_specified":
			m.ShippingAttributes = Attributes{Costs: "not_allowed", Dimensions: "not_allowed",
				Free: Free{Methods: "not_allowed", AcceptedMethods: []int64{}, Rules: []Rule{country}}}
		default: // custom: the seller's own cost table, no free shipping
			m.ShippingAttributes = Attributes{Costs: "required", Dimensions: "not_allowed",
				Free: Free{Methods: "not_allowed", AcceptedMethods: []int64{}, Rules: []Rule{}}}
		}
		out = append(out, m)
	}
	return out
}

// Preferences is a category's shipping preferences as area C shows them.
type Preferences struct {
	Dimensions   catalog.Dimensions `json:"dimensions"`
	Logistics    []Logistic         `json:"logistics"`
	Restricted   bool               `json:"restricted"`
	Source       PreferenceFrom     `json:"source"`
	DateCreated  *time.Time         `json:"date_created"`
	LastModified *time.Time         `json:"last_modified"`
	CategoryID   string             `json:"category_id"`
}

// Logistic is a logistics mode with its types, in the field order of area C.
type Logistic struct {
	Types []string `json:"types"`
	Mode  string   `json:"mode"`
}

// PreferenceFrom names what the preferences were read from.
type PreferenceFrom struct {
	Origin     string `json:"origin"`
	Identifier string `json:"identifier"`
}

// PreferencesOf are the shipping preferences of category c: its own, so the
// source is the category itself and the dates are the category's.
func PreferencesOf(c catalog.Category) Preferences {
	p := Preferences{Dimensions: c.ShippingPreferences.Dimensions,
		Logistics: make([]Logistic, 0, len(c.ShippingPreferences.Logistics)), Restricted: c.ShippingPreferences.Restricted,
		Source: PreferenceFrom{Origin: "category", Identifier: c.ID}, CategoryID: c.ID}
	for _, l := range c.ShippingPreferences.Logistics {
		types := l.Types
		if types == nil {
			types = []string{}
		}
		p.Logistics = append(p.Logistics, Logistic{Types: types, Mode: l.Mode})
	}
	if !c.DateCreated.IsZero() {
		t := c.DateCreated
		p.DateCreated = &t
	}
	if !c.LastModified.IsZero() {
		t := c.LastModified
		p.LastModified = &t
	}
	return p
}
