package compatapi

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
)

func (h handlers) list(c *fiber.Ctx) error {
	l, err := h.svc.List(c.UserContext(), httpapi.Param(c, "item_id"))
	if err != nil {
		return err
	}
	extended := strings.EqualFold(c.Query("extended"), "true")
	return httpapi.SendJSON(c, func(b []byte) []byte { return appendList(b, l, extended) })
}

func (h handlers) get(c *fiber.Ctx) error {
	e, err := h.svc.Get(c.UserContext(), httpapi.Param(c, "item_id"), httpapi.Param(c, "compatibility_id"))
	if err != nil {
		return err
	}
	return c.JSON(entry(e, true, true))
}

func (h handlers) extendedCheck(c *fiber.Ctx) error {
	note, restr, err := h.svc.ExtendedCheck(c.UserContext(), httpapi.Param(c, "item_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"note": strconv.FormatBool(note), "restrictions": strconv.FormatBool(restr)})
}

func (h handlers) note(c *fiber.Ctx) error {
	n, err := h.svc.Note(c.UserContext(), httpapi.Param(c, "item_id"), httpapi.Param(c, "compatibility_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"note": n})
}
