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
// steps of sandbox.md's formula that the verbose answer shows.
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

// Quote computes the free-shipping cost of package p for a seller of the
// given reputation (nil: none), as sandbox.md's "Shipping costs" fixes it:
//  1. billable = max(weight, ⌈H·W·L·1000 / volumetric_divisor⌉) grams;
//  2. gross = the cost of the first tier whose up_to ≥ billable (heavier
//     than the last tier: ErrTooHeavy, naming the dimensions);
//  3. rate = the reputation's discount, 0 when absent;
//  4. promoted = gross·rate rounded half away from zero to 2 decimals;
//     list_cost = gross − promoted; type loyal when rate > 0, else none.
//
// r must have been through Normalize.
func (r Rates) Quote(p Package, reputation *string) (Quote, error) {
	divisor, ok := r.VolumetricDivisor.Rat()
	if !ok || divisor.Sign() <= 0 || len(r.WeightTiers) == 0 {
		return Quote{}, errBadTable
	}
	volume := new(big.Int).Mul(big.NewInt(p.Height), big.NewInt(p.Width))
	volume.Mul(volume, big.NewInt(p.Length))
	volume.Mul(volume, big.NewInt(1000))
	billable := ceilDiv(new(big.Rat).Quo(new(big.Rat).SetInt(volume), divisor))
	if w := big.NewInt(p.Weight); w.Cmp(billable) > 0 {
		billable = w
	}
	tier := -1
	for i, t := range r.WeightTiers {
		if billable.Cmp(big.NewInt(t.UpTo)) <= 0 {
			tier = i
			break
		}
	}
	if tier < 0 {
		last := r.WeightTiers[len(r.WeightTiers)-1].UpTo
		msg := fmt.Sprintf("dimensions %s give a billable weight of %s g, heavier than the last weight tier of %s (%d g)",
			p, billable, r.SiteID, last)
		return Quote{}, ErrTooHeavy.With(msg).WithCause("dimensions", msg)
	}
	cost, ok := r.WeightTiers[tier].Cost.Rat()
	if !ok {
		return Quote{}, errBadTable
	}
	gross, ok := amountOf(cost)
	if !ok {
		return Quote{}, errBadTable
	}
	q := Quote{CurrencyID: r.CurrencyID, BillableWeight: billable.Int64(), Gross: gross, Rate: "0", DiscountType: DiscountNone}
	if reputation != nil {
		if d, found := r.ReputationDiscounts[*reputation]; found {
			q.Rate = d
		}
	}
	rate, ok := q.Rate.Rat()
	if !ok {
		return Quote{}, errBadTable
	}
	promoted := roundHalfAway(new(big.Rat).Mul(new(big.Rat).SetInt64(int64(gross)), rate))
	q.Promoted = Amount(promoted.Int64())
	q.ListCost = q.Gross - q.Promoted
	if rate.Sign() > 0 {
		q.DiscountType = DiscountLoyal
	}
	return q, nil
}
