package compatapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
)

type cardsJSON struct {
	ItemID    string   `json:"item_id"`
	ProductID string   `json:"product_id"`
	Filters   []string `json:"filters"`
}

func (h handlers) cards(c *fiber.Ctx) error {
	var b cardsJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	cards, err := h.svc.Cards(c.UserContext(), httpapi.Param(c, "domain_id"), b.ItemID, b.ProductID, b.Filters)
	if err != nil {
		return err
	}
	return c.JSON(cards)
}

type summaryJSON struct {
	DomainID string   `json:"domain_id"`
	Items    []string `json:"items"`
}

func (h handlers) summary(c *fiber.Ctx) error {
	var b summaryJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	s, err := h.svc.Summary(c.UserContext(), b.DomainID, b.Items)
	if err != nil {
		return err
	}
	return c.JSON(s)
}
