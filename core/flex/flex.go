// Package flex holds local same-day delivery ('flex') subscriptions with
// their configuration, and the shipments drivers are assigned to.
package flex

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/feria/feria/core/kernel"
)

// Subscription is a seller's subscription to a local delivery service, with
// the configuration the configuration answer of the contract shows.
type Subscription struct {
	ID                int64             `json:"id"`
	ServiceID         int64             `json:"service_id"`
	SiteID            string            `json:"site_id"`
	UserID            int64             `json:"user_id"`
	Mode              string            `json:"mode"`
	ConfigurationType ConfigurationType `json:"configuration_type"`
	Status            Status            `json:"status"`
	CreationDate      time.Time         `json:"creation_date"`
	Configuration     Configuration     `json:"configuration"`
}

// ConfigurationType says how coverage and delivery are configured.
type ConfigurationType struct {
	Coverage string `json:"coverage"`
	Delivery string `json:"delivery"`
}

// Status is a subscription status: in, out or pending.
type Status struct {
	ID string `json:"id"`
}

// Configuration is the delivery configuration of a subscription.
type Configuration struct {
	Address          Address        `json:"address"`
	Availables       Availables     `json:"availables"`
	DeliveryRanges   DeliveryRanges `json:"delivery_ranges"`
	DeliveryWindow   string         `json:"delivery_window"`
	DisabledFeatures []string       `json:"disabled_features"`
	IsModerated      bool           `json:"is_moderated"`
	TrainingTimes    *TrainingTimes `json:"training_times"`
	WorkingDays      []string       `json:"working_days"`
	Zones            []Zone         `json:"zones"`
}

// Address is the seller's delivery address.
type Address struct {
	ID          int64  `json:"id"`
	AddressLine string `json:"address_line"`
	City        City   `json:"city"`
	ZipCode     string `json:"zip_code"`
}

// City names a city.
type City struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Availables are the choices the seller may configure.
type Availables struct {
	CapacityRange Range `json:"capacity_range"`
	Cutoff        []int `json:"cutoff"`
	Ranges        []int `json:"ranges"`
}

// Range is an inclusive integer range.
type Range struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// DeliveryRanges are the delivery windows of the week, Saturday and Sunday;
// nil Saturday or Sunday: no delivery that day.
type DeliveryRanges struct {
	Week     []DeliveryRange `json:"week"`
	Saturday []DeliveryRange `json:"saturday"`
	Sunday   []DeliveryRange `json:"sunday"`
}

// DeliveryRange is one delivery window: hours from..to, the orders taken
// until the cut-off hour, at most capacity of them.
type DeliveryRange struct {
	CalculatedCutoff int    `json:"calculated_cutoff"`
	Capacity         int    `json:"capacity"`
	EtHour           int    `json:"et_hour"`
	From             int    `json:"from"`
	ProcessingTime   int    `json:"processing_time"`
	To               int    `json:"to"`
	Type             string `json:"type"`
}

// TrainingTimes is the training period of a new subscription.
type TrainingTimes struct {
	Original       Amount     `json:"original"`
	Remaining      Amount     `json:"remaining"`
	ActivationDate *time.Time `json:"activation_date"`
}

// Amount is a value with a unit.
type Amount struct {
	Value int    `json:"value"`
	Unit  string `json:"unit"`
}

// Zone is a coverage zone.
type Zone struct {
	Enabled       bool     `json:"enabled"`
	ID            string   `json:"id"`
	IsMandatory   bool     `json:"is_mandatory"`
	Label         string   `json:"label"`
	Neighborhoods []string `json:"neighborhoods"`
	Price         Price    `json:"price"`
	Selected      bool     `json:"selected"`
}

// Price is a price split the way the contract shows it (all strings).
type Price struct {
	Cents            string `json:"cents"`
	CurrencyID       string `json:"currency_id"`
	DecimalSeparator string `json:"decimal_separator"`
	Fraction         string `json:"fraction"`
	Symbol           string `json:"symbol"`
}

// Shipment is a shipment of an order; DriverID nil: no driver assigned.
type Shipment struct {
	ID       int64  `json:"id"`
	SiteID   string `json:"site_id"`
	OrderID  int64  `json:"order_id"`
	DriverID *int64 `json:"driver_id"`
}

// ShipmentItem is one line of GET /shipments/{id}/items: an item of the
// shipment's order, under the marketplace's names. Dimensions and
// variation are null: a sandbox order holds neither.
type ShipmentItem struct {
	ItemID      string  `json:"item_id"`
	Description string  `json:"description"`
	Quantity    int     `json:"quantity"`
	Dimensions  *string `json:"dimensions"`
	SenderID    int64   `json:"sender_id"`
	OrderID     int64   `json:"order_id"`
	VariationID *int64  `json:"variation_id"`
}

// Errors of the module.
var (
	ErrInvalidSubscription  = kernel.E(kernel.Invalid, "bad_request", "invalid subscription")
	ErrSubscriptionNotFound = kernel.E(kernel.NotExist, "not_found", "subscription not found")
	ErrInvalidShipment      = kernel.E(kernel.Invalid, "bad_request", "invalid shipment")
	ErrShipmentNotFound     = kernel.E(kernel.NotExist, "not_found", "shipment not found")
	ErrNotYourShipment      = kernel.E(kernel.Permission, "forbidden", "the caller is neither the seller nor the buyer of the shipment's order")
)

// Values the sandbox accepts.
var (
	Modes    = []string{"FLEX", "TURBO"}
	Statuses = []string{"in", "out", "pending"}
)

// Default configuration values: a weekday window from 14 to 20 h taking
// orders until 13 h, capacity 50 within the allowed 1..300, Monday to
// Friday, same-day delivery.
var (
	DefaultCapacityRange = Range{From: 1, To: 300}
	DefaultCutoffs       = []int{10, 11, 12, 13, 14, 15}
	DefaultRangeHours    = []int{2, 3, 4, 5, 6, 7, 8}
	DefaultWeek          = []DeliveryRange{{CalculatedCutoff: 13, Capacity: 50, EtHour: 20, From: 14, ProcessingTime: 1, To: 20, Type: "cpt"}}
	DefaultWorkingDays   = []string{"week"}
	DefaultWindow        = "same_day"
)

// WithDefaults fills what the configuration lacks with the defaults and
// selects the mandatory zones: docs/sandbox.md says they are always selected.
func (s Subscription) WithDefaults() Subscription {
	c := &s.Configuration
	if c.Availables.CapacityRange == (Range{}) {
		c.Availables.CapacityRange = DefaultCapacityRange
	}
	if c.Availables.Cutoff == nil {
		c.Availables.Cutoff = append([]int(nil), DefaultCutoffs...)
	}
	if c.Availables.Ranges == nil {
		c.Availables.Ranges = append([]int(nil), DefaultRangeHours...)
	}
	if c.DeliveryRanges.Week == nil {
		c.DeliveryRanges.Week = append([]DeliveryRange(nil), DefaultWeek...)
	}
	if c.DeliveryWindow == "" {
		c.DeliveryWindow = DefaultWindow
	}
	if c.DisabledFeatures == nil {
		c.DisabledFeatures = []string{}
	}
	if c.WorkingDays == nil {
		c.WorkingDays = append([]string(nil), DefaultWorkingDays...)
	}
	if c.Zones == nil {
		c.Zones = []Zone{}
	}
	for i := range c.Zones {
		if c.Zones[i].Neighborhoods == nil {
			c.Zones[i].Neighborhoods = []string{}
		}
		if c.Zones[i].IsMandatory {
			c.Zones[i].Selected = true
		}
	}
	if s.ConfigurationType == (ConfigurationType{}) {
		s.ConfigurationType = ConfigurationType{Coverage: "zone", Delivery: "custom"}
	}
	if s.Mode == "" {
		s.Mode = "FLEX"
	}
	return s
}

// Validate checks a subscription to be stored (not its user).
func (s Subscription) Validate() error {
	var p kernel.Problems
	if s.ServiceID <= 0 {
		p.Add("service_id", "service_id must be a positive integer")
	}
	p.Site("site_id", s.SiteID)
	if s.UserID <= 0 {
		p.Add("user_id", "user_id must be a positive integer")
	}
	if !slices.Contains(Modes, s.Mode) {
		p.Add("mode", "mode must be one of %s, got %q", strings.Join(Modes, ", "), s.Mode)
	}
	if !slices.Contains(Statuses, s.Status.ID) {
		p.Add("status", "status must be one of %s, got %q", strings.Join(Statuses, ", "), s.Status.ID)
	}
	c := s.Configuration
	if r := c.Availables.CapacityRange; r.From < 0 || r.To < r.From {
		p.Add("availables.capacity_range", "availables.capacity_range must have 0 <= from <= to")
	}
	days := []struct {
		name string
		list []DeliveryRange
	}{{"week", c.DeliveryRanges.Week}, {"saturday", c.DeliveryRanges.Saturday}, {"sunday", c.DeliveryRanges.Sunday}}
	for _, d := range days {
		name := d.name
		for i, r := range d.list {
			field := fmt.Sprintf("delivery_ranges.%s[%d]", name, i)
			if r.From < 0 || r.To > 24 || r.From >= r.To {
				p.Add(field, "%s must have 0 <= from < to <= 24", field)
			}
			if r.Capacity < 0 {
				p.Add(field+".capacity", "%s.capacity must not be negative", field)
			}
		}
	}
	seen := map[string]bool{}
	for i, z := range c.Zones {
		if z.ID == "" || seen[z.ID] {
			p.Add(fmt.Sprintf("zones[%d].id", i), "zones[%d].id must be a distinct non-empty id", i)
		}
		seen[z.ID] = true
	}
	return p.Err(ErrInvalidSubscription)
}

// Validate checks a shipment to be stored (not its order).
func (s Shipment) Validate() error {
	var p kernel.Problems
	if s.ID <= 0 {
		p.Add("shipment_id", "shipment_id must be a positive integer")
	}
	p.Site("site_id", s.SiteID)
	if s.OrderID <= 0 {
		p.Add("order_id", "order_id must be a positive integer")
	}
	if s.DriverID != nil && *s.DriverID <= 0 {
		p.Add("driver_id", "driver_id must be a positive integer or null")
	}
	return p.Err(ErrInvalidShipment)
}
