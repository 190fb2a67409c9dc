// Package messagingapi serves the messaging module: a pack's after-sale
// conversation.
package messagingapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/messagingport"
)

// Routes mounts GET /messages/packs/:pack_id. A missing token is 403
// access_token_not_granted, as on the fiscal routes that write the
// conversation's billing requests.
func Routes(app fiber.Router, svc messagingport.Service, auth httpapi.Auth) {
	app.Get("/messages/packs/:pack_id", auth.Required(httpapi.AuthErrors{Missing: fiscal.ErrTokenMissing}), func(c *fiber.Ctx) error {
		page, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		msgs, p, err := svc.Messages(c.UserContext(), httpapi.Param(c, "pack_id"), page)
		if err != nil {
			return err
		}
		if msgs == nil {
			msgs = []messaging.Message{}
		}
		return c.JSON(struct {
			Messages []messaging.Message `json:"messages"`
			Paging   paging.Page         `json:"paging"`
		}{msgs, p})
	})
}
