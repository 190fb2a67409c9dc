// Package worldapi serves the world the public API reads: the sandbox
// collections of categories, domains, products, items, orders, brands,
// flex subscriptions and shipments, and the public item reads (the item
// resource, the status check and the seller's item search).
package worldapi

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/brandsport"
	"github.com/feria/feria/ports/catalogport"
	"github.com/feria/feria/ports/flexport"
	"github.com/feria/feria/ports/salesport"
)

// Services are the use cases the world routes call.
type Services struct {
	Catalog catalogport.Service
	Sales   salesport.Service
	Brands  brandsport.Service
	Flex    flexport.Service
}

var errBadID = kernel.E(kernel.Invalid, "bad_request", "invalid id")

// positiveID parses a numeric path id; field names it in the error.
func positiveID(field, raw string) (int64, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, errBadID.Withf("%s must be a positive integer, got %q", field, raw).
			WithCause(field, field+" must be a positive integer")
	}
	return id, nil
}

// Collections are the sandbox collections of the world, in fixtures order.
func Collections(s Services) []sandboxapi.Collection {
	return []sandboxapi.Collection{
		{
			Name: "categories", Path: "categories",
			Put: func(ctx context.Context, id string, body []byte) (any, error) {
				var c catalog.Category
				if err := httpapi.DecodeJSON(body, &c); err != nil {
					return nil, err
				}
				c.ID = id
				return s.Catalog.PutCategory(ctx, c)
			},
			Get: func(ctx context.Context, id string) (any, error) { return s.Catalog.Category(ctx, id) },
		},
		{
			Name: "domains", Path: "domains",
			Put: func(ctx context.Context, id string, body []byte) (any, error) {
				var d catalog.Domain
				if err := httpapi.DecodeJSON(body, &d); err != nil {
					return nil, err
				}
				d.ID = id
				return s.Catalog.PutDomain(ctx, d)
			},
			Get: func(ctx context.Context, id string) (any, error) { return s.Catalog.Domain(ctx, id) },
		},
		{
			Name: "products", Path: "products",
			Put: func(ctx context.Context, id string, body []byte) (any, error) {
				var p catalog.Product
				if err := httpapi.DecodeJSON(body, &p); err != nil {
					return nil, err
				}
				p.ID = id
				return s.Catalog.PutProduct(ctx, p)
			},
			Get: func(ctx context.Context, id string) (any, error) { return s.Catalog.Product(ctx, id) },
		},
		{
			Name: "items", Path: "items",
			Put: func(ctx context.Context, id string, body []byte) (any, error) {
				var it catalog.Item
				if err := httpapi.DecodeJSON(body, &it); err != nil {
					return nil, err
				}
				it.ID = id
				return s.Catalog.PutItem(ctx, it)
			},
			Get: func(ctx context.Context, id string) (any, error) { return s.Catalog.ItemView(ctx, id) },
		},
		{
			Name: "orders", Path: "orders",
			Put: func(ctx context.Context, raw string, body []byte) (any, error) {
				id, err := positiveID("order_id", raw)
				if err != nil {
					return nil, err
				}
				var o sales.Order
				if err := httpapi.DecodeJSON(body, &o); err != nil {
					return nil, err
				}
				o.ID = id
				return s.Sales.PutOrder(ctx, o)
			},
			Get: func(ctx context.Context, raw string) (any, error) {
				id, err := positiveID("order_id", raw)
				if err != nil {
					return nil, err
				}
				return s.Sales.Order(ctx, id)
			},
		},
		{
			Name: "brands", Path: "brands",
			Put: func(ctx context.Context, raw string, body []byte) (any, error) {
				id, err := positiveID("official_store_id", raw)
				if err != nil {
					return nil, err
				}
				var b brands.Brand
				if err := httpapi.DecodeJSON(body, &b); err != nil {
					return nil, err
				}
				b.ID = id
				return s.Brands.PutBrand(ctx, b)
			},
			Get: func(ctx context.Context, raw string) (any, error) {
				id, err := positiveID("official_store_id", raw)
				if err != nil {
					return nil, err
				}
				return s.Brands.Brand(ctx, id)
			},
		},
		{
			Name: "flex_subscriptions", Path: "flex/subscriptions",
			Put: func(ctx context.Context, raw string, body []byte) (any, error) {
				id, err := positiveID("service_id", raw)
				if err != nil {
					return nil, err
				}
				var b subscriptionBody
				if err := httpapi.DecodeJSON(body, &b); err != nil {
					return nil, err
				}
				return s.Flex.PutSubscription(ctx, b.subscription(id))
			},
			Get: func(ctx context.Context, raw string) (any, error) {
				id, err := positiveID("service_id", raw)
				if err != nil {
					return nil, err
				}
				return s.Flex.Subscription(ctx, id)
			},
		},
		{
			Name: "shipments", Path: "shipments",
			Put: func(ctx context.Context, raw string, body []byte) (any, error) {
				id, err := positiveID("shipment_id", raw)
				if err != nil {
					return nil, err
				}
				var sh flex.Shipment
				if err := httpapi.DecodeJSON(body, &sh); err != nil {
					return nil, err
				}
				sh.ID = id
				return s.Flex.PutShipment(ctx, sh)
			},
			Get: func(ctx context.Context, raw string) (any, error) {
				id, err := positiveID("shipment_id", raw)
				if err != nil {
					return nil, err
				}
				return s.Flex.Shipment(ctx, id)
			},
		},
	}
}

// subscriptionBody is the PUT body of a flex subscription: the
// subscription's fields and, optionally, any of its configuration.
type subscriptionBody struct {
	SiteID            string                 `json:"site_id"`
	UserID            int64                  `json:"user_id"`
	Mode              string                 `json:"mode"`
	ConfigurationType flex.ConfigurationType `json:"configuration_type"`
	Status            statusField            `json:"status"`
	flex.Configuration
	// Zones shadows the configuration's zones: a zone is enabled and
	// selected unless the body says otherwise.
	Zones []zoneBody `json:"zones"`
}

type zoneBody struct {
	flex.Zone
	Enabled  *bool `json:"enabled"`
	Selected *bool `json:"selected"`
}

func (b subscriptionBody) subscription(serviceID int64) flex.Subscription {
	c := b.Configuration
	if b.Zones != nil {
		c.Zones = make([]flex.Zone, len(b.Zones))
		for i, z := range b.Zones {
			c.Zones[i] = z.Zone
			c.Zones[i].Enabled = z.Enabled == nil || *z.Enabled
			c.Zones[i].Selected = z.Selected == nil || *z.Selected
		}
	}
	return flex.Subscription{ID: serviceID, ServiceID: serviceID, SiteID: b.SiteID, UserID: b.UserID, Mode: b.Mode,
		ConfigurationType: b.ConfigurationType, Status: flex.Status{ID: string(b.Status)}, Configuration: c}
}

// statusField accepts the status as sandbox.md writes it ("in") or as the
// public API shows it ({"id": "in"}).
type statusField string

func (s *statusField) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err == nil {
		*s = statusField(v)
		return nil
	}
	var o struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return &json.UnmarshalTypeError{Value: "value", Type: reflect.TypeOf("")}
	}
	*s = statusField(o.ID)
	return nil
}
