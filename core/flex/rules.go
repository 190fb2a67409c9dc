package flex

import (
	"fmt"
	"slices"
	"strings"

	"github.com/feria/feria/core/kernel"
)

// Errors of the public API of local delivery (area E).
var (
	// ErrSubscriptionOut refuses a settings change of an `out` subscription:
	// the contract's states say its settings are not changeable, and the request
	// is well-formed but clashes with the subscription's state.
	ErrSubscriptionOut = kernel.E(kernel.Conflict, "conflict", "subscription is out: its settings cannot be changed")
	// ErrInvalidChange is a configuration change outside what the
	// configuration offers; each broken rule is a cause naming its field.
	ErrInvalidChange = kernel.E(kernel.Invalid, "bad_request", "invalid configuration change")
	// ErrTurboWithoutFlex refuses a TURBO subscription of a user without a
	// FLEX one on the same site.
	ErrTurboWithoutFlex = kernel.E(kernel.Invalid, "bad_request", "a TURBO subscription requires a FLEX subscription")
	// ErrItemDown is the contract's 403 "item down": the item does not offer the
	// local delivery option.
	ErrItemDown = kernel.E(kernel.Permission, "forbidden", "item down")
	// ErrAlreadyInFlex is the contract's 400 for enabling an enabled item.
	ErrAlreadyInFlex = kernel.E(kernel.Invalid, "bad_request", "item is already in flex")
	// ErrNotInFlex is the 400 for disabling an item that is not enabled.
	ErrNotInFlex = kernel.E(kernel.Invalid, "bad_request", "item is not in flex")
	// ErrOptionOff is the 404 of the option read of an item that offers the
	// option but does not have it enabled: the read answers 204 only when
	// enabled.
	ErrOptionOff = kernel.E(kernel.NotExist, "not_found", "item is not in flex")

	ErrEmptySite      = kernel.E(kernel.Invalid, "bad_request", "empty site id")
	ErrInvalidSite    = kernel.E(kernel.Invalid, "bad_request", "invalid site_id")
	ErrInvalidUserID  = kernel.E(kernel.Invalid, "bad_request", "invalid user_id")
	ErrInvalidService = kernel.E(kernel.Invalid, "bad_request", "invalid service_id")
	ErrNoAccess       = kernel.E(kernel.Invalid, "bad_request", "can't access to resource")
	ErrUserNotFound   = kernel.E(kernel.NotExist, "not_found", "user not found")
	ErrNoSubscription = kernel.E(kernel.NotExist, "not_found", "no subscription for the user_id and service_id pair")
	ErrCantUpdate     = kernel.E(kernel.NotExist, "not_found", "can't update delivery custom")
	ErrItemNotFound   = kernel.E(kernel.NotExist, "not_found", "item not found")
	ErrNotItemSeller  = kernel.E(kernel.Permission, "forbidden", "only the item's seller may use its local delivery option")
	ErrNoAssignment   = kernel.E(kernel.NotExist, "not_found", "shipment_id not found")
	ErrNotOrderSeller = kernel.E(kernel.Permission, "forbidden", "only the seller of the shipment's order may read its assignment")
)

// CheckSite checks the site id of a local delivery path: 400 "empty site id"
// or "invalid site_id" (a site outside the fixed list).
func CheckSite(site string) error {
	if site == "" {
		return ErrEmptySite
	}
	if _, ok := kernel.LookupSite(site); !ok {
		return ErrInvalidSite.Withf("invalid site_id: %q is not a site", site).WithCause("site_id", "site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC")
	}
	return nil
}

// SellerFlexIn reports whether subs (a seller's subscriptions) hold a FLEX
// subscription `in` on site.
func SellerFlexIn(subs []Subscription, site string) bool {
	return slices.ContainsFunc(subs, func(s Subscription) bool {
		return s.SiteID == site && s.Mode == ModeFlex && s.Status.ID == StatusIn
	})
}

// Modes of a subscription.
const (
	ModeFlex  = "FLEX"
	ModeTurbo = "TURBO"
)

// Subscription statuses (area E, "States and transitions").
const (
	StatusIn      = "in"      // active: settings changeable, delivery orders received
	StatusOut     = "out"     // inactive: settings not changeable
	StatusPending = "pending" // awaiting activation: settings changeable, no orders
)

// DeliveryWindows are the delivery windows a change may ask for: same_day is
// the only one the contract shows, and the only one the service offers.
var DeliveryWindows = []string{"same_day"}

// CheckChangeable refuses any settings change of an `out` subscription.
func CheckChangeable(s Subscription) error {
	if s.Status.ID == StatusOut {
		return ErrSubscriptionOut.Withf("subscription %d is out: its settings cannot be changed", s.ServiceID)
	}
	return nil
}

// CheckTurbo checks that after storing s every user and site that has a TURBO
// subscription also has a FLEX one (area E: TURBO requires FLEX first).
// current are the stored subscriptions of s's user and of the user s belonged
// to before, s's own stored version included.
func CheckTurbo(current []Subscription, s Subscription) error {
	type key struct {
		user int64
		site string
	}
	after := map[key][]string{}
	for _, c := range current {
		if c.ServiceID != s.ServiceID {
			k := key{c.UserID, c.SiteID}
			after[k] = append(after[k], c.Mode)
		}
	}
	own := key{s.UserID, s.SiteID}
	after[own] = append(after[own], s.Mode)
	if s.Mode == ModeTurbo && !slices.Contains(after[own], ModeFlex) {
		msg := fmt.Sprintf("a TURBO subscription requires a FLEX subscription of user %d on site %s", s.UserID, s.SiteID)
		return ErrTurboWithoutFlex.With(msg).WithCause("mode", msg)
	}
	// A FLEX subscription that moves to another user or site may leave a
	// TURBO one behind.
	for _, c := range current {
		old := key{c.UserID, c.SiteID}
		if c.ServiceID == s.ServiceID && old != own && slices.Contains(after[old], ModeTurbo) && !slices.Contains(after[old], ModeFlex) {
			msg := fmt.Sprintf("user %d keeps a TURBO subscription on site %s, which requires the FLEX subscription %d", c.UserID, c.SiteID, s.ServiceID)
			return ErrTurboWithoutFlex.With(msg).WithCause("mode", msg)
		}
	}
	return nil
}

// RangeChange is one delivery window as a change asks for it; nil: missing.
type RangeChange struct {
	From     *int `json:"from"`
	To       *int `json:"to"`
	Capacity *int `json:"capacity"`
	Cutoff   *int `json:"cutoff"`
}

// DeliveryChange is the body of the delivery configuration change: the
// delivery ranges replace the stored ones; a missing delivery window keeps
// the stored one.
type DeliveryChange struct {
	DeliveryWindow *string       `json:"delivery_window"`
	DeliveryRanges *RangesChange `json:"delivery_ranges"`
}

// RangesChange are the delivery ranges of the week, Saturday and Sunday a
// change asks for.
type RangesChange struct {
	Week     []RangeChange `json:"week"`
	Saturday []RangeChange `json:"saturday"`
	Sunday   []RangeChange `json:"sunday"`
}

// ApplyDelivery validates a delivery change against what the configuration
// makes available and returns the configuration with it applied. Every
// broken rule is a cause naming its field:
//   - delivery_window among DeliveryWindows;
//   - week has at least one range; saturday and sunday may be null or empty
//     (no delivery that day);
//   - each range has from, to, capacity and cutoff; 0 <= from < to <= 24;
//     its length (to - from) among availables.ranges; capacity within
//     availables.capacity_range; cutoff among availables.cutoff and not
//     after from; ranges of one day do not overlap.
//
// The stored range takes calculated_cutoff = cutoff, et_hour = to,
// processing_time = from - cutoff and type cpt; working_days become week
// plus the weekend days that have ranges.
func ApplyDelivery(c Configuration, ch DeliveryChange) (Configuration, error) {
	var p kernel.Problems
	if ch.DeliveryWindow != nil && !slices.Contains(DeliveryWindows, *ch.DeliveryWindow) {
		p.Add("delivery_window", "delivery_window must be one of %s, got %q", strings.Join(DeliveryWindows, ", "), *ch.DeliveryWindow)
	}
	if ch.DeliveryRanges == nil {
		p.Add("delivery_ranges", "delivery_ranges is required")
		return c, p.Err(ErrInvalidChange)
	}
	a := c.Availables
	day := func(name string, list []RangeChange, required bool) []DeliveryRange {
		field := "delivery_ranges." + name
		if len(list) == 0 {
			if required {
				p.Add(field, "%s must have at least one range", field)
			}
			return nil
		}
		out := make([]DeliveryRange, 0, len(list))
		for i, r := range list {
			f := fmt.Sprintf("%s[%d]", field, i)
			if d, ok := checkRange(&p, f, r, a); ok {
				for j, prev := range out {
					if d.From < prev.To && prev.From < d.To {
						p.Add(f, "%s overlaps %s[%d]", f, field, j)
					}
				}
				out = append(out, d)
			}
		}
		return out
	}
	week := day("week", ch.DeliveryRanges.Week, true)
	saturday := day("saturday", ch.DeliveryRanges.Saturday, false)
	sunday := day("sunday", ch.DeliveryRanges.Sunday, false)
	if err := p.Err(ErrInvalidChange); err != nil {
		return c, err
	}
	if ch.DeliveryWindow != nil {
		c.DeliveryWindow = *ch.DeliveryWindow
	}
	c.DeliveryRanges = DeliveryRanges{Week: week, Saturday: saturday, Sunday: sunday}
	c.WorkingDays = []string{"week"}
	if saturday != nil {
		c.WorkingDays = append(c.WorkingDays, "saturday")
	}
	if sunday != nil {
		c.WorkingDays = append(c.WorkingDays, "sunday")
	}
	return c, nil
}

// checkRange checks one range of a change; ok is false when a rule broke.
func checkRange(p *kernel.Problems, f string, r RangeChange, a Availables) (DeliveryRange, bool) {
	ok := true
	add := func(field, format string, args ...any) {
		p.Add(field, format, args...)
		ok = false
	}
	for _, v := range []struct {
		name string
		val  *int
	}{{"from", r.From}, {"to", r.To}, {"capacity", r.Capacity}, {"cutoff", r.Cutoff}} {
		if v.val == nil {
			add(f+"."+v.name, "%s.%s is required", f, v.name)
		}
	}
	if !ok {
		return DeliveryRange{}, false
	}
	from, to, capacity, cutoff := *r.From, *r.To, *r.Capacity, *r.Cutoff
	switch {
	case from < 0 || from > 23:
		add(f+".from", "%s.from must be an hour from 0 to 23, got %d", f, from)
	case to <= from || to > 24:
		add(f+".to", "%s.to must be after from and at most 24, got %d", f, to)
	case !slices.Contains(a.Ranges, to-from):
		add(f, "%s lasts %d hours; the configuration offers ranges of %s hours", f, to-from, joinInts(a.Ranges))
	}
	if capacity < a.CapacityRange.From || capacity > a.CapacityRange.To {
		add(f+".capacity", "%s.capacity must be within %d..%d, got %d", f, a.CapacityRange.From, a.CapacityRange.To, capacity)
	}
	if !slices.Contains(a.Cutoff, cutoff) {
		add(f+".cutoff", "%s.cutoff must be one of %s, got %d", f, joinInts(a.Cutoff), cutoff)
	} else if cutoff > from {
		add(f+".cutoff", "%s.cutoff must not be after the range starts (%d), got %d", f, from, cutoff)
	}
	return DeliveryRange{CalculatedCutoff: cutoff, Capacity: capacity, EtHour: to, From: from,
		ProcessingTime: from - cutoff, To: to, Type: "cpt"}, ok
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// ZoneChange is the body of the coverage zone change: the zones to add to
// the selected ones.
type ZoneChange struct {
	Zones []ZoneRef `json:"zones"`
}

// ZoneRef names a zone; nil ID: missing.
type ZoneRef struct {
	ID *string `json:"id"`
}

// SelectZones validates a zone change against the subscription's zones and
// returns the configuration with the listed zones selected in addition to
// those already selected; mandatory zones are always selected. zones must be
// a non-empty list; each id must be one of the subscription's zones and
// enabled.
func SelectZones(c Configuration, ch ZoneChange) (Configuration, error) {
	var p kernel.Problems
	if len(ch.Zones) == 0 {
		p.Add("zones", "zones must list at least one zone")
	}
	ids := make([]string, 0, len(c.Zones))
	for _, z := range c.Zones {
		ids = append(ids, z.ID)
	}
	pick := map[string]bool{}
	for i, z := range ch.Zones {
		f := fmt.Sprintf("zones[%d].id", i)
		k := slices.IndexFunc(c.Zones, func(s Zone) bool { return z.ID != nil && s.ID == *z.ID })
		switch {
		case z.ID == nil:
			p.Add(f, "%s is required", f)
		case k < 0:
			p.Add(f, "%s must be one of the subscription's zones (%s), got %q", f, strings.Join(ids, ", "), *z.ID)
		case !c.Zones[k].Enabled:
			p.Add(f, "%s names zone %s, which is not enabled", f, *z.ID)
		default:
			pick[*z.ID] = true
		}
	}
	if err := p.Err(ErrInvalidChange); err != nil {
		return c, err
	}
	zones := slices.Clone(c.Zones)
	for i := range zones {
		zones[i].Selected = zones[i].Selected || zones[i].IsMandatory || pick[zones[i].ID]
	}
	c.Zones = zones
	return c, nil
}

// ItemFacts are what decides whether an item offers the local delivery
// option: its status and shipping mode, the types its category's me2
// logistics offer, and whether its seller's FLEX subscription on the item's
// site is `in`.
type ItemFacts struct {
	ItemID       string
	Status       string
	ShippingMode string
	Me2Types     []string
	SellerFlexIn bool
}

// CheckItemOffers returns ErrItemDown, with the reason, unless the item
// offers the option: active, shipping mode me2, its category's me2
// logistics include self_service, and its seller has a FLEX subscription
// `in` on the site.
func CheckItemOffers(f ItemFacts) error {
	var reason string
	switch {
	case f.Status != "active":
		reason = fmt.Sprintf("item %s is not active (status %s)", f.ItemID, f.Status)
	case f.ShippingMode != "me2":
		reason = fmt.Sprintf("item %s does not ship with mode me2 (mode %s)", f.ItemID, f.ShippingMode)
	case !slices.Contains(f.Me2Types, "self_service"):
		reason = fmt.Sprintf("the category of item %s does not offer self_service in its me2 logistics", f.ItemID)
	case !f.SellerFlexIn:
		reason = fmt.Sprintf("the seller of item %s has no FLEX subscription in on its site", f.ItemID)
	default:
		return nil
	}
	return ErrItemDown.With("item down: "+reason).WithCause("item_id", reason)
}
