// Package brandsport declares the ports of the official stores (brands)
// module.
package brandsport

import (
	"context"
	"errors"

	"github.com/feria/feria/core/brands"
)

// ErrNotFound is returned by stores for a missing row.
var ErrNotFound = errors.New("not found")

// Service is what HTTP, the sandbox and other modules call.
type Service interface {
	// PutBrand validates and upserts a brand (sandbox); its users must exist.
	PutBrand(ctx context.Context, b brands.Brand) (brands.Brand, error)
	Brand(ctx context.Context, id int64) (brands.Brand, error)
	// BrandsOfUser lists the brands bound to a user, by id.
	BrandsOfUser(ctx context.Context, userID int64) ([]brands.Brand, error)
	// UserBrands is the brands answer of a user (404 U00002 for an unknown
	// user).
	UserBrands(ctx context.Context, userID int64) (brands.UserBrands, error)
	// UserBrand is the single-brand answer of a brand of the user's site
	// (404 U00002 for an unknown user, B00001 for a brand not of that site).
	UserBrand(ctx context.Context, userID, brandID int64) (brands.Detail, error)
}

// Store persists brands and their users.
type Store interface {
	// UpsertBrand stores a brand and replaces its user bindings; an existing
	// brand keeps date_created.
	UpsertBrand(ctx context.Context, b brands.Brand) error
	Brand(ctx context.Context, id int64) (brands.Brand, error)
	BrandsOfUser(ctx context.Context, userID int64) ([]brands.Brand, error)
}
