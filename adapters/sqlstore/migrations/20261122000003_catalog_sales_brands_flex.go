package migrations

import (
	"context"

	"github.com/uptrace/bun"
)

// The tables every area reads: the catalog's (categories, vehicle and part
// domains, products with an attribute index for family selectors, items),
// the sales module's orders and packs, the brands module's official stores
// and flex's local-delivery subscriptions and shipments. Nested resources
// the API shows whole are JSONB; what queries filter or join on is a column.
func init() {
	All.MustRegister(func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db,
			`CREATE TABLE categories (
				id TEXT PRIMARY KEY,
				site_id TEXT NOT NULL,
				name TEXT NOT NULL,
				domain_id TEXT NOT NULL,
				shipping_preferences JSONB NOT NULL,
				accepted_shipping_methods JSONB NOT NULL,
				compatibilities JSONB,
				date_created TIMESTAMPTZ NOT NULL,
				last_modified TIMESTAMPTZ NOT NULL
			)`,
			`CREATE TABLE domains (
				id TEXT PRIMARY KEY,
				site_id TEXT NOT NULL,
				main BOOLEAN NOT NULL,
				compatibilities JSONB NOT NULL
			)`,
			`CREATE INDEX domains_site ON domains (site_id)`,
			`CREATE TABLE products (
				id TEXT PRIMARY KEY,
				site_id TEXT NOT NULL,
				domain_id TEXT NOT NULL,
				name TEXT NOT NULL,
				parent_id TEXT,
				attributes JSONB NOT NULL
			)`,
			`CREATE INDEX products_domain ON products (domain_id, id)`,
			// One row per product attribute, so that a family selector is an
			// indexed intersection instead of a scan of JSON.
			`CREATE TABLE product_attributes (
				product_id TEXT NOT NULL REFERENCES products (id) ON DELETE CASCADE,
				domain_id TEXT NOT NULL,
				attribute_id TEXT NOT NULL,
				value_id TEXT NOT NULL,
				value_name TEXT NOT NULL,
				PRIMARY KEY (product_id, attribute_id)
			)`,
			`CREATE INDEX product_attributes_value_id ON product_attributes (domain_id, attribute_id, value_id)`,
			`CREATE INDEX product_attributes_value_name ON product_attributes (domain_id, attribute_id, value_name)`,
			`CREATE TABLE items (
				id TEXT PRIMARY KEY,
				site_id TEXT NOT NULL,
				seller_id BIGINT NOT NULL REFERENCES users (id),
				title TEXT NOT NULL,
				category_id TEXT NOT NULL REFERENCES categories (id),
				domain_id TEXT NOT NULL,
				status TEXT NOT NULL,
				price DOUBLE PRECISION NOT NULL,
				currency_id TEXT NOT NULL,
				available_quantity BIGINT NOT NULL,
				listing_type_id TEXT NOT NULL,
				condition TEXT NOT NULL,
				official_store_id BIGINT,
				catalog_product_id TEXT,
				part_number TEXT,
				attributes JSONB NOT NULL,
				tags JSONB NOT NULL,
				shipping JSONB NOT NULL,
				extra JSONB NOT NULL,
				date_created TIMESTAMPTZ NOT NULL,
				last_updated TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX items_seller ON items (seller_id, status, id)`,
			`CREATE INDEX items_catalog_product ON items (catalog_product_id) WHERE catalog_product_id IS NOT NULL`,
			`CREATE INDEX items_part_number ON items (part_number) WHERE part_number IS NOT NULL`,
			`CREATE TABLE orders (
				id BIGINT PRIMARY KEY,
				site_id TEXT NOT NULL,
				seller_id BIGINT NOT NULL REFERENCES users (id),
				buyer_id BIGINT NOT NULL REFERENCES users (id),
				pack_id BIGINT,
				pack BIGINT NOT NULL,
				status TEXT NOT NULL,
				items JSONB NOT NULL,
				shipping JSONB NOT NULL,
				has_claim BOOLEAN NOT NULL,
				compatibility_selection JSONB,
				date_created TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX orders_pack ON orders (pack)`,
			`CREATE TABLE brands (
				id BIGINT PRIMARY KEY,
				site_id TEXT NOT NULL,
				body JSONB NOT NULL,
				date_created TIMESTAMPTZ NOT NULL,
				last_updated TIMESTAMPTZ NOT NULL
			)`,
			`CREATE TABLE brand_users (
				brand_id BIGINT NOT NULL REFERENCES brands (id) ON DELETE CASCADE,
				user_id BIGINT NOT NULL REFERENCES users (id),
				PRIMARY KEY (brand_id, user_id)
			)`,
			`CREATE INDEX brand_users_user ON brand_users (user_id)`,
			`CREATE TABLE flex_subscriptions (
				id BIGINT PRIMARY KEY,
				site_id TEXT NOT NULL,
				user_id BIGINT NOT NULL REFERENCES users (id),
				mode TEXT NOT NULL,
				status TEXT NOT NULL,
				body JSONB NOT NULL,
				creation_date TIMESTAMPTZ NOT NULL
			)`,
			`CREATE INDEX flex_subscriptions_user ON flex_subscriptions (user_id)`,
			`CREATE TABLE shipments (
				id BIGINT PRIMARY KEY,
				site_id TEXT NOT NULL,
				order_id BIGINT NOT NULL REFERENCES orders (id),
				driver_id BIGINT
			)`,
		)
	}, func(ctx context.Context, db *bun.DB) error {
		return Exec(ctx, db, `DROP TABLE shipments`, `DROP TABLE flex_subscriptions`, `DROP TABLE brand_users`,
			`DROP TABLE brands`, `DROP TABLE orders`, `DROP TABLE items`, `DROP TABLE product_attributes`,
			`DROP TABLE products`, `DROP TABLE domains`, `DROP TABLE categories`)
	})
}
