package migrations_test

import (
	"context"
	"testing"

	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/test/testenv"
)

// Items stored before the site search existed get their title words.
func TestFillTitleWords(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			ctx := context.Background()
			for _, q := range []string{
				`INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created) VALUES (1, 'S', 'MLA', 'normal', '[]', TRUE, '2026-11-20 12:00:00')`,
				`INSERT INTO categories (id, site_id, name, domain_id, shipping_preferences, accepted_shipping_methods, date_created, last_modified) VALUES ('MLA1', 'MLA', 'C', 'MLA-X', '{}', '[]', '2026-11-20 12:00:00', '2026-11-20 12:00:00')`,
				`INSERT INTO items (id, site_id, seller_id, title, category_id, domain_id, status, price, currency_id, available_quantity, listing_type_id, condition, attributes, tags, shipping, extra, date_created, last_updated)
					VALUES ('MLA2', 'MLA', 1, 'Bujía  NGK-7', 'MLA1', 'MLA-X', 'active', 1, 'ARS', 1, 'gold_special', 'new', '[]', '[]', '{}', '{}', '2026-11-20 12:00:00', '2026-11-20 12:00:00')`,
			} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			if err := migrations.FillTitleWords(ctx, db); err != nil {
				t.Fatal(err)
			}
			var words string
			if err := db.NewRaw("SELECT title_words FROM items WHERE id = 'MLA2'").Scan(ctx, &words); err != nil || words != " bujia ngk 7" {
				t.Errorf("title_words %q (%v)", words, err)
			}
		})
	}
}
