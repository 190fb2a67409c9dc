package migrations

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
)

// compat_versions holds, per item, a version of everything its list of
// compatibilities answers besides the item row itself: its compatibilities
// (with their vehicles' names, kept by the triggers of 20261125000200), its
// universal state, its snapshots and the claims of their orders. Triggers
// give it a new random value in the transaction of every change of those
// rows, whoever writes them, so that a list whose version is unchanged may
// be answered from a copy (compatdb's list cache). A version is
// random, never a counter: a counter restarts after the sandbox's reset
// (TRUNCATE fires no trigger) or a rolled-back change, and could meet a
// value a cache still holds. An item with no row has no version and is
// never answered from a copy; its deletion removes its row.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		if !sqlstore.IsPostgres(db) {
			return compatVersionsSQLite(ctx, db)
		}
		return compatVersionsPostgres(ctx, db)
	}, dropCompatVersions)
}

// compatVersionsSQLite: SQLite's triggers are per row and run a statement
// list, the bump written out in each.
func compatVersionsSQLite(ctx context.Context, db *bun.DB) error {
	bump := func(item string) string {
		return `INSERT INTO compat_versions (item_id, v) VALUES (` + item + `, random())
					ON CONFLICT (item_id) DO UPDATE SET v = excluded.v;`
	}
	claims := `INSERT INTO compat_versions (item_id, v) SELECT s.item_id, random() FROM compat_snapshots s
				WHERE s.order_id = %s AND true ON CONFLICT (item_id) DO UPDATE SET v = excluded.v;`
	return Exec(ctx, db,
		`CREATE TABLE compat_versions (item_id TEXT PRIMARY KEY, v BIGINT NOT NULL)`,
		`CREATE TRIGGER compat_versions_compat_insert AFTER INSERT ON compatibilities BEGIN `+bump("NEW.item_id")+` END`,
		`CREATE TRIGGER compat_versions_compat_update AFTER UPDATE ON compatibilities BEGIN `+bump("NEW.item_id")+bump("OLD.item_id")+` END`,
		`CREATE TRIGGER compat_versions_compat_delete AFTER DELETE ON compatibilities BEGIN `+bump("OLD.item_id")+` END`,
		`CREATE TRIGGER compat_versions_state_insert AFTER INSERT ON item_compat_state BEGIN `+bump("NEW.item_id")+` END`,
		`CREATE TRIGGER compat_versions_state_update AFTER UPDATE ON item_compat_state BEGIN `+bump("NEW.item_id")+` END`,
		`CREATE TRIGGER compat_versions_state_delete AFTER DELETE ON item_compat_state BEGIN `+bump("OLD.item_id")+` END`,
		`CREATE TRIGGER compat_versions_snapshot_insert AFTER INSERT ON compat_snapshots BEGIN `+bump("NEW.item_id")+` END`,
		`CREATE TRIGGER compat_versions_snapshot_update AFTER UPDATE ON compat_snapshots BEGIN `+bump("NEW.item_id")+bump("OLD.item_id")+` END`,
		`CREATE TRIGGER compat_versions_snapshot_delete AFTER DELETE ON compat_snapshots BEGIN `+bump("OLD.item_id")+` END`,
		`CREATE TRIGGER compat_versions_order_insert AFTER INSERT ON orders WHEN NEW.has_claim BEGIN `+fmt.Sprintf(claims, "NEW.id")+` END`,
		`CREATE TRIGGER compat_versions_order_update AFTER UPDATE OF has_claim ON orders WHEN OLD.has_claim IS NOT NEW.has_claim BEGIN `+
			fmt.Sprintf(claims, "NEW.id")+` END`,
		`CREATE TRIGGER compat_versions_order_delete AFTER DELETE ON orders WHEN OLD.has_claim BEGIN `+fmt.Sprintf(claims, "OLD.id")+` END`,
		`CREATE TRIGGER compat_versions_item_delete AFTER DELETE ON items BEGIN DELETE FROM compat_versions WHERE item_id = OLD.id; END`,
	)
}

// compatVersionsPostgres: one bump function the triggers share.
func compatVersionsPostgres(ctx context.Context, db *bun.DB) error {
	return Exec(ctx, db,
		`CREATE TABLE compat_versions (item_id TEXT PRIMARY KEY, v BIGINT NOT NULL)`,
		`CREATE FUNCTION compat_versions_bump(items TEXT[]) RETURNS void AS $$
				INSERT INTO compat_versions (item_id, v)
				SELECT i, (random() * 9e18)::bigint FROM (SELECT DISTINCT i FROM unnest(items) AS i WHERE i IS NOT NULL) AS d
				ON CONFLICT (item_id) DO UPDATE SET v = EXCLUDED.v $$ LANGUAGE sql`,
		// Compatibilities are written by the hundred (a copy, a family):
		// one bump per statement, from its transition table.
		`CREATE FUNCTION compat_versions_compat() RETURNS trigger AS $$ BEGIN
				PERFORM compat_versions_bump(ARRAY(SELECT DISTINCT item_id FROM changed));
				RETURN NULL; END $$ LANGUAGE plpgsql`,
		`CREATE TRIGGER compat_versions_compat_insert AFTER INSERT ON compatibilities
				REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION compat_versions_compat()`,
		`CREATE TRIGGER compat_versions_compat_update AFTER UPDATE ON compatibilities
				REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION compat_versions_compat()`,
		`CREATE TRIGGER compat_versions_compat_delete AFTER DELETE ON compatibilities
				REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION compat_versions_compat()`,
		`CREATE FUNCTION compat_versions_row() RETURNS trigger AS $$ BEGIN
				IF TG_OP = 'INSERT' THEN PERFORM compat_versions_bump(ARRAY[NEW.item_id]);
				ELSIF TG_OP = 'UPDATE' THEN PERFORM compat_versions_bump(ARRAY[NEW.item_id, OLD.item_id]);
				ELSE PERFORM compat_versions_bump(ARRAY[OLD.item_id]); END IF;
				RETURN NULL; END $$ LANGUAGE plpgsql`,
		`CREATE TRIGGER compat_versions_state AFTER INSERT OR UPDATE OR DELETE ON item_compat_state
				FOR EACH ROW EXECUTE FUNCTION compat_versions_row()`,
		`CREATE TRIGGER compat_versions_snapshot AFTER INSERT OR UPDATE OR DELETE ON compat_snapshots
				FOR EACH ROW EXECUTE FUNCTION compat_versions_row()`,
		// An order's claim counts for the items of its snapshots.
		`CREATE FUNCTION compat_versions_order() RETURNS trigger AS $$ BEGIN
				PERFORM compat_versions_bump(ARRAY(SELECT s.item_id FROM compat_snapshots s
					WHERE s.order_id = CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END));
				RETURN NULL; END $$ LANGUAGE plpgsql`,
		`CREATE TRIGGER compat_versions_order_insert AFTER INSERT ON orders
				FOR EACH ROW WHEN (NEW.has_claim) EXECUTE FUNCTION compat_versions_order()`,
		`CREATE TRIGGER compat_versions_order_update AFTER UPDATE OF has_claim ON orders
				FOR EACH ROW WHEN (OLD.has_claim IS DISTINCT FROM NEW.has_claim) EXECUTE FUNCTION compat_versions_order()`,
		`CREATE TRIGGER compat_versions_order_delete AFTER DELETE ON orders
				FOR EACH ROW WHEN (OLD.has_claim) EXECUTE FUNCTION compat_versions_order()`,
		`CREATE FUNCTION compat_versions_item() RETURNS trigger AS $$ BEGIN
				DELETE FROM compat_versions WHERE item_id = OLD.id; RETURN NULL; END $$ LANGUAGE plpgsql`,
		`CREATE TRIGGER compat_versions_item_delete AFTER DELETE ON items FOR EACH ROW EXECUTE FUNCTION compat_versions_item()`,
	)
}

// dropCompatVersions undoes the migration on either database.
func dropCompatVersions(ctx context.Context, db *bun.DB) error {
	if !sqlstore.IsPostgres(db) {
		stmts := []string{}
		for _, tr := range []string{"compat_insert", "compat_update", "compat_delete", "state_insert", "state_update", "state_delete",
			"snapshot_insert", "snapshot_update", "snapshot_delete", "order_insert", "order_update", "order_delete", "item_delete"} {
			stmts = append(stmts, `DROP TRIGGER compat_versions_`+tr)
		}
		return Exec(ctx, db, append(stmts, `DROP TABLE compat_versions`)...)
	}
	return Exec(ctx, db,
		`DROP TRIGGER compat_versions_item_delete ON items`, `DROP FUNCTION compat_versions_item()`,
		`DROP TRIGGER compat_versions_order_insert ON orders`, `DROP TRIGGER compat_versions_order_update ON orders`,
		`DROP TRIGGER compat_versions_order_delete ON orders`, `DROP FUNCTION compat_versions_order()`,
		`DROP TRIGGER compat_versions_snapshot ON compat_snapshots`, `DROP TRIGGER compat_versions_state ON item_compat_state`,
		`DROP FUNCTION compat_versions_row()`,
		`DROP TRIGGER compat_versions_compat_insert ON compatibilities`, `DROP TRIGGER compat_versions_compat_update ON compatibilities`,
		`DROP TRIGGER compat_versions_compat_delete ON compatibilities`, `DROP FUNCTION compat_versions_compat()`,
		`DROP FUNCTION compat_versions_bump(TEXT[])`, `DROP TABLE compat_versions`)

}
