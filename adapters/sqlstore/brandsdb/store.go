// Package brandsdb stores official stores (brands) and the users bound to
// them through bun.
package brandsdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/ports/brandsport"
)

// Store implements brandsport.Store on bun.
type Store struct{ db bun.IDB }

var _ brandsport.Store = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type brandRow struct {
	bun.BaseModel `bun:"table:brands"`

	ID          int64        `bun:"id,pk"`
	SiteID      string       `bun:"site_id"`
	Body        brands.Brand `bun:"body"`
	DateCreated time.Time    `bun:"date_created"`
	LastUpdated time.Time    `bun:"last_updated"`
}

type brandUserRow struct {
	bun.BaseModel `bun:"table:brand_users"`

	BrandID int64 `bun:"brand_id,pk"`
	UserID  int64 `bun:"user_id,pk"`
}

func (r brandRow) brand() brands.Brand {
	b := r.Body
	b.DateCreated, b.LastUpdated = r.DateCreated, r.LastUpdated
	return b
}

// UpsertBrand stores a brand and replaces its user bindings in one
// transaction; an existing brand keeps date_created.
func (s *Store) UpsertBrand(ctx context.Context, b brands.Brand) error {
	if b.Users == nil {
		b.Users = []int64{}
	}
	err := sqlstore.Tx{DB: s.db}.RunInTx(ctx, func(ctx context.Context) error {
		db := sqlstore.IDB(ctx, s.db)
		row := brandRow{ID: b.ID, SiteID: b.SiteID, Body: b, DateCreated: b.DateCreated, LastUpdated: b.LastUpdated}
		if _, err := db.NewInsert().Model(&row).On("CONFLICT (id) DO UPDATE").
			Set("site_id = EXCLUDED.site_id, body = EXCLUDED.body, last_updated = EXCLUDED.last_updated").Exec(ctx); err != nil {
			return err
		}
		if _, err := db.NewDelete().Model((*brandUserRow)(nil)).Where("brand_id = ?", b.ID).Exec(ctx); err != nil {
			return err
		}
		if len(b.Users) == 0 {
			return nil
		}
		rows := make([]brandUserRow, len(b.Users))
		for i, u := range b.Users {
			rows[i] = brandUserRow{BrandID: b.ID, UserID: u}
		}
		_, err := db.NewInsert().Model(&rows).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("brandsdb: upsert brand %d: %w", b.ID, err)
	}
	return nil
}

// Brand returns a brand or brandsport.ErrNotFound.
func (s *Store) Brand(ctx context.Context, id int64) (brands.Brand, error) {
	var row brandRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return brands.Brand{}, fmt.Errorf("brandsdb: brand %d: %w", id, brandsport.ErrNotFound)
	}
	if err != nil {
		return brands.Brand{}, fmt.Errorf("brandsdb: brand %d: %w", id, err)
	}
	return row.brand(), nil
}

// BrandsOfUser lists the brands bound to a user, by id.
func (s *Store) BrandsOfUser(ctx context.Context, userID int64) ([]brands.Brand, error) {
	var rows []brandRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).
		Where("id IN (SELECT brand_id FROM brand_users WHERE user_id = ?)", userID).OrderExpr("id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("brandsdb: brands of user %d: %w", userID, err)
	}
	out := make([]brands.Brand, len(rows))
	for i, r := range rows {
		out[i] = r.brand()
	}
	return out, nil
}
