// Package shippingdb stores the shipping rate tables of the sandbox through
// bun, one row per site, on PostgreSQL or SQLite.
package shippingdb

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/shipping"
	"github.com/feria/feria/ports/shippingport"
)

// Store implements shippingport.Rates on bun.
type Store struct{ db bun.IDB }

var _ shippingport.Rates = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

// ratesRow is one site's table. Costs, rates and the divisor are kept as
// their decimal text (JSON strings inside the JSON columns), so no database
// number type rewrites or rounds them.
type ratesRow struct {
	bun.BaseModel `bun:"table:shipping_rates"`

	SiteID              string            `bun:"site_id,pk"`
	CurrencyID          string            `bun:"currency_id"`
	VolumetricDivisor   string            `bun:"volumetric_divisor"`
	WeightTiers         []tierRow         `bun:"weight_tiers,type:jsonb"`
	ReputationDiscounts map[string]string `bun:"reputation_discounts,type:jsonb"`
}

type tierRow struct {
	UpTo int64  `json:"up_to"`
	Cost string `json:"cost"`
}

func (s *Store) idb(ctx context.Context) bun.IDB { return sqlstore.IDB(ctx, s.db) }

// PutRates upserts a site's table in one statement, so concurrent puts of a
// site leave one of them whole.
func (s *Store) PutRates(ctx context.Context, r shipping.Rates) error {
	row := ratesRow{SiteID: r.SiteID, CurrencyID: r.CurrencyID, VolumetricDivisor: string(r.VolumetricDivisor),
		WeightTiers: make([]tierRow, len(r.WeightTiers)), ReputationDiscounts: make(map[string]string, len(r.ReputationDiscounts))}
	for i, t := range r.WeightTiers {
		row.WeightTiers[i] = tierRow{UpTo: t.UpTo, Cost: string(t.Cost)}
	}
	for rep, rate := range r.ReputationDiscounts {
		row.ReputationDiscounts[rep] = string(rate)
	}
	_, err := s.idb(ctx).NewInsert().Model(&row).
		On("CONFLICT (site_id) DO UPDATE").
		Set("currency_id = EXCLUDED.currency_id, volumetric_divisor = EXCLUDED.volumetric_divisor, weight_tiers = EXCLUDED.weight_tiers, reputation_discounts = EXCLUDED.reputation_discounts").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("shippingdb: put rates %s: %w", r.SiteID, err)
	}
	return nil
}

// RatesOf reads the stored tables of the given sites in one query.
func (s *Store) RatesOf(ctx context.Context, sites []string) (map[string]shipping.Rates, error) {
	out := map[string]shipping.Rates{}
	if len(sites) == 0 {
		return out, nil
	}
	var rows []ratesRow
	if err := s.idb(ctx).NewSelect().Model(&rows).Where("site_id IN (?)", bun.In(sites)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("shippingdb: rates of %v: %w", sites, err)
	}
	for _, row := range rows {
		r := shipping.Rates{SiteID: row.SiteID, CurrencyID: row.CurrencyID,
			VolumetricDivisor:   shipping.Decimal(row.VolumetricDivisor),
			WeightTiers:         make([]shipping.Tier, len(row.WeightTiers)),
			ReputationDiscounts: make(map[string]shipping.Decimal, len(row.ReputationDiscounts))}
		for i, t := range row.WeightTiers {
			r.WeightTiers[i] = shipping.Tier{UpTo: t.UpTo, Cost: shipping.Decimal(t.Cost)}
		}
		for rep, rate := range row.ReputationDiscounts {
			r.ReputationDiscounts[rep] = shipping.Decimal(rate)
		}
		out[row.SiteID] = r
	}
	return out, nil
}
