// Package flexapi serves the flex module (local delivery): the public API of
// area E (subscriptions, the GraphQL configuration read, configuration
// changes, the item option, driver assignments) and the sandbox collections
// of flex subscriptions and shipments.
package flexapi

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/ports/flexport"
)

// Collections are the flex module's sandbox collections, in fixtures order.
func Collections(svc flexport.Service) []sandboxapi.Collection {
	put := func(ctx context.Context, b subscriptionBody) (flex.Subscription, error) {
		return svc.PutSubscription(ctx, b.subscription())
	}
	return []sandboxapi.Collection{
		sandboxapi.ByNumber("flex_subscriptions", "flex/subscriptions", "service_id",
			func(b *subscriptionBody, id int64) { b.serviceID = id }, put, svc.Subscription),
		sandboxapi.ByNumber("shipments", "shipments", "shipment_id",
			func(sh *flex.Shipment, id int64) { sh.ID = id }, svc.PutShipment, svc.Shipment),
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
	// Zones shadows the configuration's zones: a zone is enabled unless the
	// body says otherwise; it is selected only when the body says
	// "selected": true, or when it is mandatory (docs/sandbox.md; the mandatory
	// rule is flex.Subscription.WithDefaults').
	Zones []zoneBody `json:"zones"`
	// serviceID is the path's id.
	serviceID int64
}

type zoneBody struct {
	flex.Zone
	Enabled *bool `json:"enabled"`
}

func (b subscriptionBody) subscription() flex.Subscription {
	c := b.Configuration
	if b.Zones != nil {
		c.Zones = make([]flex.Zone, len(b.Zones))
		for i, z := range b.Zones {
			c.Zones[i] = z.Zone
			c.Zones[i].Enabled = z.Enabled == nil || *z.Enabled
		}
	}
	return flex.Subscription{ID: b.serviceID, ServiceID: b.serviceID, SiteID: b.SiteID, UserID: b.UserID, Mode: b.Mode,
		ConfigurationType: b.ConfigurationType, Status: flex.Status{ID: string(b.Status)}, Configuration: c}
}

// statusField accepts the status as docs/sandbox.md writes it ("in") or as the
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
