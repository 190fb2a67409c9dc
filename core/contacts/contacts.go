// Package contacts is area A: contact events (questions, 'see
// phone' clicks, messaging-app clicks) of listings and their sellers, the
// rules that turn query parameters into date ranges and UTC-aligned time
// windows, and the questions buyers ask.
package contacts

import (
	"strconv"
	"strings"
	"time"

	"github.com/feria/feria/core/kernel"
)

// Limits of a request. The marketplace leaves them open; docs/decisions.md
// records them.
const (
	// MaxIDs bounds the ids of one multi-item request, as the contract
	// bounds its other multi-item call (shipping costs, 50 items).
	MaxIDs = 50
	// MaxLastHours and MaxLastDays bound `last` per unit: a month of hours
	// and a year of days, both inside the retention.
	MaxLastHours = 744
	MaxLastDays  = 366
	// MaxRange bounds date_to - date_from of a total.
	MaxRange = 366 * 24 * time.Hour
	// Retention is how long a bucket is kept after its last write; it
	// covers the longest range and window with a month to spare.
	Retention = 400 * 24 * time.Hour
	// MaxBatch bounds the events of one ingestion call, so that one Redis
	// script call stays short.
	MaxBatch = 1000
	// MaxEventIDLength bounds an idempotency key.
	MaxEventIDLength = 200
)

// ErrBadRequest is the error of every invalid parameter of this area; its
// message says what is wrong.
var ErrBadRequest = kernel.E(kernel.Invalid, "bad_request", "bad request")

// ErrNotFound is an unknown item or user.
var ErrNotFound = kernel.E(kernel.NotExist, "not_found", "not found")

// Kind is what a contact was.
type Kind string

const (
	Question  Kind = "question"
	PhoneView Kind = "phone_view"
	MsgApp    Kind = "msgapp"
	// Visit is a view of an item's page (core/visits): counted on the same
	// counters, under counters of its own, and no contact event type.
	Visit Kind = "visit"
)

// Kinds lists every kind, in a fixed order.
var Kinds = []Kind{Question, PhoneView, MsgApp}

// ParseKind reads an event type.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", ErrBadRequest.Withf("type must be question, phone_view or msgapp, got %q", s)
}

// Subject is what counts are kept for: one item, or one seller (the sum of
// every item of that seller). Exactly one of Item and User is set.
type Subject struct {
	Item string
	User int64
}

// ItemSubject and UserSubject build subjects.
func ItemSubject(id string) Subject { return Subject{Item: id} }
func UserSubject(id int64) Subject  { return Subject{User: id} }

// ParseItemID checks an item id: a known site prefix followed by digits.
func ParseItemID(raw string) (string, error) {
	if kernel.SiteOf(raw) == "" {
		return "", ErrBadRequest.Withf("item id %q cannot be decoded: it must be a site id followed by digits, e.g. MLA1100", raw)
	}
	return raw, nil
}

// ParseUserID checks a user id: a positive integer.
func ParseUserID(raw string) (int64, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, ErrBadRequest.Withf("user id %q cannot be decoded: it must be a positive integer", raw)
	}
	return id, nil
}

// ParseIDs reads the comma-separated ids of a multi-item request: each
// decodable, at most MaxIDs distinct ones, repeats answered once, in the
// order first given.
func ParseIDs(raw string) ([]string, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, ErrBadRequest.With("ids is required: a comma-separated list of item ids")
	}
	n := strings.Count(raw, ",") + 1
	ids := make([]string, 0, n)
	seen := make(map[string]struct{}, n)
	for p := range strings.SplitSeq(raw, ",") {
		id, err := ParseItemID(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		if _, dup := seen[id]; dup {
			continue
		}
		seen[id] = struct{}{}
		ids = append(ids, id)
	}
	if len(ids) > MaxIDs {
		return nil, ErrBadRequest.Withf("ids names %d items; at most %d are allowed", len(ids), MaxIDs)
	}
	return ids, nil
}
