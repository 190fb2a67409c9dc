// Package brandsapi serves the brands module (official stores): the public
// brands reads of area D (errors in shape (b)) and the sandbox collection of
// brands.
package brandsapi

import (
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/ports/brandsport"
)

// Collections are the brands module's sandbox collections.
func Collections(svc brandsport.Service) []sandboxapi.Collection {
	named := func(b *brands.Brand, id int64) { b.ID = id }
	return []sandboxapi.Collection{sandboxapi.ByNumber("brands", "brands", "official_store_id", named, svc.PutBrand, svc.Brand)}
}
