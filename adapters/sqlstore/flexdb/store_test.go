package flexdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/feria/feria/adapters/sqlstore/flexdb"
	"github.com/feria/feria/ports/flexport/flexporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			flexporttest.TestStore(t, func(t *testing.T) flexporttest.Env {
				db := open(t)
				exec := func(ctx context.Context, q string, args ...any) {
					if _, err := db.ExecContext(ctx, q, args...); err != nil {
						t.Fatal(err)
					}
				}
				return flexporttest.Env{
					Store: flexdb.New(db),
					AddUser: func(ctx context.Context, id int64) {
						exec(ctx, "INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created) VALUES (?, 'U', 'MLA', 'normal', '[]', TRUE, ?)", id, time.Now())
					},
					AddItem: func(ctx context.Context, id string, seller int64) {
						exec(ctx, `INSERT INTO categories (id, site_id, name, domain_id, shipping_preferences, accepted_shipping_methods, date_created, last_modified)
							VALUES ('MLA1747', 'MLA', 'C', 'MLA-X', '{}', '[]', ?, ?) ON CONFLICT (id) DO NOTHING`, time.Now(), time.Now())
						exec(ctx, `INSERT INTO items (id, site_id, seller_id, title, category_id, domain_id, status, price, currency_id,
							available_quantity, listing_type_id, condition, attributes, tags, shipping, extra, date_created, last_updated)
							VALUES (?, 'MLA', ?, 'T', 'MLA1747', 'MLA-X', 'active', 1, 'ARS', 1, 'gold_special', 'new', '[]', '[]', '{}', '{}', ?, ?)`,
							id, seller, time.Now(), time.Now())
					},
					AddOrder: func(ctx context.Context, id, seller, buyer int64) {
						exec(ctx, `INSERT INTO orders (id, site_id, seller_id, buyer_id, pack, status, items, shipping, has_claim, date_created)
							VALUES (?, 'MLA', ?, ?, ?, 'paid', '[]', '{}', FALSE, ?)`, id, seller, buyer, id, time.Now())
					},
				}
			})
		})
	}
}
