package flex_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/google/go-cmp/cmp"
)

func TestCheckChangeable(t *testing.T) {
	for _, tt := range []struct {
		status string
		want   string
	}{
		{"in", ""},
		{"pending", ""},
		{"out", "subscription 3001 is out: its settings cannot be changed"},
	} {
		t.Run(tt.status, func(t *testing.T) {
			err := flex.CheckChangeable(flex.Subscription{ServiceID: 3001, Status: flex.Status{ID: tt.status}})
			kerneltest.WantErr(t, tt.status, err, kerneltest.Want{Kind: kernel.Conflict, Message: tt.want})
		})
	}
}

func sub(id, user int64, site, mode string) flex.Subscription {
	return flex.Subscription{ServiceID: id, UserID: user, SiteID: site, Mode: mode}
}

func TestCheckTurbo(t *testing.T) {
	flex1 := sub(1, 123, "MLA", "FLEX")
	turbo2 := sub(2, 123, "MLA", "TURBO")
	tests := []struct {
		name    string
		current []flex.Subscription
		put     flex.Subscription
		want    string
	}{
		{"first FLEX", nil, flex1, ""},
		{"TURBO alone", nil, turbo2, "a TURBO subscription requires a FLEX subscription of user 123 on site MLA"},
		{"TURBO beside FLEX", []flex.Subscription{flex1}, turbo2, ""},
		{"TURBO beside a FLEX of another site", []flex.Subscription{sub(1, 123, "MLB", "FLEX")}, turbo2,
			"a TURBO subscription requires a FLEX subscription of user 123 on site MLA"},
		{"the only FLEX turned TURBO", []flex.Subscription{flex1}, sub(1, 123, "MLA", "TURBO"),
			"a TURBO subscription requires a FLEX subscription of user 123 on site MLA"},
		{"FLEX put again beside TURBO", []flex.Subscription{flex1, turbo2}, flex1, ""},
		{"TURBO put again", []flex.Subscription{flex1, turbo2}, turbo2, ""},
		{"FLEX moved to another site leaves TURBO", []flex.Subscription{flex1, turbo2}, sub(1, 123, "MLB", "FLEX"),
			"user 123 keeps a TURBO subscription on site MLA, which requires the FLEX subscription 1"},
		{"FLEX moved to another user leaves TURBO", []flex.Subscription{flex1, turbo2}, sub(1, 124, "MLA", "FLEX"),
			"user 123 keeps a TURBO subscription on site MLA, which requires the FLEX subscription 1"},
		{"one of two FLEX moved", []flex.Subscription{flex1, sub(3, 123, "MLA", "FLEX"), turbo2}, sub(1, 123, "MLB", "FLEX"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var causes []string
			if tt.want != "" {
				causes = []string{"mode"}
			}
			kerneltest.WantErr(t, tt.name, flex.CheckTurbo(tt.current, tt.put), kerneltest.Want{Kind: kernel.Invalid, Message: tt.want, Causes: causes})
		})
	}
}

func rng(from, to, capacity, cutoff int) flex.RangeChange {
	return flex.RangeChange{From: &from, To: &to, Capacity: &capacity, Cutoff: &cutoff}
}

func change(week, saturday, sunday []flex.RangeChange) flex.DeliveryChange {
	return flex.DeliveryChange{DeliveryRanges: &flex.RangesChange{Week: week, Saturday: saturday, Sunday: sunday}}
}

func defaults() flex.Configuration {
	return flex.Subscription{}.WithDefaults().Configuration
}

func TestApplyDelivery(t *testing.T) {
	t.Run("valid change", func(t *testing.T) {
		ch := change([]flex.RangeChange{rng(12, 16, 20, 10), rng(16, 20, 30, 15)}, []flex.RangeChange{rng(14, 18, 10, 12)}, []flex.RangeChange{})
		ch.DeliveryWindow = kerneltest.Ptr("same_day")
		got, err := flex.ApplyDelivery(defaults(), ch)
		if err != nil {
			t.Fatal(err)
		}
		want := flex.DeliveryRanges{
			Week: []flex.DeliveryRange{
				{CalculatedCutoff: 10, Capacity: 20, EtHour: 16, From: 12, ProcessingTime: 2, To: 16, Type: "cpt"},
				{CalculatedCutoff: 15, Capacity: 30, EtHour: 20, From: 16, ProcessingTime: 1, To: 20, Type: "cpt"},
			},
			Saturday: []flex.DeliveryRange{{CalculatedCutoff: 12, Capacity: 10, EtHour: 18, From: 14, ProcessingTime: 2, To: 18, Type: "cpt"}},
		}
		if diff := cmp.Diff(want, got.DeliveryRanges); diff != "" {
			t.Errorf("ranges (-want +got):\n%s", diff)
		}
		if !reflect.DeepEqual(got.WorkingDays, []string{"week", "saturday"}) || got.DeliveryWindow != "same_day" {
			t.Errorf("working days %v, window %q", got.WorkingDays, got.DeliveryWindow)
		}
	})
	t.Run("window kept when absent", func(t *testing.T) {
		c := defaults()
		c.DeliveryWindow = "same_day"
		got, err := flex.ApplyDelivery(c, change([]flex.RangeChange{rng(14, 20, 50, 13)}, nil, nil))
		if err != nil || got.DeliveryWindow != "same_day" || !reflect.DeepEqual(got.WorkingDays, []string{"week"}) {
			t.Errorf("got %+v %v", got, err)
		}
	})
	week := func(r ...flex.RangeChange) flex.DeliveryChange { return change(r, nil, nil) }
	tests := []struct {
		name          string
		ch            flex.DeliveryChange
		causes, wants string // causes: the causes' codes, space-separated
	}{
		{"no ranges", flex.DeliveryChange{}, "delivery_ranges", "delivery_ranges is required"},
		{"unknown window", func() flex.DeliveryChange {
			c := week(rng(14, 20, 50, 13))
			c.DeliveryWindow = kerneltest.Ptr("next_day")
			return c
		}(),
			"delivery_window", `delivery_window must be one of same_day, got "next_day"`},
		{"empty week", week(), "delivery_ranges.week", "delivery_ranges.week must have at least one range"},
		{"missing capacity", week(flex.RangeChange{From: kerneltest.Ptr(14), To: kerneltest.Ptr(20), Cutoff: kerneltest.Ptr(13)}),
			"delivery_ranges.week[0].capacity", "delivery_ranges.week[0].capacity is required"},
		{"from out of the day", week(rng(-1, 4, 50, 10)), "delivery_ranges.week[0].from delivery_ranges.week[0].cutoff", "delivery_ranges.week[0].from must be an hour from 0 to 23, got -1"},
		{"to before from", week(rng(14, 12, 50, 13)), "delivery_ranges.week[0].to", "delivery_ranges.week[0].to must be after from and at most 24, got 12"},
		{"to past midnight", week(rng(20, 25, 50, 13)), "delivery_ranges.week[0].to", "delivery_ranges.week[0].to must be after from and at most 24, got 25"},
		{"length not offered", week(rng(11, 20, 50, 10)), "delivery_ranges.week[0]", "delivery_ranges.week[0] lasts 9 hours; the configuration offers ranges of 2, 3, 4, 5, 6, 7, 8 hours"},
		{"capacity above range", week(rng(14, 20, 301, 13)), "delivery_ranges.week[0].capacity", "delivery_ranges.week[0].capacity must be within 1..300, got 301"},
		{"capacity below range", week(rng(14, 20, 0, 13)), "delivery_ranges.week[0].capacity", "delivery_ranges.week[0].capacity must be within 1..300, got 0"},
		{"cutoff not offered", week(rng(18, 20, 50, 16)), "delivery_ranges.week[0].cutoff", "delivery_ranges.week[0].cutoff must be one of 10, 11, 12, 13, 14, 15, got 16"},
		{"cutoff after start", week(rng(12, 16, 50, 13)), "delivery_ranges.week[0].cutoff", "delivery_ranges.week[0].cutoff must not be after the range starts (12), got 13"},
		{"overlap", week(rng(14, 20, 50, 13), rng(16, 18, 50, 13)), "delivery_ranges.week[1]", "delivery_ranges.week[1] overlaps delivery_ranges.week[0]"},
		{"bad sunday", change([]flex.RangeChange{rng(14, 20, 50, 13)}, nil, []flex.RangeChange{rng(14, 20, 500, 13)}),
			"delivery_ranges.sunday[0].capacity", "delivery_ranges.sunday[0].capacity must be within 1..300, got 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := defaults()
			got, err := flex.ApplyDelivery(c, tt.ch)
			kerneltest.WantErr(t, tt.name, err, kerneltest.Want{Kind: kernel.Invalid, Message: tt.wants, Causes: strings.Fields(tt.causes)})
			if diff := cmp.Diff(c, got); diff != "" {
				t.Errorf("a refused change changed the configuration (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("every broken rule is a cause", func(t *testing.T) {
		_, err := flex.ApplyDelivery(defaults(), week(rng(14, 20, 0, 16)))
		var e *kernel.Error
		if !errors.As(err, &e) || len(e.Causes) != 2 || e.Causes[1].Code != "delivery_ranges.week[0].cutoff" {
			t.Errorf("causes: %+v", err)
		}
	})
}

func zonesConfig() flex.Configuration {
	return flex.Subscription{Configuration: flex.Configuration{Zones: []flex.Zone{
		{ID: "Z1", IsMandatory: true, Enabled: true},
		{ID: "Z2", Enabled: true},
		{ID: "Z3", Enabled: true, Selected: true},
		{ID: "Z4", Enabled: false},
	}}}.WithDefaults().Configuration
}

func zoneChange(ids ...*string) flex.ZoneChange {
	var ch flex.ZoneChange
	for _, id := range ids {
		ch.Zones = append(ch.Zones, flex.ZoneRef{ID: id})
	}
	return ch
}

func selected(c flex.Configuration) []string {
	var out []string
	for _, z := range c.Zones {
		if z.Selected {
			out = append(out, z.ID)
		}
	}
	return out
}

func TestSelectZones(t *testing.T) {
	if got := selected(zonesConfig()); !reflect.DeepEqual(got, []string{"Z1", "Z3"}) {
		t.Fatalf("defaults select %v, want the mandatory Z1 and the selected Z3", got)
	}
	t.Run("adds to the selected", func(t *testing.T) {
		got, err := flex.SelectZones(zonesConfig(), zoneChange(kerneltest.Ptr("Z2"), kerneltest.Ptr("Z2")))
		if err != nil || !reflect.DeepEqual(selected(got), []string{"Z1", "Z2", "Z3"}) {
			t.Errorf("selected %v %v", selected(got), err)
		}
	})
	t.Run("mandatory selected even when stored unselected", func(t *testing.T) {
		c := zonesConfig()
		c.Zones[0].Selected = false
		got, err := flex.SelectZones(c, zoneChange(kerneltest.Ptr("Z3")))
		if err != nil || !reflect.DeepEqual(selected(got), []string{"Z1", "Z3"}) {
			t.Errorf("selected %v %v", selected(got), err)
		}
	})
	tests := []struct {
		name         string
		ch           flex.ZoneChange
		cause, wants string
	}{
		{"no zones", flex.ZoneChange{}, "zones", "zones must list at least one zone"},
		{"missing id", zoneChange(kerneltest.Ptr("Z2"), nil), "zones[1].id", "zones[1].id is required"},
		{"unknown zone", zoneChange(kerneltest.Ptr("Z9")), "zones[0].id", `zones[0].id must be one of the subscription's zones (Z1, Z2, Z3, Z4), got "Z9"`},
		{"disabled zone", zoneChange(kerneltest.Ptr("Z4")), "zones[0].id", "zones[0].id names zone Z4, which is not enabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := zonesConfig()
			got, err := flex.SelectZones(c, tt.ch)
			kerneltest.WantErr(t, tt.name, err, kerneltest.Want{Kind: kernel.Invalid, Message: tt.wants, Causes: []string{tt.cause}})
			if diff := cmp.Diff(c, got); diff != "" {
				t.Errorf("a refused change changed the configuration (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckItemOffers(t *testing.T) {
	ok := flex.ItemFacts{ItemID: "MLA1", Status: "active", ShippingMode: "me2", Me2Types: []string{"drop_off", "self_service"}, SellerFlexIn: true}
	tests := []struct {
		name string
		edit func(*flex.ItemFacts)
		want string
	}{
		{"offers", func(*flex.ItemFacts) {}, ""},
		{"paused", func(f *flex.ItemFacts) { f.Status = "paused" }, "item MLA1 is not active (status paused)"},
		{"not me2", func(f *flex.ItemFacts) { f.ShippingMode = "not_specified" }, "item MLA1 does not ship with mode me2 (mode not_specified)"},
		{"category without self_service", func(f *flex.ItemFacts) { f.Me2Types = []string{"drop_off"} }, "the category of item MLA1 does not offer self_service in its me2 logistics"},
		{"category without me2", func(f *flex.ItemFacts) { f.Me2Types = nil }, "the category of item MLA1 does not offer self_service in its me2 logistics"},
		{"seller not in", func(f *flex.ItemFacts) { f.SellerFlexIn = false }, "the seller of item MLA1 has no FLEX subscription in on its site"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := ok
			tt.edit(&f)
			err := flex.CheckItemOffers(f)
			if tt.want == "" {
				kerneltest.WantErr(t, tt.name, err, kerneltest.Want{})
				return
			}
			kerneltest.WantErr(t, tt.name, err, kerneltest.Want{Kind: kernel.Permission, Message: "item down: " + tt.want, Causes: []string{"item_id"}})
		})
	}
}
