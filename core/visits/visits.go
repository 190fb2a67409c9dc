// Package visits is the item visits of listings and their sellers: visits
// are counted on the contact statistics' counters (core/contacts: the same
// buckets, exact edges and idempotent events) under their own kind, and
// read with the marketplace's visits limits and shapes.
package visits

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
)

// Limits of a request, as the marketplace bounds its visits.
const (
	// MaxDays bounds a total's range and a window's span, in days.
	MaxDays = 150
	// MaxRange is MaxDays as a duration.
	MaxRange = MaxDays * 24 * time.Hour
	// MaxLastDays and MaxLastHours bound `last`: MaxDays of either unit.
	MaxLastDays  = MaxDays
	MaxLastHours = MaxDays * 24
	// MaxIDs bounds the ids of GET /items/visits.
	MaxIDs = contacts.MaxIDs
	// MaxBatch bounds the events of one ingestion call.
	MaxBatch = contacts.MaxBatch
)

// Company is the one company visits are detailed by: feria models the
// marketplace's own listings pages only.
const Company = "mercadolibre"

// Kind is the counters' kind of a visit.
const Kind = contacts.Visit

// ErrForbidden is a caller reading another user's visits.
var ErrForbidden = kernel.E(kernel.Permission, "forbidden", "forbidden")

// ParseRange reads date_from and date_to: both required (a date or a
// date-time), from not after to, at most MaxDays apart.
func ParseRange(from, to string) (contacts.Range, error) {
	f, err := contacts.ParseDate("date_from", from)
	if err != nil {
		return contacts.Range{}, err
	}
	t, err := contacts.ParseDate("date_to", to)
	if err != nil {
		return contacts.Range{}, err
	}
	if f.After(t) {
		return contacts.Range{}, contacts.ErrBadRequest.Withf("date_from %s is after date_to %s", contacts.FormatDate(f), contacts.FormatDate(t))
	}
	if t.Sub(f) > MaxRange {
		return contacts.Range{}, contacts.ErrBadRequest.Withf("date_from and date_to are more than %d days apart", MaxDays)
	}
	return contacts.Range{From: f, To: t}, nil
}

// ParseWindow reads last, unit and ending (a date or a date-time; now when
// absent): the window's last interval is the one containing ending.
func ParseWindow(last, unit, ending string, now time.Time) (contacts.WindowSpec, error) {
	var w contacts.WindowSpec
	max := MaxLastDays
	switch unit {
	case string(contacts.Day):
		w.Unit = contacts.Day
	case string(contacts.Hour):
		w.Unit, max = contacts.Hour, MaxLastHours
	case "":
		return w, contacts.ErrBadRequest.With("unit is required: day or hour")
	default:
		return w, contacts.ErrBadRequest.Withf("unit must be day or hour, got %q", unit)
	}
	if strings.TrimSpace(last) == "" {
		return w, contacts.ErrBadRequest.With("last is required: a positive integer")
	}
	n, err := strconv.Atoi(last)
	if err != nil || n <= 0 {
		return w, contacts.ErrBadRequest.Withf("last must be a positive integer, got %q", last)
	}
	if n > max {
		return w, contacts.ErrBadRequest.Withf("last must be at most %d when unit is %s (%d days), got %d", max, w.Unit, MaxDays, n)
	}
	w.Last, w.Ending = n, now.UTC()
	if ending != "" {
		if w.Ending, err = contacts.ParseDate("ending", ending); err != nil {
			return w, err
		}
	}
	return w, nil
}

// EventInput is a visit as a client sends it, before validation.
type EventInput struct {
	ID     string `json:"id"`
	ItemID string `json:"item_id"`
	Date   string `json:"date"`
}

// Check validates a visit; field prefixes the causes' field names (e.g.
// "events[2].") so that a batch error names the entry.
func (in EventInput) Check(field string) (contacts.Event, error) {
	bad := func(name, msg string) error {
		return contacts.ErrBadRequest.With(field+name+": "+msg).WithCause(field+name, msg)
	}
	if strings.TrimSpace(in.ID) == "" {
		return contacts.Event{}, bad("id", "id is required: a non-empty string")
	}
	if len(in.ID) > contacts.MaxEventIDLength {
		return contacts.Event{}, bad("id", fmt.Sprintf("id must be at most %d bytes", contacts.MaxEventIDLength))
	}
	if in.ItemID == "" {
		return contacts.Event{}, bad("item_id", "item_id is required")
	}
	if kernel.SiteOf(in.ItemID) == "" {
		return contacts.Event{}, bad("item_id", `item_id "`+in.ItemID+`" cannot be decoded: a site id followed by digits, e.g. MLA1100`)
	}
	d, err := contacts.ParseDate("date", in.Date)
	if err != nil {
		return contacts.Event{}, bad("date", kernel.MessageOf(err))
	}
	return contacts.Event{ID: in.ID, ItemID: in.ItemID, Kind: Kind, Date: d}, nil
}
