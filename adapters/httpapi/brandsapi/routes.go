package brandsapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/ports/brandsport"
)

// Routes mounts the public brands reads of area D. Every error of these
// routes, the token's included, is in shape (b) {error, message, status}.
func Routes(r fiber.Router, svc brandsport.Service, auth httpapi.Auth) {
	shape := httpapi.UseShape(httpapi.ShapeBrands)
	r.Get("/users/:user_id/brands", shape, auth.Required(), func(c *fiber.Ctx) error {
		user, err := brands.ParseID("user_id", c.Params("user_id"))
		if err != nil {
			return err
		}
		a, err := svc.UserBrands(c.UserContext(), user)
		if err != nil {
			return err
		}
		return c.JSON(a)
	})
	r.Get("/users/:user_id/brands/:brand_id", shape, auth.Required(), func(c *fiber.Ctx) error {
		user, err := brands.ParseID("user_id", c.Params("user_id"))
		if err != nil {
			return err
		}
		brand, err := brands.ParseID("brand_id", c.Params("brand_id"))
		if err != nil {
			return err
		}
		d, err := svc.UserBrand(c.UserContext(), user, brand)
		if err != nil {
			return err
		}
		return c.JSON(d)
	})
}
