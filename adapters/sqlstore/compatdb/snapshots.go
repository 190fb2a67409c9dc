package compatdb

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/core/compat"
)

type orderRow struct {
	bun.BaseModel `bun:"table:orders"`

	ID       int64 `bun:"id,pk"`
	SellerID int64 `bun:"seller_id"`
	HasClaim bool  `bun:"has_claim"`
}

// Order reads what the snapshot needs of an order.
func (s *Store) Order(ctx context.Context, id int64) (compat.Order, error) {
	var r orderRow
	if err := s.idb(ctx).NewSelect().Model(&r).Where("id = ?", id).Scan(ctx); err != nil {
		return compat.Order{}, wrap("order", err)
	}
	return compat.Order{ID: r.ID, SellerID: r.SellerID, HasClaim: r.HasClaim}, nil
}

type snapshotRow struct {
	bun.BaseModel `bun:"table:compat_snapshots"`

	OrderID              int64     `bun:"order_id,pk"`
	ItemID               string    `bun:"item_id"`
	SellerID             int64     `bun:"seller_id"`
	ProductID            string    `bun:"product_id"`
	UserSelection        *string   `bun:"user_selection"`
	Status               string    `bun:"status"`
	CompatibilityID      string    `bun:"compatibility_id"`
	Note                 string    `bun:"note"`
	Restrictions         string    `bun:"restrictions"`
	CompatibilityDeleted bool      `bun:"compatibility_deleted"`
	DateCreated          time.Time `bun:"date_created"`
	DateUpdated          time.Time `bun:"date_updated"`
}

// AddSnapshot stores a snapshot unless the order has one.
func (s *Store) AddSnapshot(ctx context.Context, sn compat.Snapshot) error {
	rs := sn.Restrictions
	if rs == nil {
		rs = []compat.Restriction{}
	}
	raw, _ := json.Marshal(rs)
	r := snapshotRow{OrderID: sn.OrderID, ItemID: sn.ItemID, SellerID: sn.SellerID, ProductID: sn.ProductID,
		Status: sn.Status, CompatibilityID: sn.CompatibilityID, Note: sn.Note, Restrictions: string(raw),
		CompatibilityDeleted: sn.CompatibilityDeleted, DateCreated: sn.DateCreated.UTC(), DateUpdated: sn.DateUpdated.UTC()}
	if sn.UserSelection != nil {
		u := string(sn.UserSelection)
		r.UserSelection = &u
	}
	_, err := s.idb(ctx).NewInsert().Model(&r).On("CONFLICT (order_id) DO NOTHING").Exec(ctx)
	return wrap("add snapshot", err)
}

// Snapshot reads an order's snapshot.
func (s *Store) Snapshot(ctx context.Context, orderID int64) (compat.Snapshot, error) {
	var r snapshotRow
	if err := s.idb(ctx).NewSelect().Model(&r).Where("order_id = ?", orderID).Scan(ctx); err != nil {
		return compat.Snapshot{}, wrap("snapshot", err)
	}
	sn := compat.Snapshot{OrderID: r.OrderID, ItemID: r.ItemID, SellerID: r.SellerID, ProductID: r.ProductID,
		Status: r.Status, CompatibilityID: r.CompatibilityID, Note: r.Note, CompatibilityDeleted: r.CompatibilityDeleted,
		DateCreated: r.DateCreated.UTC(), DateUpdated: r.DateUpdated.UTC()}
	if r.UserSelection != nil {
		sn.UserSelection = []byte(*r.UserSelection)
	}
	if err := json.Unmarshal([]byte(r.Restrictions), &sn.Restrictions); err != nil {
		return sn, fmt.Errorf("compatdb: snapshot %d: %w", orderID, err)
	}
	return sn, nil
}

// MarkSnapshotsDeleted flags the snapshots of deleted compatibilities.
func (s *Store) MarkSnapshotsDeleted(ctx context.Context, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.idb(ctx).NewUpdate().Model((*snapshotRow)(nil)).
		Set("compatibility_deleted = ?", true).Set("date_updated = ?", at.UTC()).
		Where("compatibility_id IN (?)", bun.In(ids)).Where("compatibility_deleted = ?", false).Exec(ctx)
	return wrap("mark snapshots deleted", err)
}
