// Package salesdb stores orders through bun.
package salesdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/salesport"
)

// Store implements salesport.Orders on bun.
type Store struct{ db bun.IDB }

var _ salesport.Orders = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type orderRow struct {
	bun.BaseModel `bun:"table:orders"`
	sales.Order
	// Pack is the effective pack (pack_id or the order id), what pack
	// queries filter on.
	Pack int64 `bun:"pack"`
}

// UpsertOrder stores an order and reports whether its id was new.
func (s *Store) UpsertOrder(ctx context.Context, o sales.Order) (first bool, err error) {
	if o.Items == nil {
		o.Items = []sales.OrderItem{}
	}
	// Insert-or-nothing first, so that "first" comes from the insert itself:
	// of two stores of a new order at once, exactly one inserts (the other's
	// insert waits for it and does nothing), where reading "absent" first let
	// both report first.
	err = sqlstore.Tx{DB: s.db}.RunInTx(ctx, func(ctx context.Context) error {
		db := sqlstore.IDB(ctx, s.db)
		row := &orderRow{Order: o, Pack: o.Pack()}
		var ids []int64
		if err := db.NewInsert().Model(row).On("CONFLICT (id) DO NOTHING").Returning("id").Scan(ctx, &ids); err != nil && !sqlstore.IsNoRows(err) {
			return err
		}
		if first = len(ids) == 1; first {
			return nil
		}
		_, err := db.NewUpdate().Model(row).
			Column("site_id", "seller_id", "buyer_id", "pack_id", "pack", "status", "items", "shipping", "has_claim", "compatibility_selection").
			Where("id = ?", o.ID).Exec(ctx)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("salesdb: upsert order %d: %w", o.ID, err)
	}
	return first, nil
}

// Order returns an order or salesport.ErrNotFound.
func (s *Store) Order(ctx context.Context, id int64) (sales.Order, error) {
	var row orderRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return sales.Order{}, fmt.Errorf("salesdb: order %d: %w", id, salesport.ErrNotFound)
	}
	if err != nil {
		return sales.Order{}, fmt.Errorf("salesdb: order %d: %w", id, err)
	}
	return row.Order, nil
}

// OrdersOfPack lists the orders of a pack by id.
func (s *Store) OrdersOfPack(ctx context.Context, pack int64) ([]sales.Order, error) {
	var rows []orderRow
	if err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("pack = ?", pack).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("salesdb: orders of pack %d: %w", pack, err)
	}
	out := make([]sales.Order, len(rows))
	for i, r := range rows {
		out[i] = r.Order
	}
	return out, nil
}

// OrdersOf lists a seller's or a buyer's orders, of one status unless
// status is "", by date_created then id.
func (s *Store) OrdersOf(ctx context.Context, seller, buyer int64, status string) ([]sales.Order, error) {
	var rows []orderRow
	q := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows)
	if seller != 0 {
		q = q.Where("seller_id = ?", seller)
	} else {
		q = q.Where("buyer_id = ?", buyer)
	}
	if status != "" {
		q = q.Where("status = ?", status)
	}
	if err := q.OrderExpr("date_created, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("salesdb: orders of seller %d buyer %d: %w", seller, buyer, err)
	}
	out := make([]sales.Order, len(rows))
	for i, r := range rows {
		out[i] = r.Order
	}
	return out, nil
}

// Notes implements salesport.Notes on bun.
type Notes struct{ db bun.IDB }

var _ salesport.Notes = (*Notes)(nil)

// NewNotes returns a notes store on db.
func NewNotes(db bun.IDB) *Notes { return &Notes{db: db} }

type noteRow struct {
	bun.BaseModel   `bun:"table:order_notes"`
	ID              string    `bun:"id,pk"`
	OrderID         int64     `bun:"order_id"`
	Note            string    `bun:"note"`
	DateCreated     time.Time `bun:"date_created"`
	DateLastUpdated time.Time `bun:"date_last_updated"`
}

// AddNote stores a note.
func (s *Notes) AddNote(ctx context.Context, n sales.Note) error {
	row := &noteRow{ID: n.ID, OrderID: n.OrderID, Note: n.Note, DateCreated: n.DateCreated, DateLastUpdated: n.DateLastUpdated}
	if _, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(row).Exec(ctx); err != nil {
		return fmt.Errorf("salesdb: add note to order %d: %w", n.OrderID, err)
	}
	return nil
}

// Notes lists an order's notes, oldest first.
func (s *Notes) Notes(ctx context.Context, orderID int64) ([]sales.Note, error) {
	var rows []noteRow
	if err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("order_id = ?", orderID).OrderExpr("date_created, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("salesdb: notes of order %d: %w", orderID, err)
	}
	out := make([]sales.Note, len(rows))
	for i, r := range rows {
		out[i] = sales.Note{ID: r.ID, OrderID: r.OrderID, Note: r.Note, DateCreated: r.DateCreated.UTC(), DateLastUpdated: r.DateLastUpdated.UTC()}
	}
	return out, nil
}
