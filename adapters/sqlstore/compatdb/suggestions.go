package compatdb

import (
	"context"
	"strings"

	"github.com/feria/feria/core/compat"
)

// Suggestions returns the vehicles of other active items sharing the item's
// catalog product or part number that the item lacks.
func (s *Store) Suggestions(ctx context.Context, it compat.Item) ([]compat.Product, error) {
	var conds []string
	args := []any{it.ID, "active"}
	if it.CatalogProductID != nil && *it.CatalogProductID != "" {
		conds = append(conds, "o.catalog_product_id = ?")
		args = append(args, *it.CatalogProductID)
	}
	if it.PartNumber != nil && *it.PartNumber != "" {
		conds = append(conds, "o.part_number = ?")
		args = append(args, *it.PartNumber)
	}
	if len(conds) == 0 {
		return []compat.Product{}, nil
	}
	args = append(args, it.ID)
	// Hand-written SQL, the fast path: one DISTINCT join finds the vehicles
	// of twin items instead of reading their compatibilities.
	var rs []productRow
	err := s.idb(ctx).NewRaw(`SELECT DISTINCT p.id, p.site_id, p.domain_id, p.name, p.parent_id
		FROM items o JOIN compatibilities c ON c.item_id = o.id JOIN products p ON p.id = c.product_id
		WHERE o.id <> ? AND o.status = ? AND (`+strings.Join(conds, " OR ")+`)
		AND NOT EXISTS (SELECT 1 FROM compatibilities m WHERE m.item_id = ? AND m.product_id = c.product_id)
		ORDER BY p.id`, args...).Scan(ctx, &rs)
	if err != nil {
		return nil, wrap("suggestions", err)
	}
	out := make([]compat.Product, len(rs))
	for i, r := range rs {
		out[i] = r.product()
	}
	return out, nil
}
