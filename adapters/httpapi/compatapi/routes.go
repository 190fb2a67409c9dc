// Package compatapi serves area B (compatibilities) except the
// item read, the item status update and the seller item search, which the
// catalog module serves: the domain dump, family counts, cards, restriction
// values, an item's compatibilities (create, PUT, copy, list, read, note,
// delete, exception), the summary and the order snapshot.
package compatapi

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// Routes mounts the routes with full paths and per-route middleware, since
// other modules share the /items prefix.
func Routes(app fiber.Router, svc compatport.Service, auth httpapi.Auth) {
	h := handlers{svc: svc}
	shape := httpapi.UseShape(httpapi.ShapeDefault)
	// The contract answers 403 for a missing or invalid token on compatibilities.
	seller := auth.Required(httpapi.AuthErrors{Missing: compat.ErrForbiddenToken, Invalid: compat.ErrForbiddenToken})
	snapshot := auth.Required(httpapi.AuthErrors{Missing: compat.ErrSnapshotToken, Invalid: compat.ErrSnapshotToken})

	app.Get("/catalog/dumps/domains/:site_id/compatibilities", shape, h.dump)
	app.Post("/catalog_compatibilities/products_search/count_family_products", shape, h.countFamily)
	app.Get("/catalog_compatibilities/restrictions/values", shape, h.restrictionValues)
	// The marketplace writes the cards path with and without /items: both are served.
	app.Post("/items/catalog_domains/:domain_id/compatibilities/cards", shape, seller, h.cards)
	app.Post("/catalog_domains/:domain_id/compatibilities/cards", shape, seller, h.cards)
	app.Post("/items/compatibilities_summary", shape, seller, h.summary)

	const base = "/items/:item_id/compatibilities"
	app.Post(base, shape, seller, h.create)
	app.Put(base, shape, seller, h.put)
	app.Get(base, shape, seller, h.list)
	app.Delete(base, shape, seller, h.deleteAll)
	// Specific paths before /:compatibility_id.
	app.Get(base+"/extended/check", shape, seller, h.extendedCheck)
	app.Post(base+"/exception", shape, seller, h.reportException)
	app.Get(base+"/exception", shape, seller, h.exception)
	app.Get(base+"/:compatibility_id/note", shape, seller, h.note)
	app.Get(base+"/:compatibility_id", shape, seller, h.get)
	app.Delete(base+"/:compatibility_id", shape, seller, h.deleteOne)

	app.Get("/compats-snapshots/orders/:order_id", shape, snapshot, h.snapshot)
}

type handlers struct{ svc compatport.Service }

// bindOptionalJSON is httpapi.BindJSON for routes whose body may be left
// out: an empty (or blank) body leaves v as it is.
func bindOptionalJSON(c *fiber.Ctx, v any) error {
	if len(strings.TrimSpace(string(c.Body()))) == 0 {
		return nil
	}
	return httpapi.DecodeJSON(c.Body(), v)
}
