package migrations

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
)

// A family count (compatdb.CountFamily) counts the child products whose
// attributes match: each attribute row carries whether its product is a
// child, kept by triggers whoever writes the rows (catalogdb, bulk loads),
// and two partial covering indexes hold the children's rows only, so that a
// count is index-only scans intersected, without the EXCEPT of the domain's
// parents (a HashSetOp over 15,500 ids, 7 ms warm).
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		if !sqlstore.IsPostgres(db) {
			return Exec(ctx, db,
				`ALTER TABLE product_attributes ADD COLUMN child BOOLEAN NOT NULL DEFAULT FALSE`,
				`UPDATE product_attributes SET child = EXISTS (SELECT 1 FROM products p WHERE p.id = product_attributes.product_id AND p.parent_id IS NOT NULL)`,
				`CREATE TRIGGER product_attributes_child AFTER INSERT ON product_attributes BEGIN
					UPDATE product_attributes SET child = EXISTS (SELECT 1 FROM products p WHERE p.id = NEW.product_id AND p.parent_id IS NOT NULL)
					WHERE product_id = NEW.product_id AND attribute_id = NEW.attribute_id; END`,
				`CREATE TRIGGER products_child_insert AFTER INSERT ON products BEGIN
					UPDATE product_attributes SET child = (NEW.parent_id IS NOT NULL) WHERE product_id = NEW.id; END`,
				`CREATE TRIGGER products_child_update AFTER UPDATE OF parent_id ON products BEGIN
					UPDATE product_attributes SET child = (NEW.parent_id IS NOT NULL) WHERE product_id = NEW.id; END`,
				`CREATE INDEX product_attributes_children_id ON product_attributes (domain_id, attribute_id, value_id, product_id) WHERE child`,
				`CREATE INDEX product_attributes_children_name ON product_attributes (domain_id, attribute_id, value_name, product_id) WHERE child`,
			)
		}
		return Exec(ctx, db,
			`ALTER TABLE product_attributes ADD COLUMN child BOOLEAN NOT NULL DEFAULT FALSE`,
			`UPDATE product_attributes a SET child = TRUE FROM products p WHERE p.id = a.product_id AND p.parent_id IS NOT NULL`,
			`CREATE FUNCTION product_attributes_child() RETURNS trigger AS $$ BEGIN
				NEW.child := EXISTS (SELECT 1 FROM products p WHERE p.id = NEW.product_id AND p.parent_id IS NOT NULL);
				RETURN NEW; END $$ LANGUAGE plpgsql`,
			`CREATE TRIGGER product_attributes_child BEFORE INSERT OR UPDATE OF product_id ON product_attributes
				FOR EACH ROW EXECUTE FUNCTION product_attributes_child()`,
			`CREATE FUNCTION products_child() RETURNS trigger AS $$ BEGIN
				UPDATE product_attributes SET child = (NEW.parent_id IS NOT NULL)
				WHERE product_id = NEW.id AND child <> (NEW.parent_id IS NOT NULL);
				RETURN NULL; END $$ LANGUAGE plpgsql`,
			`CREATE TRIGGER products_child AFTER INSERT OR UPDATE OF parent_id ON products
				FOR EACH ROW EXECUTE FUNCTION products_child()`,
			`CREATE INDEX product_attributes_children_id ON product_attributes (domain_id, attribute_id, value_id, product_id) WHERE child`,
			`CREATE INDEX product_attributes_children_name ON product_attributes (domain_id, attribute_id, value_name, product_id) WHERE child`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		if !sqlstore.IsPostgres(db) {
			return Exec(ctx, db, `DROP INDEX product_attributes_children_name`, `DROP INDEX product_attributes_children_id`,
				`DROP TRIGGER products_child_update`, `DROP TRIGGER products_child_insert`, `DROP TRIGGER product_attributes_child`,
				`ALTER TABLE product_attributes DROP COLUMN child`)
		}
		return Exec(ctx, db, `DROP INDEX product_attributes_children_name`, `DROP INDEX product_attributes_children_id`,
			`DROP TRIGGER products_child ON products`, `DROP FUNCTION products_child()`,
			`DROP TRIGGER product_attributes_child ON product_attributes`, `DROP FUNCTION product_attributes_child()`,
			`ALTER TABLE product_attributes DROP COLUMN child`)
	})
}
