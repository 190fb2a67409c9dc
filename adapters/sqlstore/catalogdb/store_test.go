package catalogdb_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore/catalogdb"
	"github.com/feria/feria/ports/catalogport/catalogporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			catalogporttest.TestStore(t, func(t *testing.T) catalogporttest.Env { return env(t, open(t)) })
		})
	}
}

func env(t testing.TB, db *bun.DB) catalogporttest.Env {
	exec := func(ctx context.Context, q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	n := 0
	return catalogporttest.Env{
		Store: catalogdb.New(db),
		AddUser: func(ctx context.Context, id int64) {
			exec(ctx, "INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created) VALUES (?, 'U', 'MLA', 'normal', '[]', TRUE, ?)", id, now)
		},
		AddCompatibility: func(ctx context.Context, itemID, productID string) {
			n++
			exec(ctx, `INSERT INTO compatibilities (id, item_id, domain_id, product_id, source, creation_source, note, note_status, restrictions, date_created, last_updated)
				VALUES (?, ?, 'MLA-CARS_AND_VANS', ?, 'SELLER', 'ITEM_SUGGESTIONS', '', 'PENDING', '[]', ?, ?)`, "c"+string(rune('a'+n)), itemID, productID, now, now)
		},
		SetCompatState: func(ctx context.Context, itemID string, universal, exception bool) {
			exec(ctx, `INSERT INTO item_compat_state (item_id, universal, universal_domain_ids, has_exception, exception_comment) VALUES (?, ?, '[]', ?, '')`, itemID, universal, exception)
		},
		EnableFlex: func(ctx context.Context, itemID string) {
			exec(ctx, `INSERT INTO flex_items (item_id, enabled_at) VALUES (?, ?)`, itemID, now)
		},
		ProductIndex: func(ctx context.Context, productID string) []string {
			var rows []struct {
				AttributeID string `bun:"attribute_id"`
				ValueID     string `bun:"value_id"`
				ValueName   string `bun:"value_name"`
			}
			if err := db.NewSelect().TableExpr("product_attributes").Column("attribute_id", "value_id", "value_name").
				Where("product_id = ?", productID).Scan(ctx, &rows); err != nil {
				t.Fatal(err)
			}
			out := []string{}
			for _, r := range rows {
				out = append(out, r.AttributeID+"|"+r.ValueID+"|"+r.ValueName)
			}
			sort.Strings(out)
			return out
		},
		PartNumber: func(ctx context.Context, itemID string) *string {
			var pn *string
			if err := db.NewSelect().TableExpr("items").Column("part_number").Where("id = ?", itemID).Scan(ctx, &pn); err != nil {
				t.Fatal(err)
			}
			return pn
		},
	}
}
