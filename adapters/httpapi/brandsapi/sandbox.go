// Package brandsapi serves the brands module (official stores): the sandbox
// collection of brands.
package brandsapi

import (
	"context"

	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/ports/brandsport"
)

// Collections are the brands module's sandbox collections.
func Collections(svc brandsport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{
		sandboxapi.ByNumber("brands", "brands", "official_store_id", func(ctx context.Context, id int64, b brands.Brand) (brands.Brand, error) {
			b.ID = id
			return svc.PutBrand(ctx, b)
		}, svc.Brand),
	}
}
