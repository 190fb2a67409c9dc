package compatapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
)

type exceptionJSON struct {
	Comment *string `json:"comment"`
}

func (h handlers) reportException(c *fiber.Ctx) error {
	var b exceptionJSON
	if err := bindOptionalJSON(c, &b); err != nil {
		return err
	}
	if err := h.svc.ReportException(c.UserContext(), httpapi.Param(c, "item_id"), b.Comment); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"has_exception": true})
}

func (h handlers) exception(c *fiber.Ctx) error {
	has, err := h.svc.Exception(c.UserContext(), httpapi.Param(c, "item_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"has_exception": has})
}
