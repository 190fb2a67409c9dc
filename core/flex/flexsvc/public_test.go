package flexsvc_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/core/flex/flexsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/ports/catalogport"
)

// items knows the items of seller 123 on MLA: MLA1 offers the option,
// MLA2 is paused, MLA3 is in a category without self_service; MLB9 is of
// another site.
type items struct{ catalogport.Service }

func (items) Item(_ context.Context, id string) (catalog.Item, error) {
	it := catalog.Item{ID: id, SiteID: "MLA", SellerID: 123, CategoryID: "MLA10", Status: "active", Shipping: catalog.ItemShipping{Mode: "me2"}}
	switch id {
	case "MLA1":
	case "MLA2":
		it.Status = "paused"
	case "MLA3":
		it.CategoryID = "MLA20"
	case "MLB9":
		it.SiteID = "MLB"
	case "MLA500":
		return it, errDown
	default:
		return catalog.Item{}, catalog.ErrItemNotFound
	}
	return it, nil
}

func (items) Category(_ context.Context, id string) (catalog.Category, error) {
	c := catalog.Category{ID: id, SiteID: "MLA"}
	c.ShippingPreferences.Logistics = []catalog.Logistic{{Mode: "me2", Types: []string{"drop_off"}}, {Mode: "custom", Types: []string{"self_service"}}}
	if id == "MLA10" {
		c.ShippingPreferences.Logistics[0].Types = append(c.ShippingPreferences.Logistics[0].Types, "self_service")
	}
	return c, nil
}

func as(user int64) context.Context {
	return kernel.WithCaller(context.Background(), kernel.Caller{UserID: user, SiteID: "MLA"})
}

// is checks an error's kind and message ("" for no error).
func is(t *testing.T, err error, kind kernel.Kind, message string) {
	t.Helper()
	if message == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var e *kernel.Error
	if !errors.As(err, &e) || e.Kind != kind || e.Message != message {
		t.Fatalf("err = %v, want %v %q", err, kind, message)
	}
}

// world stores FLEX 3001 (in) of 123 on MLA, FLEX 3002 (out) of 124 on MLA
// and FLEX 3003 of 123 on MLB.
func world(t *testing.T) (*flexsvc.Service, *kerneltest.Clock) {
	t.Helper()
	s, _, c := setup()
	for _, sub := range []flex.Subscription{
		{ServiceID: 3001, SiteID: "MLA", UserID: 123, Status: flex.Status{ID: "in"},
			Configuration: flex.Configuration{Zones: []flex.Zone{{ID: "Z1", IsMandatory: true, Enabled: true}, {ID: "Z2", Enabled: true}}}},
		{ServiceID: 3002, SiteID: "MLA", UserID: 124, Status: flex.Status{ID: "out"}},
		{ServiceID: 3003, SiteID: "MLB", UserID: 123, Status: flex.Status{ID: "in"}},
	} {
		if _, err := s.PutSubscription(context.Background(), sub); err != nil {
			t.Fatal(err)
		}
	}
	return s, c
}

func TestTurboRequiresFlex(t *testing.T) {
	s, _ := world(t)
	ctx := context.Background()
	turbo := flex.Subscription{ServiceID: 3004, SiteID: "MLB", UserID: 124, Mode: "TURBO", Status: flex.Status{ID: "in"}}
	_, err := s.PutSubscription(ctx, turbo)
	is(t, err, kernel.Invalid, "a TURBO subscription requires a FLEX subscription of user 124 on site MLB")
	turbo.UserID, turbo.SiteID = 123, "MLA"
	if _, err := s.PutSubscription(ctx, turbo); err != nil {
		t.Fatal(err)
	}
	list, err := s.Subscriptions(as(123), "MLA", 123)
	if err != nil || len(list) != 2 || list[0].Mode != "FLEX" || list[1].Mode != "TURBO" {
		t.Errorf("subscriptions with TURBO: %+v %v", list, err)
	}
}

func TestSubscriptionsAndConfiguration(t *testing.T) {
	s, _ := world(t)
	tests := []struct {
		name    string
		ctx     context.Context
		site    string
		user    int64
		service int64
		kind    kernel.Kind
		message string
	}{
		{"own", as(123), "MLA", 123, 3001, 0, ""},
		{"empty site", as(123), "", 123, 3001, kernel.Invalid, "empty site id"},
		{"invalid site", as(123), "MLX", 123, 3001, kernel.Invalid, `invalid site_id: "MLX" is not a site`},
		{"unknown user", as(123), "MLA", 999, 3001, kernel.NotExist, "user not found: 999"},
		{"another user", as(124), "MLA", 123, 3001, kernel.Invalid, "can't access to resource: user 123 is not the caller"},
		{"users backend down", as(500), "MLA", 500, 3001, kernel.Internal, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := s.Subscriptions(tt.ctx, tt.site, tt.user)
			_, cerr := s.Configuration(tt.ctx, tt.site, tt.user, tt.service)
			if tt.user == 500 {
				if !errors.Is(err, errDown) || !errors.Is(cerr, errDown) {
					t.Fatalf("outage: %v / %v", err, cerr)
				}
				return
			}
			is(t, err, tt.kind, tt.message)
			is(t, cerr, tt.kind, tt.message)
			if tt.message == "" && (len(list) != 1 || list[0].ServiceID != 3001) {
				t.Errorf("list: %+v", list)
			}
		})
	}
	for _, tt := range []struct {
		name    string
		site    string
		service int64
	}{{"unknown service", "MLA", 4000}, {"service of another user", "MLA", 3002}, {"service of another site", "MLA", 3003}} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Configuration(as(123), tt.site, 123, tt.service)
			is(t, err, kernel.NotExist, "no subscription for the user_id 123 and service_id "+itoa(tt.service)+" pair on site MLA")
		})
	}
	if _, err := s.Subscriptions(context.Background(), "MLA", 123); !errors.Is(err, flexsvc.ErrNoCaller) {
		t.Errorf("no caller: %v", err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestChanges(t *testing.T) {
	zone := func(id string) flex.ZoneChange { return flex.ZoneChange{Zones: []flex.ZoneRef{{ID: &id}}} }
	delivery := flex.DeliveryChange{DeliveryRanges: &flex.RangesChange{Week: []flex.RangeChange{{From: kerneltest.Ptr(12), To: kerneltest.Ptr(16), Capacity: kerneltest.Ptr(20), Cutoff: kerneltest.Ptr(10)}}}}
	tests := []struct {
		name    string
		ctx     context.Context
		site    string
		user    int64
		service int64
		kind    kernel.Kind
		message string
	}{
		{"invalid site", as(123), "XX", 123, 3001, kernel.Invalid, `invalid site_id: "XX" is not a site`},
		{"another user", as(124), "MLA", 123, 3001, kernel.Invalid, "can't access to resource: user 123 is not the caller"},
		{"unknown pair", as(123), "MLA", 123, 4000, kernel.NotExist, "can't update delivery custom: no subscription for the user_id 123 and service_id 4000 pair on site MLA"},
		{"pair of another site", as(123), "MLA", 123, 3003, kernel.NotExist, "can't update delivery custom: no subscription for the user_id 123 and service_id 3003 pair on site MLA"},
		{"out subscription", as(124), "MLA", 124, 3002, kernel.Conflict, "subscription 3002 is out: its settings cannot be changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := world(t)
			_, err := s.ChangeDelivery(tt.ctx, tt.site, tt.user, tt.service, delivery)
			is(t, err, tt.kind, tt.message)
			_, err = s.ChangeZones(tt.ctx, tt.site, tt.user, tt.service, zone("Z2"))
			is(t, err, tt.kind, tt.message)
		})
	}
	t.Run("applied and read back", func(t *testing.T) {
		s, _ := world(t)
		c, err := s.ChangeDelivery(as(123), "MLA", 123, 3001, delivery)
		if err != nil || c.DeliveryRanges.Week[0].From != 12 {
			t.Fatalf("delivery: %+v %v", c.DeliveryRanges, err)
		}
		if _, err := s.ChangeZones(as(123), "MLA", 123, 3001, zone("Z2")); err != nil {
			t.Fatal(err)
		}
		sub, err := s.Configuration(as(123), "MLA", 123, 3001)
		if err != nil || sub.Configuration.DeliveryRanges.Week[0].Capacity != 20 || !sub.Configuration.Zones[1].Selected || !sub.Configuration.Zones[0].Selected {
			t.Errorf("read back: %+v %v", sub.Configuration, err)
		}
	})
	t.Run("refused change writes nothing", func(t *testing.T) {
		s, _ := world(t)
		_, err := s.ChangeZones(as(123), "MLA", 123, 3001, zone("Z9"))
		is(t, err, kernel.Invalid, `zones[0].id must be one of the subscription's zones (Z1, Z2), got "Z9"`)
		sub, _ := s.Configuration(as(123), "MLA", 123, 3001)
		if sub.Configuration.Zones[1].Selected {
			t.Error("a refused change selected a zone")
		}
	})
}

func TestItemOption(t *testing.T) {
	s, _ := world(t)
	step := func(what string, err error, kind kernel.Kind, message string) {
		t.Helper()
		t.Run(what, func(t *testing.T) { is(t, err, kind, message) })
	}
	seller := as(123)
	step("read before", s.ItemOption(seller, "MLA", "MLA1"), kernel.NotExist, "item MLA1 is not in flex")
	step("disable before", s.DisableItem(seller, "MLA", "MLA1"), kernel.Invalid, "item MLA1 is not in flex")
	step("enable", s.EnableItem(seller, "MLA", "MLA1"), 0, "")
	step("read enabled", s.ItemOption(seller, "MLA", "MLA1"), 0, "")
	step("enable again", s.EnableItem(seller, "MLA", "MLA1"), kernel.Invalid, "item MLA1 is already in flex")
	step("disable", s.DisableItem(seller, "MLA", "MLA1"), 0, "")
	step("read disabled", s.ItemOption(seller, "MLA", "MLA1"), kernel.NotExist, "item MLA1 is not in flex")
	step("paused item", s.EnableItem(seller, "MLA", "MLA2"), kernel.Permission, "item down: item MLA2 is not active (status paused)")
	step("category without self_service in me2", s.ItemOption(seller, "MLA", "MLA3"), kernel.Permission,
		"item down: the category of item MLA3 does not offer self_service in its me2 logistics")
	step("disable down item", s.DisableItem(seller, "MLA", "MLA3"), kernel.Permission,
		"item down: the category of item MLA3 does not offer self_service in its me2 logistics")
	step("unknown item", s.EnableItem(seller, "MLA", "MLA404"), kernel.NotExist, "item not found: MLA404")
	step("item of another site", s.ItemOption(seller, "MLA", "MLB9"), kernel.NotExist, "item not found: MLB9")
	step("invalid site", s.ItemOption(seller, "MLX", "MLA1"), kernel.Invalid, `invalid site_id: "MLX" is not a site`)
	step("not the seller", s.EnableItem(as(124), "MLA", "MLA1"), kernel.Permission, "only the seller of item MLA1 may use its local delivery option")
	if err := s.ItemOption(seller, "MLA", "MLA500"); !errors.Is(err, errDown) {
		t.Errorf("catalog down: %v", err)
	}
	t.Run("seller without FLEX in", func(t *testing.T) {
		s, _, _ := setup()
		is(t, s.EnableItem(seller, "MLA", "MLA1"), kernel.Permission, "item down: the seller of item MLA1 has no FLEX subscription in on its site")
	})
	step("read after disable", s.ItemOption(seller, "MLA", "MLA1"), kernel.NotExist, "item MLA1 is not in flex")
}

func TestAssignment(t *testing.T) {
	s, _ := world(t)
	ctx := context.Background()
	driver := int64(777)
	for _, sh := range []flex.Shipment{{ID: 40001, SiteID: "MLA", OrderID: 9001, DriverID: &driver}, {ID: 40002, SiteID: "MLA", OrderID: 9001}} {
		if _, err := s.PutShipment(ctx, sh); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Assignment(as(123), "MLA", 40001)
	if err != nil || got != 777 {
		t.Fatalf("assignment: %d %v", got, err)
	}
	for _, tt := range []struct {
		name    string
		ctx     context.Context
		site    string
		id      int64
		kind    kernel.Kind
		message string
	}{
		{"no driver", as(123), "MLA", 40002, kernel.NotExist, "shipment_id not found: 40002"},
		{"unknown shipment", as(123), "MLA", 40009, kernel.NotExist, "shipment_id not found: 40009"},
		{"shipment of another site", as(123), "MLB", 40001, kernel.NotExist, "shipment_id not found: 40001"},
		{"the buyer", as(456), "MLA", 40001, kernel.Permission, "only the seller of the order of shipment 40001 may read its assignment"},
		{"another user, no driver", as(124), "MLA", 40002, kernel.Permission, "only the seller of the order of shipment 40002 may read its assignment"},
		{"empty site", as(123), "", 40001, kernel.Invalid, "empty site id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Assignment(tt.ctx, tt.site, tt.id)
			is(t, err, tt.kind, tt.message)
		})
	}
}
