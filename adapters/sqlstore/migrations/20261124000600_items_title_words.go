package migrations

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/feria/feria/core/catalog"
)

// The site search (GET /sites/{site_id}/search) matches the words of a
// query against the words of titles. Both databases must agree on what a
// word is, so the title's words are computed in Go (catalog.TitleWords:
// lower-cased, without accents) and kept beside the title: SQL only asks
// LIKE '% word%', the same on PostgreSQL and SQLite. Existing items are
// filled in here. The index serves the site's active items in id order.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		if err := Exec(ctx, db,
			`ALTER TABLE items ADD COLUMN title_words TEXT NOT NULL DEFAULT ''`,
			`CREATE INDEX items_site_status ON items (site_id, status, id)`,
		); err != nil {
			return err
		}
		return FillTitleWords(ctx, db)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP INDEX items_site_status`, `ALTER TABLE items DROP COLUMN title_words`)
	})
}

// FillTitleWords sets the title_words of every item from its title.
func FillTitleWords(ctx context.Context, db bun.IDB) error {
	var rows []struct {
		ID    string `bun:"id"`
		Title string `bun:"title"`
	}
	if err := db.NewSelect().Table("items").Column("id", "title").Scan(ctx, &rows); err != nil {
		return fmt.Errorf("migration: read item titles: %w", err)
	}
	for _, r := range rows {
		if _, err := db.NewUpdate().Table("items").Set("title_words = ?", catalog.TitleWords(r.Title)).
			Where("id = ?", r.ID).Exec(ctx); err != nil {
			return fmt.Errorf("migration: title words of %s: %w", r.ID, err)
		}
	}
	return nil
}
