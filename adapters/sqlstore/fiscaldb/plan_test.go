package fiscaldb

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/feria/feria/adapters/sqlstore"
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

// The documents read comes back to the pack's index once the table has
// grown from empty, before any ANALYZE: a statement prepared while it was
// empty keeps a generic plan that scans the whole table at every read, for
// as long as autovacuum takes to analyze it (minutes, behind a thousand
// worlds' tables); the read's statement is prepared anew after
// sqlstore.ReplanEvery runs, planned against the table as it is. One
// connection, so that every read runs where the first ones did.
func TestDocumentsReadFollowsTheTableGrowing(t *testing.T) {
	ctx := context.Background()
	db, err := sqlstore.OpenPostgres(ctx, testenv.PostgresSchemaURL(t)+"&pool_max_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created)
		VALUES (10, 'S', 'MLA', 'normal', '[]', TRUE, now()), (20, 'B', 'MLA', 'normal', '[]', TRUE, now())`)
	exec(`INSERT INTO orders (id, site_id, seller_id, buyer_id, pack_id, pack, status, items, shipping, has_claim, date_created)
		SELECT 6000000 + i, 'MLA', 10, 20, 5000000 + i, 5000000 + i, 'paid', '[]', '{}', FALSE, now()
		FROM generate_series(0, 99) AS i`)
	exec(`ANALYZE fiscal_documents`)
	s := New(db)
	read := func(times int) {
		t.Helper()
		for i := range times {
			if _, _, err := s.WithDocuments(ctx, int64(5000000+i%100)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Enough reads of the empty table for PostgreSQL to settle on a
	// generic plan, had the statement one.
	read(10)
	exec(`INSERT INTO fiscal_documents (id, pack_id, seller_id, file_type, filename, content_type, size, blob_key, date_created)
		SELECT 'd' || i, 5000000 + i % 100, 10, 't' || i / 100, 'f.pdf', 'application/pdf', 1, 'k' || i, now()
		FROM generate_series(0, 4999) AS i`)
	seqScans := func() int64 {
		t.Helper()
		// This connection's counts reach the shared statistics once it is
		// idle after asking for it.
		exec(`SELECT pg_stat_force_next_flush()`)
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT seq_scan FROM pg_stat_user_tables WHERE relid = 'fiscal_documents'::regclass`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	read(sqlstore.ReplanEvery)
	before := seqScans()
	read(20)
	if n := seqScans() - before; n != 0 {
		t.Fatalf("%d of 20 reads of a pack's documents scanned the whole table", n)
	}
}
