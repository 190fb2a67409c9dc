package fiscaldb

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/feria/feria/test/testenv"
)

// The pack read (every fiscal upload, list and download) finds a pack's
// first order through orders_pack_id before the table has statistics, and
// in the generic plan a prepared statement may keep on its connection:
// with an index of the pack alone both walked the primary key and
// filtered 20,000 orders.
func TestPackReadUsesThePackIndex(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx) // PREPARE and SET hold for one session
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		`INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created)
			VALUES (10, 'S', 'MLA', 'normal', '[]', TRUE, now()), (20, 'B', 'MLA', 'normal', '[]', TRUE, now())`,
		`INSERT INTO orders (id, site_id, seller_id, buyer_id, pack_id, pack, status, items, shipping, has_claim, date_created)
			SELECT 6000000 + i, 'MLA', 10, 20, 5000000 + i, 5000000 + i, 'paid', '[]', '{}', FALSE, now()
			FROM generate_series(0, 19999) AS i`,
		`PREPARE pack_read(bigint) AS ` + withDocumentsSQL,
		`SET plan_cache_mode = force_generic_plan`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := conn.QueryContext(ctx, `EXPLAIN EXECUTE pack_read(5019999)`)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line sql.NullString
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line.String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(plan, "\n"); !strings.Contains(text, "orders_pack_id") {
		t.Fatalf("the pack read does not use orders_pack_id:\n%s", text)
	}
}
