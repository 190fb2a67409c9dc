package shipping

import (
	"fmt"
	"math/big"

	"github.com/feria/feria/core/kernel"
)

// Discount types of a free-shipping cost.
const (
	DiscountLoyal = "loyal"
	DiscountNone  = "none"
)

// Quote is the free-shipping cost of one package for one seller, with the
// steps of docs/sandbox.md's formula that the verbose answer shows.
type Quote struct {
	CurrencyID string
	// BillableWeight is in grams: the real weight or the volumetric one,
	// whichever is greater.
	BillableWeight int64
	// Gross is the cost of the tier the billable weight falls in.
	Gross Amount
	// Rate is the seller's reputation discount, 0 when none applies.
	Rate Decimal
	// Promoted is Gross·Rate rounded half away from zero to cents.
	Promoted Amount
	// ListCost is Gross − Promoted: what the seller pays.
	ListCost     Amount
	DiscountType string
}

var errBadTable = kernel.E(kernel.Internal, "internal_server_error", "shipping: rate table is not normalized")

// Table is a rate table with its numbers read once, to quote many packages
// (the 50 items of a multi-item cost) without parsing a decimal per quote.
type Table struct {
	site, currency string
	divisor        *big.Rat
	upTo           []int64
	costs          []Amount
	discounts      map[string]rate
}

type rate struct {
	text Decimal
	frac *big.Rat
}

// Table reads r's numbers; r must have been through Normalize.
func (r Rates) Table() (Table, error) {
	divisor, ok := r.VolumetricDivisor.Rat()
	if !ok || divisor.Sign() <= 0 || len(r.WeightTiers) == 0 {
		return Table{}, errBadTable
	}
	t := Table{site: r.SiteID, currency: r.CurrencyID, divisor: divisor, upTo: make([]int64, len(r.WeightTiers)),
		costs: make([]Amount, len(r.WeightTiers)), discounts: make(map[string]rate, len(r.ReputationDiscounts))}
	for i, tier := range r.WeightTiers {
		c, ok := tier.Cost.Rat()
		if !ok {
			return Table{}, errBadTable
		}
		if t.costs[i], ok = amountOf(c); !ok {
			return Table{}, errBadTable
		}
		t.upTo[i] = tier.UpTo
	}
	for rep, d := range r.ReputationDiscounts {
		f, ok := d.Rat()
		if !ok {
			return Table{}, errBadTable
		}
		t.discounts[rep] = rate{text: d, frac: f}
	}
	return t, nil
}

// Quote computes the free-shipping cost of package p for a seller of the
// given reputation (nil: none) on rate table r; see Table.Quote.
func (r Rates) Quote(p Package, reputation *string) (Quote, error) {
	t, err := r.Table()
	if err != nil {
		return Quote{}, err
	}
	return t.Quote(p, reputation)
}

// Quote computes the free-shipping cost of package p for a seller of the
// given reputation (nil: none), as docs/sandbox.md's "Shipping costs" fixes it:
//  1. billable = max(weight, ⌈H·W·L·1000 / volumetric_divisor⌉) grams;
//  2. gross = the cost of the first tier whose up_to ≥ billable (heavier
//     than the last tier: ErrTooHeavy, naming the dimensions);
//  3. rate = the reputation's discount, 0 when absent;
//  4. promoted = gross·rate rounded half away from zero to 2 decimals;
//     list_cost = gross − promoted; type loyal when rate > 0, else none.
func (t Table) Quote(p Package, reputation *string) (Quote, error) {
	volume := new(big.Int).Mul(big.NewInt(p.Height), big.NewInt(p.Width))
	volume.Mul(volume, big.NewInt(p.Length))
	volume.Mul(volume, big.NewInt(1000))
	billable := ceilDiv(new(big.Rat).Quo(new(big.Rat).SetInt(volume), t.divisor))
	if w := big.NewInt(p.Weight); w.Cmp(billable) > 0 {
		billable = w
	}
	tier := -1
	if billable.IsInt64() {
		b := billable.Int64()
		for i, upTo := range t.upTo {
			if b <= upTo {
				tier = i
				break
			}
		}
	}
	if tier < 0 {
		msg := fmt.Sprintf("dimensions %s give a billable weight of %s g, heavier than the last weight tier of %s (%d g)",
			p, billable, t.site, t.upTo[len(t.upTo)-1])
		return Quote{}, ErrTooHeavy.With(msg).WithCause("dimensions", msg)
	}
	gross := t.costs[tier]
	q := Quote{CurrencyID: t.currency, BillableWeight: billable.Int64(), Gross: gross, Rate: "0", ListCost: gross, DiscountType: DiscountNone}
	if reputation == nil {
		return q, nil
	}
	d, found := t.discounts[*reputation]
	if !found || d.frac.Sign() == 0 {
		if found {
			q.Rate = d.text
		}
		return q, nil
	}
	promoted := roundHalfAway(new(big.Rat).Mul(new(big.Rat).SetInt64(int64(gross)), d.frac))
	q.Rate, q.Promoted, q.DiscountType = d.text, Amount(promoted.Int64()), DiscountLoyal
	q.ListCost = q.Gross - q.Promoted
	return q, nil
}
