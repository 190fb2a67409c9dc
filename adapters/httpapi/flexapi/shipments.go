package flexapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
)

// shipment serves GET /shipments/{shipment_id}: the resource a shipments
// notification names, for the seller and the buyer of its order.
func (h handlers) shipment(c *fiber.Ctx) error {
	id, err := httpapi.PositiveID("shipment_id", c.Params("shipment_id"))
	if err != nil {
		return err
	}
	sh, err := h.svc.ShipmentView(c.UserContext(), id)
	if err != nil {
		return err
	}
	return c.JSON(sh)
}

// shipmentItems serves GET /shipments/{shipment_id}/items: what the
// shipment carries, for the same callers as the shipment.
func (h handlers) shipmentItems(c *fiber.Ctx) error {
	id, err := httpapi.PositiveID("shipment_id", c.Params("shipment_id"))
	if err != nil {
		return err
	}
	items, err := h.svc.ShipmentItems(c.UserContext(), id)
	if err != nil {
		return err
	}
	return c.JSON(items)
}
