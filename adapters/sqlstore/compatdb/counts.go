package compatdb

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/feria/feria/core/compat"
)

type countRow struct {
	ID string `bun:"id"`
	N  int    `bun:"n"`
}

// Claims counts, per compatibility, the orders with a claim whose snapshot
// confirmed it.
func (s *Store) Claims(ctx context.Context, ids []string) (map[string]int, error) {
	out := map[string]int{}
	if len(ids) == 0 {
		return out, nil
	}
	// Hand-written SQL, the fast path: one grouped count over the snapshots
	// of all the ids, no rows loaded.
	var rs []countRow
	err := s.idb(ctx).NewRaw(`SELECT s.compatibility_id AS id, count(*) AS n FROM compat_snapshots s
		JOIN orders o ON o.id = s.order_id
		WHERE s.compatibility_id IN (?) AND s.status = ? AND o.has_claim = ?
		GROUP BY s.compatibility_id`, bun.In(ids), compat.Confirmed, true).Scan(ctx, &rs)
	if err != nil {
		return nil, wrap("claims", err)
	}
	for _, r := range rs {
		out[r.ID] = r.N
	}
	return out, nil
}

type summaryRow struct {
	ItemID       string `bun:"item_id"`
	N            int    `bun:"n"`
	Notes        int    `bun:"notes"`
	Restrictions int    `bun:"restrictions"`
}

// Counts returns the summary counts per item.
func (s *Store) Counts(ctx context.Context, domainID string, itemIDs []string) (map[string]compat.Summary, error) {
	out := map[string]compat.Summary{}
	if len(itemIDs) == 0 {
		return out, nil
	}
	dom, args := "", []any{bun.In(itemIDs)}
	if domainID != "" {
		dom = " AND c.domain_id = ?"
		args = append(args, domainID)
	}
	// Hand-written SQL, the fast path: the summary counts every item of the
	// request in two grouped queries instead of loading its compatibilities.
	var rs []summaryRow
	err := s.idb(ctx).NewRaw(`SELECT c.item_id, count(*) AS n,
		SUM(CASE WHEN c.note <> '' THEN 1 ELSE 0 END) AS notes,
		SUM(CASE WHEN c.restrictions <> '[]' THEN 1 ELSE 0 END) AS restrictions
		FROM compatibilities c WHERE c.item_id IN (?)`+dom+` GROUP BY c.item_id`, args...).Scan(ctx, &rs)
	if err != nil {
		return nil, wrap("counts", err)
	}
	for _, r := range rs {
		out[r.ItemID] = compat.Summary{ItemID: r.ItemID, Compatibility: r.N, Notes: r.Notes, Restrictions: r.Restrictions}
	}
	var cs []countRow
	err = s.idb(ctx).NewRaw(`SELECT c.item_id AS id, count(*) AS n FROM compat_snapshots s
		JOIN orders o ON o.id = s.order_id JOIN compatibilities c ON c.id = s.compatibility_id
		WHERE c.item_id IN (?)`+dom+` AND s.status = ? AND o.has_claim = ? GROUP BY c.item_id`,
		append(args, compat.Confirmed, true)...).Scan(ctx, &cs)
	if err != nil {
		return nil, wrap("counts", err)
	}
	for _, r := range cs {
		sm := out[r.ID]
		sm.Claims = r.N
		out[r.ID] = sm
	}
	return out, nil
}
