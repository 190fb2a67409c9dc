// Package catalogapi serves the catalog module: the public item reads (the
// item resource, the status check and the seller's item search) and the
// sandbox collections of categories, domains, products and items.
package catalogapi

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/catalogport"
)

// MaxStatusIDs bounds the ids of one PUT /items status check.
const MaxStatusIDs = 20

var errBadQuery = kernel.E(kernel.Invalid, "bad_request", "invalid query")

// Routes mounts the public item reads. Each route carries its own
// middleware: other modules mount other /items/... and /users/... paths.
func Routes(app fiber.Router, svc catalogport.Service, auth httpapi.Auth) {
	shape := httpapi.UseShape(httpapi.ShapeDefault)
	app.Get("/users/:seller_id/items/search", shape, auth.Required(), searchItems(svc))
	app.Put("/items", shape, itemsStatus(svc))
	app.Get("/items/:item_id", shape, func(c *fiber.Ctx) error {
		v, err := svc.ItemView(c.UserContext(), httpapi.Param(c, "item_id"))
		if err != nil {
			return err
		}
		return c.JSON(v)
	})
}

// searchAnswer is the search of items by tag.
type searchAnswer struct {
	SellerID string   `json:"seller_id"`
	Results  []string `json:"results"`
	Paging   struct {
		Limit  int `json:"limit"`
		Offset int `json:"offset"`
		Total  int `json:"total"`
	} `json:"paging"`
	Query *string `json:"query"`
}

func searchItems(svc catalogport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		seller, err := httpapi.PositiveID("seller_id", c.Params("seller_id"))
		if err != nil {
			return err
		}
		page, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		q := catalog.ItemQuery{SellerID: seller, Status: httpapi.Query(c, "status")}
		if raw := httpapi.Query(c, "tags"); raw != "" {
			q.Tags = strings.Split(raw, ",")
		}
		res, err := svc.SearchItems(c.UserContext(), q, page)
		if err != nil {
			return err
		}
		a := searchAnswer{SellerID: strconv.FormatInt(seller, 10), Results: res.IDs}
		a.Paging.Limit, a.Paging.Offset, a.Paging.Total = res.Page.Limit, res.Page.Offset, res.Page.Total
		return c.JSON(a)
	}
}

// itemsStatus answers PUT /items?ids=...&attributes=status, which
// integrations call to check that an item is active: one object per id
// with "id" and the attributes asked for (every field when none is named).
// It changes nothing.
func itemsStatus(svc catalogport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		raw := httpapi.Query(c, "ids")
		if raw == "" {
			return errBadQuery.With("ids is required").WithCause("ids", "ids is required: comma-separated item ids")
		}
		ids := strings.Split(raw, ",")
		if len(ids) > MaxStatusIDs {
			return errBadQuery.Withf("at most %d ids per request, got %d", MaxStatusIDs, len(ids)).
				WithCause("ids", "too many ids")
		}
		var attrs []string
		if a := httpapi.Query(c, "attributes"); a != "" {
			attrs = strings.Split(a, ",")
		}
		out := make([]map[string]json.RawMessage, 0, len(ids))
		for _, id := range ids {
			v, err := svc.ItemView(c.UserContext(), strings.TrimSpace(id))
			if err != nil {
				return err
			}
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			var all map[string]json.RawMessage
			if err := json.Unmarshal(b, &all); err != nil {
				return err
			}
			if attrs == nil {
				out = append(out, all)
				continue
			}
			pick := map[string]json.RawMessage{"id": all["id"]}
			for _, a := range attrs {
				if v, ok := all[strings.TrimSpace(a)]; ok {
					pick[strings.TrimSpace(a)] = v
				}
			}
			out = append(out, pick)
		}
		return c.JSON(out)
	}
}
