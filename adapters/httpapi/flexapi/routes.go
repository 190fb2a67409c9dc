package flexapi

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/flexport"
)

// Routes mounts the public local delivery API of area E; every error is in
// shape (a). The site segment is optional in the route so that an empty one
// reaches the handler and answers the contract's "empty site id".
func Routes(r fiber.Router, svc flexport.Service, auth httpapi.Auth) {
	h := handlers{svc: svc, graph: newGraph(svc)}
	shape := httpapi.UseShape(httpapi.ShapeDefault)
	token := auth.Required()
	user := "/shipping/flex/sites/:site_id?/users/:user_id"
	r.Get(user+"/subscriptions/v1", shape, token, h.subscriptions)
	r.Post("/shipping/flex/sites/:site_id?/configuration/v3", shape, token, h.configuration)
	service := user + "/services/:service_id/configuration"
	r.Put(service+"/delivery/custom/v3", shape, token, h.delivery)
	r.Put(service+"/coverage/zone/v3", shape, token, h.zones)
	item := "/sites/:site_id?/shipping/selfservice/items/:item_id"
	r.Get(item, shape, token, h.option(svc.ItemOption))
	r.Post(item, shape, token, h.option(svc.EnableItem))
	r.Delete(item, shape, token, h.option(svc.DisableItem))
	r.Get("/flex/sites/:site_id?/shipments/:shipment_id/assignment/v1", shape, token, h.assignment)
	r.Get("/shipments/:shipment_id", shape, token, h.shipment)
	r.Get("/shipments/:shipment_id/items", shape, token, h.shipmentItems)
}

type handlers struct {
	svc   flexport.Service
	graph *graph
}

// subscriptionAnswer is one subscription of the subscriptions answer, in
// the contract's field order (its configuration is read through GraphQL).
type subscriptionAnswer struct {
	ID                int64                  `json:"id"`
	SiteID            string                 `json:"site_id"`
	UserID            int64                  `json:"user_id"`
	Mode              string                 `json:"mode"`
	ConfigurationType flex.ConfigurationType `json:"configuration_type"`
	ServiceID         int64                  `json:"service_id"`
	Status            flex.Status            `json:"status"`
	CreationDate      time.Time              `json:"creation_date"`
}

// pathID reads an id of the path that must be a positive integer; bad is
// the contract's error for it ("invalid user_id", "invalid service_id").
func pathID(c *fiber.Ctx, name string, bad *kernel.Error) (int64, error) {
	raw := c.Params(name)
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, bad.Withf("%s: %q is not a positive integer", bad.Message, raw).WithCause(name, name+" must be a positive integer")
	}
	return id, nil
}

func (h handlers) subscriptions(c *fiber.Ctx) error {
	user, err := pathID(c, "user_id", flex.ErrInvalidUserID)
	if err != nil {
		return err
	}
	subs, err := h.svc.Subscriptions(c.UserContext(), httpapi.Param(c, "site_id"), user)
	if err != nil {
		return err
	}
	out := make([]subscriptionAnswer, len(subs))
	for i, s := range subs {
		out[i] = subscriptionAnswer{ID: s.ID, SiteID: s.SiteID, UserID: s.UserID, Mode: s.Mode, ConfigurationType: s.ConfigurationType,
			ServiceID: s.ServiceID, Status: s.Status, CreationDate: s.CreationDate}
	}
	return c.JSON(out)
}

// queryBody is the configuration read's body: the GraphQL query and,
// optionally, its variables and operation name.
type queryBody struct {
	Query         *string        `json:"query"`
	Variables     map[string]any `json:"variables"`
	OperationName string         `json:"operationName"`
}

func (h handlers) configuration(c *fiber.Ctx) error {
	var b queryBody
	if err := bindBody(c, &b); err != nil {
		return err
	}
	if b.Query == nil || strings.TrimSpace(*b.Query) == "" {
		return errInvalidQuery.WithCause("query", "query must be a GraphQL query selecting configuration(user_id, service_id)")
	}
	data, err := h.graph.execute(c.UserContext(), httpapi.Param(c, "site_id"), *b.Query, b.OperationName, b.Variables)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(data)
}

// bindBody decodes a JSON body; every way it can fail is the contract's
// "invalid JSON body", with the field in the cause.
func bindBody(c *fiber.Ctx, v any) error {
	err := httpapi.BindJSON(c, v)
	if e, ok := err.(*kernel.Error); ok && !strings.HasPrefix(e.Message, "invalid JSON body") {
		return e.With("invalid JSON body: " + e.Message)
	}
	return err
}

// pair reads the site, user and service of a configuration change path.
func pair(c *fiber.Ctx) (site string, user, service int64, err error) {
	if user, err = pathID(c, "user_id", flex.ErrInvalidUserID); err != nil {
		return
	}
	if service, err = pathID(c, "service_id", flex.ErrInvalidService); err != nil {
		return
	}
	return httpapi.Param(c, "site_id"), user, service, nil
}

// deliveryAnswer is what the delivery change answers: the configuration's
// delivery part as stored.
type deliveryAnswer struct {
	DeliveryWindow string              `json:"delivery_window"`
	DeliveryRanges flex.DeliveryRanges `json:"delivery_ranges"`
	WorkingDays    []string            `json:"working_days"`
}

func (h handlers) delivery(c *fiber.Ctx) error {
	site, user, service, err := pair(c)
	if err != nil {
		return err
	}
	var ch flex.DeliveryChange
	if err := bindBody(c, &ch); err != nil {
		return err
	}
	conf, err := h.svc.ChangeDelivery(c.UserContext(), site, user, service, ch)
	if err != nil {
		return err
	}
	return c.JSON(deliveryAnswer{DeliveryWindow: conf.DeliveryWindow, DeliveryRanges: conf.DeliveryRanges, WorkingDays: conf.WorkingDays})
}

func (h handlers) zones(c *fiber.Ctx) error {
	site, user, service, err := pair(c)
	if err != nil {
		return err
	}
	var ch flex.ZoneChange
	if err := bindBody(c, &ch); err != nil {
		return err
	}
	conf, err := h.svc.ChangeZones(c.UserContext(), site, user, service, ch)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"zones": conf.Zones})
}

// option serves one method of the item option: 204 when the use case
// succeeds.
func (h handlers) option(do func(ctx context.Context, site, item string) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := do(c.UserContext(), httpapi.Param(c, "site_id"), httpapi.Param(c, "item_id")); err != nil {
			return err
		}
		return c.SendStatus(fiber.StatusNoContent)
	}
}

func (h handlers) assignment(c *fiber.Ctx) error {
	site := httpapi.Param(c, "site_id")
	raw := c.Params("shipment_id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		// A shipment id that is no positive number names no shipment.
		if err := flex.CheckSite(site); err != nil {
			return err
		}
		return flex.ErrNoAssignment.Withf("shipment_id not found: %s", raw)
	}
	driver, err := h.svc.Assignment(c.UserContext(), site, id)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"driver_id": driver})
}
