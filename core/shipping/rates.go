package shipping

import (
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/kernel"
)

// Rates is the rate table of one site: what shipping a package costs by its
// billable weight, and the discount each seller reputation earns.
type Rates struct {
	SiteID     string `json:"site_id"`
	CurrencyID string `json:"currency_id"`
	// VolumetricDivisor is in cm³ per kg: a package of V cm³ weighs at
	// least V·1000/divisor grams.
	VolumetricDivisor Decimal `json:"volumetric_divisor"`
	// WeightTiers are ordered by UpTo, strictly increasing.
	WeightTiers []Tier `json:"weight_tiers"`
	// ReputationDiscounts maps a reputation (green, yellow, orange, red) to
	// a rate in [0, 1]; a reputation without an entry gets no discount.
	ReputationDiscounts map[string]Decimal `json:"reputation_discounts"`
}

// Tier is the cost of a package whose billable weight is at most UpTo grams
// (and above the previous tier's UpTo).
type Tier struct {
	UpTo int64   `json:"up_to"`
	Cost Decimal `json:"cost"`
}

// Normalize checks a rate table against docs/sandbox.md and returns it with its
// numbers in canonical form (0.50 → 0.5), so that equal tables answer equal
// bytes. Every broken rule is a cause naming its field.
func Normalize(r Rates) (Rates, error) {
	var p kernel.Problems
	out := Rates{SiteID: r.SiteID, CurrencyID: r.CurrencyID, WeightTiers: make([]Tier, len(r.WeightTiers)),
		ReputationDiscounts: make(map[string]Decimal, len(r.ReputationDiscounts))}
	if site, ok := kernel.LookupSite(r.SiteID); !ok {
		p.Site("site_id", r.SiteID)
	} else if r.CurrencyID != site.Currency {
		p.Add("currency_id", "currency_id must be %s, the currency of site %s, got %q", site.Currency, site.ID, r.CurrencyID)
	}
	if v, ok := number(&p, "volumetric_divisor", r.VolumetricDivisor); ok {
		if v.Sign() <= 0 {
			p.Add("volumetric_divisor", "volumetric_divisor must be greater than 0 (cm³ per kg), got %s", r.VolumetricDivisor)
		}
		out.VolumetricDivisor = decimalOf(v)
	}
	if len(r.WeightTiers) == 0 {
		p.Add("weight_tiers", "weight_tiers must hold at least one tier")
	}
	for i, t := range r.WeightTiers {
		field := fmt.Sprintf("weight_tiers[%d]", i)
		switch {
		case t.UpTo <= 0:
			p.Add(field+".up_to", "%s.up_to must be a positive number of grams, got %d", field, t.UpTo)
		case i > 0 && t.UpTo <= r.WeightTiers[i-1].UpTo:
			p.Add(field+".up_to", "%s.up_to must be greater than the previous tier's (%d), got %d", field, r.WeightTiers[i-1].UpTo, t.UpTo)
		}
		out.WeightTiers[i].UpTo = t.UpTo
		if v, ok := number(&p, field+".cost", t.Cost); ok {
			if _, cents := amountOf(v); v.Sign() < 0 || !cents {
				p.Add(field+".cost", "%s.cost must be a number ≥ 0 with at most two decimals, got %s", field, t.Cost)
			}
			out.WeightTiers[i].Cost = decimalOf(v)
		}
	}
	for _, rep := range slices.Sorted(maps.Keys(r.ReputationDiscounts)) {
		field := "reputation_discounts." + rep
		if !slices.Contains(account.Reputations, rep) {
			p.Add(field, "reputation_discounts keys must be green, yellow, orange or red, got %q", rep)
			continue
		}
		if v, ok := number(&p, field, r.ReputationDiscounts[rep]); ok {
			if v.Sign() < 0 || v.Cmp(big.NewRat(1, 1)) > 0 {
				p.Add(field, "%s must be a rate between 0 and 1, got %s", field, r.ReputationDiscounts[rep])
			}
			out.ReputationDiscounts[rep] = decimalOf(v)
		}
	}
	if err := p.Err(ErrInvalidRates); err != nil {
		return Rates{}, err
	}
	return out, nil
}

// number reads a required decimal field, recording a problem when it is
// absent or not a number.
func number(p *kernel.Problems, field string, d Decimal) (*big.Rat, bool) {
	if d == "" {
		p.Add(field, "%s is required", field)
		return nil, false
	}
	v, ok := d.Rat()
	if !ok {
		p.Add(field, "%s must be a number, got %s", field, d)
	}
	return v, ok
}

// Default is the rate table of a site until the sandbox puts another; ok is
// false for an unknown site. The tables are documented in docs/shipping.md.
func Default(siteID string) (Rates, bool) {
	d, ok := defaults[siteID]
	if !ok {
		return Rates{}, false
	}
	site, _ := kernel.LookupSite(siteID)
	r := Rates{SiteID: siteID, CurrencyID: site.Currency, VolumetricDivisor: "5000",
		ReputationDiscounts: map[string]Decimal{"green": "0.5", "yellow": "0.4"}}
	for i, c := range d {
		r.WeightTiers = append(r.WeightTiers, Tier{UpTo: defaultTiers[i], Cost: c})
	}
	return r, true
}

// defaultTiers are the weight limits of every default table, in grams.
var defaultTiers = [4]int64{500, 1000, 5000, 30000}

// defaults are the costs of the default tiers per site, in the site's
// currency: the Argentine table is docs/sandbox.md's example, the others are of
// the same shape at a like price level.
var defaults = map[string][4]Decimal{
	"MLA": {"4000", "5200", "9500", "15000"},
	"MLB": {"22.9", "27.9", "39.9", "79.9"},
	"MLM": {"99", "119", "169", "299"},
	"MLC": {"3290", "3990", "5990", "11990"},
	"MCO": {"9900", "12900", "18900", "39900"},
	"MLU": {"190", "240", "350", "690"},
	"MPE": {"12.9", "15.9", "22.9", "45.9"},
	"MEC": {"4.5", "5.5", "8.9", "17.9"},
}
