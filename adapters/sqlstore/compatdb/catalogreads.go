package compatdb

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/compat"
)

type itemRow struct {
	ID               string  `bun:"id"`
	SiteID           string  `bun:"site_id"`
	SellerID         int64   `bun:"seller_id"`
	Title            string  `bun:"title"`
	CategoryID       string  `bun:"category_id"`
	DomainID         string  `bun:"domain_id"`
	Status           string  `bun:"status"`
	CatalogProductID *string `bun:"catalog_product_id"`
	PartNumber       *string `bun:"part_number"`
	Settings         *string `bun:"settings"`
}

// Item reads an item with its category's compatibility settings.
func (s *Store) Item(ctx context.Context, id string) (compat.Item, error) {
	var r itemRow
	// Hand-written: the item with its category's settings is one join that
	// reads clearer as SQL than as a bun relation between two modules' tables.
	// Prepared once per connection: every use case on an item starts here.
	err := sqlstore.One(ctx, s.db, &r, `SELECT i.id, i.site_id, i.seller_id, i.title, i.category_id, i.domain_id, i.status,
		i.catalog_product_id, i.part_number, c.compatibilities AS settings
		FROM items i LEFT JOIN categories c ON c.id = i.category_id WHERE i.id = $1`, id)
	if err != nil {
		return compat.Item{}, wrap("item", err)
	}
	it := compat.Item{ID: r.ID, SiteID: r.SiteID, SellerID: r.SellerID, Title: r.Title, CategoryID: r.CategoryID,
		DomainID: r.DomainID, Status: r.Status, CatalogProductID: r.CatalogProductID, PartNumber: r.PartNumber}
	if r.Settings != nil && *r.Settings != "" && *r.Settings != "null" {
		var cs compat.CategorySettings
		if err := json.Unmarshal([]byte(*r.Settings), &cs); err != nil {
			return it, fmt.Errorf("compatdb: category %s settings: %w", r.CategoryID, err)
		}
		it.Category = &cs
	}
	return it, nil
}

type domainRow struct {
	bun.BaseModel `bun:"table:domains"`

	ID              string `bun:"id,pk"`
	SiteID          string `bun:"site_id"`
	Main            bool   `bun:"main"`
	Compatibilities string `bun:"compatibilities"`
}

func (r domainRow) domain() (compat.Domain, error) {
	d := compat.Domain{ID: r.ID, SiteID: r.SiteID, Main: r.Main, Raw: []byte(r.Compatibilities)}
	if err := json.Unmarshal(d.Raw, &d.Links); err != nil {
		return d, fmt.Errorf("compatdb: domain %s: %w", r.ID, err)
	}
	return d, nil
}

// Domain reads one dump entry.
func (s *Store) Domain(ctx context.Context, id string) (compat.Domain, error) {
	var r domainRow
	if err := s.idb(ctx).NewSelect().Model(&r).Where("id = ?", id).Scan(ctx); err != nil {
		return compat.Domain{}, wrap("domain", err)
	}
	return r.domain()
}

// Domains reads the dump of a site, by domain id.
func (s *Store) Domains(ctx context.Context, siteID string) ([]compat.Domain, error) {
	var rs []domainRow
	if err := s.idb(ctx).NewSelect().Model(&rs).Where("site_id = ?", siteID).Order("id").Scan(ctx); err != nil {
		return nil, wrap("domains", err)
	}
	out := make([]compat.Domain, 0, len(rs))
	for _, r := range rs {
		d, err := r.domain()
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

type productRow struct {
	bun.BaseModel `bun:"table:products"`

	ID       string  `bun:"id,pk"`
	SiteID   string  `bun:"site_id"`
	DomainID string  `bun:"domain_id"`
	Name     string  `bun:"name"`
	ParentID *string `bun:"parent_id"`
}

func (r productRow) product() compat.Product {
	return compat.Product{ID: r.ID, SiteID: r.SiteID, DomainID: r.DomainID, Name: r.Name, ParentID: r.ParentID}
}

// Products reads those of ids that exist.
func (s *Store) Products(ctx context.Context, ids []string) (map[string]compat.Product, error) {
	out := make(map[string]compat.Product, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rs []productRow
	if err := s.idb(ctx).NewSelect().Model(&rs).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, wrap("products", err)
	}
	for _, r := range rs {
		out[r.ID] = r.product()
	}
	return out, nil
}
