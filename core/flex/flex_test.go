package flex_test

import (
	"testing"

	"github.com/feria/feria/core/flex"
)

func TestDefaultsAndValidation(t *testing.T) {
	s := flex.Subscription{ServiceID: 3001, SiteID: "MLA", UserID: 123, Status: flex.Status{ID: "in"}}.WithDefaults()
	c := s.Configuration
	if s.Mode != "FLEX" || c.Availables.CapacityRange != flex.DefaultCapacityRange || len(c.DeliveryRanges.Week) != 1 ||
		c.DeliveryRanges.Saturday != nil || c.DeliveryWindow != "same_day" || len(c.WorkingDays) != 1 || c.Zones == nil {
		t.Errorf("defaults: %+v", s)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := s
	bad.Status.ID = "on"
	bad.Configuration.DeliveryRanges.Sunday = []flex.DeliveryRange{{From: 20, To: 10}}
	if err := bad.Validate(); err == nil || err.Error() != `status must be one of in, out, pending, got "on"` {
		t.Errorf("bad subscription: %v", err)
	}
	if err := (flex.Shipment{ID: 1, SiteID: "MLA", OrderID: 0}).Validate(); err == nil {
		t.Error("shipment without order accepted")
	}
}
