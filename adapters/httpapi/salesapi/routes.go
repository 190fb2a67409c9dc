package salesapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/ports/salesport"
)

// Routes mounts GET /orders/{order_id}: the resource an orders_v2
// notification names, for the order's seller and buyer.
func Routes(app fiber.Router, svc salesport.Service, auth httpapi.Auth) {
	app.Get("/orders/:order_id", httpapi.UseShape(httpapi.ShapeDefault), auth.Required(), func(c *fiber.Ctx) error {
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
}
