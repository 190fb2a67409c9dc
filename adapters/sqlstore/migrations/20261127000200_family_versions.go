package migrations

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
)

// family_versions holds, per catalog domain, a version of its product
// attribute rows, the only rows a family count reads: triggers give it a
// new random value in the transaction of every change of them (a product
// loaded, renamed into another family, made a child), so that a count whose
// domain is unchanged may be answered from a copy (compatdb's count cache),
// as compat_versions does for lists (20261127000100). PostgreSQL
// bumps once per statement (fixtures load products by the thousand).
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		if !sqlstore.IsPostgres(db) {
			bump := func(domain string) string {
				return `INSERT INTO family_versions (domain_id, v) VALUES (` + domain + `, random())
					ON CONFLICT (domain_id) DO UPDATE SET v = excluded.v;`
			}
			return Exec(ctx, db,
				`CREATE TABLE family_versions (domain_id TEXT PRIMARY KEY, v BIGINT NOT NULL)`,
				`CREATE TRIGGER family_versions_insert AFTER INSERT ON product_attributes BEGIN `+bump("NEW.domain_id")+` END`,
				`CREATE TRIGGER family_versions_update AFTER UPDATE ON product_attributes BEGIN `+bump("NEW.domain_id")+bump("OLD.domain_id")+` END`,
				`CREATE TRIGGER family_versions_delete AFTER DELETE ON product_attributes BEGIN `+bump("OLD.domain_id")+` END`,
			)
		}
		return Exec(ctx, db,
			`CREATE TABLE family_versions (domain_id TEXT PRIMARY KEY, v BIGINT NOT NULL)`,
			`CREATE FUNCTION family_versions_bump() RETURNS trigger AS $$ BEGIN
				INSERT INTO family_versions (domain_id, v)
				SELECT domain_id, (random() * 9e18)::bigint FROM (SELECT DISTINCT domain_id FROM changed) AS d
				ON CONFLICT (domain_id) DO UPDATE SET v = EXCLUDED.v;
				RETURN NULL; END $$ LANGUAGE plpgsql`,
			`CREATE TRIGGER family_versions_insert AFTER INSERT ON product_attributes
				REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION family_versions_bump()`,
			`CREATE TRIGGER family_versions_update_new AFTER UPDATE ON product_attributes
				REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION family_versions_bump()`,
			`CREATE TRIGGER family_versions_update_old AFTER UPDATE ON product_attributes
				REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION family_versions_bump()`,
			`CREATE TRIGGER family_versions_delete AFTER DELETE ON product_attributes
				REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION family_versions_bump()`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		if !sqlstore.IsPostgres(db) {
			return Exec(ctx, db, `DROP TRIGGER family_versions_delete`, `DROP TRIGGER family_versions_update`,
				`DROP TRIGGER family_versions_insert`, `DROP TABLE family_versions`)
		}
		return Exec(ctx, db, `DROP TRIGGER family_versions_delete ON product_attributes`,
			`DROP TRIGGER family_versions_update_old ON product_attributes`, `DROP TRIGGER family_versions_update_new ON product_attributes`,
			`DROP TRIGGER family_versions_insert ON product_attributes`, `DROP FUNCTION family_versions_bump()`, `DROP TABLE family_versions`)
	})
}
