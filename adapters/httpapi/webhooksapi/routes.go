// Package webhooksapi serves the webhooks module: the public missed feeds
// of an application, and the sandbox's notifications (the list with every
// attempt, and the trigger).
package webhooksapi

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/webhooksport"
)

// notificationJSON is a notification as GET /sandbox/notifications shows
// it: its body now, its state and every attempt.
type notificationJSON struct {
	webhooks.Body
	State      string              `json:"state"`
	Deliveries []webhooks.Delivery `json:"deliveries"`
}

// missedJSON is a missed feed: the body of the last attempt with what it
// posted and what came back.
type missedJSON struct {
	webhooks.Body
	Request  webhooks.Request  `json:"request"`
	Response webhooks.Response `json:"response"`
}

var errInvalid = kernel.E(kernel.Invalid, "bad_request", "invalid request")

// appID reads the app_id query parameter; "" is 0 unless required.
func appID(c *fiber.Ctx, required bool) (int64, error) {
	raw := httpapi.Query(c, "app_id")
	if raw == "" && !required {
		return 0, nil
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, errInvalid.Withf("app_id must be a positive integer, got %q", raw).WithCause("app_id", "app_id must be a positive integer")
	}
	return id, nil
}

// Routes mounts GET /missed_feeds, for the application's owner.
func Routes(app fiber.Router, svc webhooksport.Service, auth httpapi.Auth) {
	app.Get("/missed_feeds", httpapi.UseShape(httpapi.ShapeDefault), auth.Required(), func(c *fiber.Ctx) error {
		id, err := appID(c, true)
		if err != nil {
			return err
		}
		page, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		if c.Query("limit") == "" {
			page.Limit = webhooks.MissedFeedsLimit
		}
		ns, p, err := svc.MissedFeeds(c.UserContext(), id, httpapi.Query(c, "topic"), page)
		if err != nil {
			return err
		}
		out := struct {
			Messages []missedJSON `json:"messages"`
			Paging   paging.Page  `json:"paging"`
		}{Messages: make([]missedJSON, len(ns)), Paging: p}
		for i, n := range ns {
			m := missedJSON{Body: n.Body(), Response: webhooks.Response{Headers: map[string]string{}}}
			if n.Request != nil {
				m.Request = *n.Request
			}
			if n.Response != nil {
				m.Response = *n.Response
			}
			out.Messages[i] = m
		}
		return c.JSON(out)
	})
}

// SandboxRoutes mounts GET and POST /sandbox/notifications.
func SandboxRoutes(r fiber.Router, svc webhooksport.Service) {
	r.Get("/notifications", func(c *fiber.Ctx) error {
		id, err := appID(c, false)
		if err != nil {
			return err
		}
		ns, err := svc.Notifications(c.UserContext(), id, httpapi.Query(c, "topic"))
		if err != nil {
			return err
		}
		out := struct {
			Notifications []notificationJSON `json:"notifications"`
		}{Notifications: make([]notificationJSON, len(ns))}
		for i, n := range ns {
			ds := n.Deliveries
			if ds == nil {
				ds = []webhooks.Delivery{}
			}
			out.Notifications[i] = notificationJSON{Body: n.Body(), State: n.State, Deliveries: ds}
		}
		return c.JSON(out)
	})
	r.Post("/notifications", func(c *fiber.Ctx) error {
		var b struct {
			AppID    int64  `json:"app_id"`
			Topic    string `json:"topic"`
			Resource string `json:"resource"`
			UserID   int64  `json:"user_id"`
		}
		if err := httpapi.BindJSON(c, &b); err != nil {
			return err
		}
		n, err := svc.Trigger(c.UserContext(), webhooksport.Trigger{AppID: b.AppID, Topic: b.Topic, Resource: b.Resource, UserID: b.UserID})
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusAccepted).JSON(n.Body())
	})
}
