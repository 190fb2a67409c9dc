// Package notifyapi serves the notify module: the caller's notification
// feed.
package notifyapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/notifyport"
)

// Routes mounts GET /my/notifications. A missing token is 403
// access_token_not_granted, as on the fiscal routes whose notices fill the
// feed.
func Routes(app fiber.Router, svc notifyport.Service, auth httpapi.Auth) {
	app.Get("/my/notifications", auth.Required(httpapi.AuthErrors{Missing: account.ErrTokenNotGranted}), func(c *fiber.Ctx) error {
		page, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		ns, p, err := svc.Notifications(c.UserContext(), page)
		if err != nil {
			return err
		}
		if ns == nil {
			ns = []notify.Notification{}
		}
		return c.JSON(struct {
			Results []notify.Notification `json:"results"`
			Paging  paging.Page           `json:"paging"`
		}{ns, p})
	})
}
