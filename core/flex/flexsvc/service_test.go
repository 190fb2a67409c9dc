package flexsvc_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/core/flex/flexsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/accountport/accountporttest"
	"github.com/feria/feria/ports/catalogport/catalogporttest"
	"github.com/feria/feria/ports/flexport/flexporttest"
	"github.com/feria/feria/ports/salesport"
	"github.com/feria/feria/ports/webhooksport/webhooksporttest"
)

var errDown = errors.New("backend down")

// users knows 123 and 124; 500 fails as a broken backend would.
var users = accountporttest.Users{Known: map[int64]account.User{123: {ID: 123, SiteID: "MLA"}, 124: {ID: 124, SiteID: "MLA"}}, Down: map[int64]error{500: errDown}}

// orders knows order 9001 of MLA; 500 fails.
type orders struct{ salesport.Service }

func (orders) Order(_ context.Context, id int64) (sales.Order, error) {
	switch id {
	case 9001:
		return sales.Order{ID: id, SiteID: "MLA", SellerID: 123, BuyerID: 456}, nil
	case 500:
		return sales.Order{}, errDown
	}
	return sales.Order{}, sales.ErrOrderNotFound
}

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func setup() (*flexsvc.Service, *flexporttest.Memory, *kerneltest.Clock) {
	m := flexporttest.NewMemory()
	c := &kerneltest.Clock{At: t0}
	return flexsvc.New(flexsvc.Deps{Store: m, Users: users, Orders: orders{}, Catalog: items{}, Changes: &webhooksporttest.Changes{},
		Items: &catalogporttest.ItemWatch{}, Tx: kerneltest.Tx{}, Clock: c}), m, c
}

// invalid checks an invalid error's message and first cause.
func invalid(t *testing.T, err error, field, message string) {
	t.Helper()
	var e *kernel.Error
	if !errors.As(err, &e) || e.Kind != kernel.Invalid || e.Message != message || len(e.Causes) == 0 || e.Causes[0].Code != field {
		t.Fatalf("err = %#v, want invalid %q naming %s", err, message, field)
	}
}

func TestPutSubscription(t *testing.T) {
	ctx := context.Background()
	body := func() flex.Subscription {
		return flex.Subscription{ServiceID: 3001, SiteID: "MLA", UserID: 123, Status: flex.Status{ID: "in"},
			Configuration: flex.Configuration{Zones: []flex.Zone{{ID: "Z1", Label: "CABA"}}}}
	}
	tests := []struct {
		name    string
		edit    func(*flex.Subscription)
		field   string
		message string
	}{
		{"unknown user", func(s *flex.Subscription) { s.UserID = 999 }, "user_id", "user 999 does not exist"},
		{"unknown site", func(s *flex.Subscription) { s.SiteID = "XXX" }, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XXX"`},
		{"bad status", func(s *flex.Subscription) { s.Status.ID = "on" }, "status", `status must be one of in, out, pending, got "on"`},
		{"bad mode", func(s *flex.Subscription) { s.Mode = "SLOW" }, "mode", `mode must be one of FLEX, TURBO, got "SLOW"`},
		{"repeated zone", func(s *flex.Subscription) {
			s.Configuration.Zones = append(s.Configuration.Zones, flex.Zone{ID: "Z1"})
		}, "zones[1].id", "zones[1].id must be a distinct non-empty id"},
		{"bad delivery range", func(s *flex.Subscription) {
			s.Configuration.DeliveryRanges.Week = []flex.DeliveryRange{{From: 20, To: 14}}
		}, "delivery_ranges.week[0]", "delivery_ranges.week[0] must have 0 <= from < to <= 24"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, m, _ := setup()
			sub := body()
			tt.edit(&sub)
			_, err := s.PutSubscription(ctx, sub)
			invalid(t, err, tt.field, tt.message)
			if _, err := m.Subscription(ctx, 3001); err == nil {
				t.Errorf("a rejected subscription was stored")
			}
		})
	}
	t.Run("users backend down", func(t *testing.T) {
		s, _, _ := setup()
		sub := body()
		sub.UserID = 500
		if _, err := s.PutSubscription(ctx, sub); !errors.Is(err, errDown) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("defaults, id, creation_date kept", func(t *testing.T) {
		s, _, c := setup()
		got, err := s.PutSubscription(ctx, body())
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != 3001 || got.Mode != "FLEX" || !got.CreationDate.Equal(t0) ||
			got.Configuration.Availables.CapacityRange != flex.DefaultCapacityRange ||
			!reflect.DeepEqual(got.Configuration.WorkingDays, flex.DefaultWorkingDays) ||
			got.Configuration.Zones[0].Neighborhoods == nil {
			t.Errorf("subscription: %+v", got)
		}
		c.At = t0.Add(time.Hour)
		again, err := s.PutSubscription(ctx, body())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("re-put changed the subscription:\n got %+v %v\nwant %+v", again, err, got)
		}
		list, err := s.SubscriptionsOfUser(ctx, 123)
		if err != nil || len(list) != 1 {
			t.Errorf("subscriptions of 123: %+v %v", list, err)
		}
		if _, err := s.Subscription(ctx, 1); !errors.Is(err, flex.ErrSubscriptionNotFound) {
			t.Errorf("missing subscription: %v", err)
		}
	})
}

func TestPutShipment(t *testing.T) {
	ctx := context.Background()
	driver := int64(777)
	tests := []struct {
		name    string
		sh      flex.Shipment
		field   string
		message string
	}{
		{"unknown order", flex.Shipment{ID: 40001, SiteID: "MLA", OrderID: 9002}, "order_id", "order 9002 does not exist"},
		{"order of another site", flex.Shipment{ID: 40001, SiteID: "MLB", OrderID: 9001}, "site_id", "order 9001 is of site MLA, not MLB"},
		{"unknown site", flex.Shipment{ID: 40001, SiteID: "XXX", OrderID: 9001}, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XXX"`},
		{"bad driver", flex.Shipment{ID: 40001, SiteID: "MLA", OrderID: 9001, DriverID: new(int64)}, "driver_id", "driver_id must be a positive integer or null"},
		{"bad id", flex.Shipment{ID: 0, SiteID: "MLA", OrderID: 9001}, "shipment_id", "shipment_id must be a positive integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, m, _ := setup()
			_, err := s.PutShipment(ctx, tt.sh)
			invalid(t, err, tt.field, tt.message)
			if _, err := m.Shipment(ctx, tt.sh.ID); err == nil {
				t.Errorf("a rejected shipment was stored")
			}
		})
	}
	t.Run("orders backend down", func(t *testing.T) {
		s, _, _ := setup()
		if _, err := s.PutShipment(ctx, flex.Shipment{ID: 40001, SiteID: "MLA", OrderID: 500}); !errors.Is(err, errDown) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("stored, driver unassigned, idempotent", func(t *testing.T) {
		s, _, _ := setup()
		sh := flex.Shipment{ID: 40001, SiteID: "MLA", OrderID: 9001, DriverID: &driver}
		for range 2 {
			got, err := s.PutShipment(ctx, sh)
			if err != nil || !reflect.DeepEqual(got, sh) {
				t.Fatalf("shipment: %+v %v", got, err)
			}
		}
		sh.DriverID = nil
		if got, err := s.PutShipment(ctx, sh); err != nil || got.DriverID != nil {
			t.Errorf("unassigned: %+v %v", got, err)
		}
		if _, err := s.Shipment(ctx, 1); !errors.Is(err, flex.ErrShipmentNotFound) {
			t.Errorf("missing shipment: %v", err)
		}
	})
}
