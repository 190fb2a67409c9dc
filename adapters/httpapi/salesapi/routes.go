package salesapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/salesport"
)

// Routes mounts the orders' public routes, errors in shape (a): the search
// of the caller's own orders (before the order's route, whose parameter
// would take "search"), GET /orders/{order_id} (the resource an orders_v2
// notification names, for the order's seller and buyer) and the seller's
// notes on an order.
func Routes(app fiber.Router, svc salesport.Service, auth httpapi.Auth) {
	shape, token := httpapi.UseShape(httpapi.ShapeDefault), auth.Required()
	app.Get("/orders/search", shape, token, func(c *fiber.Ctx) error {
		q, err := sales.ParseOrderQuery(func(name string) string { return httpapi.Query(c, name) })
		if err != nil {
			return err
		}
		a, err := svc.SearchOrders(c.UserContext(), q)
		if err != nil {
			return err
		}
		return c.JSON(a)
	})
	app.Get("/orders/:order_id", shape, token, func(c *fiber.Ctx) error {
		id, err := httpapi.PositiveID("order_id", c.Params("order_id"))
		if err != nil {
			return err
		}
		v, err := svc.OrderView(c.UserContext(), id)
		if err != nil {
			return err
		}
		return c.JSON(v)
	})
	app.Post("/orders/:order_id/notes", shape, token, func(c *fiber.Ctx) error {
		id, err := httpapi.PositiveID("order_id", c.Params("order_id"))
		if err != nil {
			return err
		}
		var body struct {
			Note string `json:"note"`
		}
		if err := httpapi.BindJSON(c, &body); err != nil {
			return err
		}
		a, err := svc.AddNote(c.UserContext(), id, body.Note)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(a)
	})
	app.Get("/orders/:order_id/notes", shape, token, func(c *fiber.Ctx) error {
		id, err := httpapi.PositiveID("order_id", c.Params("order_id"))
		if err != nil {
			return err
		}
		a, err := svc.Notes(c.UserContext(), id)
		if err != nil {
			return err
		}
		return c.JSON(a)
	})
}
