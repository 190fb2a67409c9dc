package compatapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/compat"
)

func (h handlers) deleteOne(c *fiber.Ctx) error {
	ids, err := h.svc.DeleteOne(c.UserContext(), httpapi.Param(c, "item_id"), httpapi.Param(c, "compatibility_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"deleted_compatibilities": ids})
}

type deleteJSON struct {
	ProductsFamilies []selectorJSON `json:"products_families"`
}

func (h handlers) deleteAll(c *fiber.Ctx) error {
	var b deleteJSON
	if err := bindOptionalJSON(c, &b); err != nil {
		return err
	}
	fams := make([]compat.Selector, 0, len(b.ProductsFamilies))
	for _, f := range b.ProductsFamilies {
		fams = append(fams, f.selector())
	}
	ids, err := h.svc.Delete(c.UserContext(), httpapi.Param(c, "item_id"), fams)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"deleted_compatibilities": ids})
}
