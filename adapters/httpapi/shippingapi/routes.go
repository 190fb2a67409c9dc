// Package shippingapi serves the shipping module (area C): the shipping
// modes of a seller in a category, a category's shipping preferences (and
// the answer of the removed /categories/{id}/shipping), the free-shipping
// cost in its four forms, and the sandbox collection of rate tables.
package shippingapi

import (
	"bytes"
	"encoding/json"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/shipping"
	"github.com/feria/feria/ports/shippingport"
)

// errRemoved answers the resource the marketplace removed on 2020-05-30.
var errRemoved = kernel.E(kernel.NotExist, "not_found", "resource removed")

// Routes mounts the public shipping reads. The marketplace shows them without
// credentials: they take no token (one that is sent is not checked), so no
// auth middleware. Errors are in shape (a), like every /items and
// /categories route.
func Routes(r fiber.Router, svc shippingport.Service) {
	shape := httpapi.UseShape(httpapi.ShapeDefault)
	r.Get("/users/:user_id/shipping_modes", shape, func(c *fiber.Ctx) error {
		user, err := httpapi.PositiveID("user_id", c.Params("user_id"))
		if err != nil {
			return err
		}
		modes, err := svc.Modes(c.UserContext(), user, httpapi.Query(c, "category_id"))
		if err != nil {
			return err
		}
		return c.JSON(modes)
	})
	r.Get("/categories/:category_id/shipping_preferences", shape, func(c *fiber.Ctx) error {
		p, err := svc.Preferences(c.UserContext(), httpapi.Param(c, "category_id"))
		if err != nil {
			return err
		}
		return c.JSON(p)
	})
	// The marketplace removed /categories/{id}/shipping after May 30, 2020 in
	// favour of shipping_preferences: a client still calling it learns
	// that, and where to go, whatever the id.
	r.Get("/categories/:category_id/shipping", shape, func(c *fiber.Ctx) error {
		successor := "/categories/" + c.Params("category_id") + "/shipping_preferences"
		c.Set(fiber.HeaderLink, "<"+httpapi.Base(c)+successor+`>; rel="successor-version"`)
		return errRemoved.Withf("resource %s was removed on 2020-05-30; use %s", c.Path(), successor)
	})
	r.Get("/users/:user_id/shipping_options/free", shape, func(c *fiber.Ctx) error {
		user, err := httpapi.PositiveID("user_id", c.Params("user_id"))
		if err != nil {
			return err
		}
		verbose, err := shipping.ReadVerbose(c.Query("verbose"))
		if err != nil {
			return err
		}
		q, err := svc.UserCost(c.UserContext(), user, func(name string) string { return httpapi.Query(c, name) })
		if err != nil {
			return err
		}
		return c.JSON(coverageOf(q, verbose))
	})
	r.Get("/items/shipping_options/free", shape, func(c *fiber.Ctx) error {
		verbose, err := shipping.ReadVerbose(c.Query("verbose"))
		if err != nil {
			return err
		}
		quotes, err := svc.ItemsCost(c.UserContext(), httpapi.Query(c, "ids"), httpapi.Query(c, "dimensions"))
		if err != nil {
			return err
		}
		return c.JSON(byItem{quotes: quotes, verbose: verbose})
	})
	r.Get("/items/:item_id/shipping_options/free", shape, func(c *fiber.Ctx) error {
		verbose, err := shipping.ReadVerbose(c.Query("verbose"))
		if err != nil {
			return err
		}
		q, err := svc.ItemCost(c.UserContext(), httpapi.Param(c, "item_id"), httpapi.Query(c, "dimensions"))
		if err != nil {
			return err
		}
		return c.JSON(coverageOf(q, verbose))
	})
}

// coverage is the free-shipping cost answer of area C.
type coverage struct {
	Coverage struct {
		AllCountry allCountry `json:"all_country"`
	} `json:"coverage"`
}

// allCountry is the cost of free shipping to the whole country; verbose
// adds how it was reached.
type allCountry struct {
	ListCost       shipping.Amount `json:"list_cost"`
	CurrencyID     string          `json:"currency_id"`
	BillableWeight *int64          `json:"billable_weight,omitempty"`
	Discount       *discount       `json:"discount,omitempty"`
}

type discount struct {
	Rate           shipping.Decimal `json:"rate"`
	Type           string           `json:"type"`
	PromotedAmount shipping.Amount  `json:"promoted_amount"`
}

func coverageOf(q shipping.Quote, verbose bool) coverage {
	var c coverage
	c.Coverage.AllCountry = allCountry{ListCost: q.ListCost, CurrencyID: q.CurrencyID}
	if verbose {
		w := q.BillableWeight
		c.Coverage.AllCountry.BillableWeight = &w
		c.Coverage.AllCountry.Discount = &discount{Rate: q.Rate, Type: q.DiscountType, PromotedAmount: q.Promoted}
	}
	return c
}

// byItem is the multi-item answer: an object keyed by item id, in the order
// the ids were asked, each value a coverage answer.
type byItem struct {
	quotes  []shippingport.ItemQuote
	verbose bool
}

func (b byItem) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, q := range b.quotes {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := json.Marshal(q.ItemID)
		if err != nil {
			return nil, err
		}
		val, err := json.Marshal(coverageOf(q.Quote, b.verbose))
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(val)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
