package webhooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Change is what a write path tells the notifications, inside its
// transaction: the resource (its public path) changed for UserID, and
// State is what the resource's public GET shows now. For topics that only
// notify creations (Topic.CreatesOnly) State is not read.
type Change struct {
	Topic    string
	Resource string
	UserID   int64
	State    any
}

// Fingerprint is what a change's state is compared by: a hash of its JSON,
// as a client reading the resource sees it.
func Fingerprint(state any) (string, error) {
	b, err := json.Marshal(state)
	if err != nil {
		return "", fmt.Errorf("webhooks: state of a change: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Notifies decides whether a change notifies, given what the store saw when
// it recorded the state: created (no state before) or changed (another
// state before). A resource that did not exist counts as the topic's
// Initial state when it has one (a shipment without a driver was never
// assigned one), else any first state is a creation.
func (t Topic) Notifies(created, changed bool, fingerprint string) (bool, error) {
	if t.CreatesOnly || changed {
		return true, nil
	}
	if !created {
		return false, nil
	}
	if !t.HasInitial {
		return true, nil
	}
	initial, err := Fingerprint(t.Initial)
	return err == nil && fingerprint != initial, err
}

// States of a notification (GET /sandbox/notifications).
const (
	Pending   = "pending"   // no attempt yet
	Retrying  = "retrying"  // an attempt failed and another is scheduled
	Delivered = "delivered" // an attempt was answered 200 in time
	Missed    = "missed"    // the last attempt failed: a missed feed
)

// Notification is one notification to one application.
type Notification struct {
	ID       string
	AppID    int64
	Topic    string
	Resource string
	UserID   int64
	// Received is when the change happened, by the service clock.
	Received time.Time
	State    string
	// Attempts counts the attempts started, the one running included.
	Attempts int
	// Sent is when the last attempt left, by the service clock.
	Sent *time.Time
	// Due is when the next attempt may start, by the wall clock (delays
	// are real time even while the sandbox clock is frozen).
	Due        *time.Time
	Deliveries []Delivery
	// MissedAt is when the last attempt ended, by the service clock; the
	// missed feed is kept KeepMissed after it.
	MissedAt *time.Time
	// Request and Response are the last attempt's, for the missed feed.
	Request  *Request
	Response *Response
}

// Delivery is one attempt as GET /sandbox/notifications shows it.
type Delivery struct {
	Attempt    int       `json:"attempt"`
	At         Stamp     `json:"at"`
	HTTPCode   *int      `json:"http_code"`
	DurationMS int64     `json:"duration_ms"`
	Error      *string   `json:"error"`
	Done       bool      `json:"-"` // false while the attempt runs (or its worker died)
	Wall       time.Time `json:"-"` // when it started, by the wall clock
}

// Request is what an attempt posted.
type Request struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Data    string            `json:"data"`
}

// Response is what an attempt got back; HTTPCode nil when nothing
// answered.
type Response struct {
	ReqTime  int64             `json:"req_time"`
	HTTPCode *int              `json:"http_code"`
	Body     string            `json:"body"`
	Headers  map[string]string `json:"headers"`
}

// Body is what is posted to the callback: docs/sandbox.md's fields in its
// order, with "actions" for the topics that have them.
type Body struct {
	ID            string   `json:"_id"`
	Resource      string   `json:"resource"`
	UserID        int64    `json:"user_id"`
	Topic         string   `json:"topic"`
	Actions       []string `json:"actions,omitempty"`
	ApplicationID int64    `json:"application_id"`
	Attempts      int      `json:"attempts"`
	Sent          *Stamp   `json:"sent"`
	Received      Stamp    `json:"received"`
}

// Body is the notification's body as its current attempt (Attempts) posts
// it; before any attempt, attempts 0 and sent null.
func (n Notification) Body() Body {
	b := Body{ID: n.ID, Resource: n.Resource, UserID: n.UserID, Topic: n.Topic, ApplicationID: n.AppID,
		Attempts: n.Attempts, Received: Stamp(n.Received)}
	if t, ok := LookupTopic(n.Topic); ok {
		b.Actions = t.Actions
	}
	if n.Sent != nil {
		s := Stamp(*n.Sent)
		b.Sent = &s
	}
	return b
}

// Stamp is an instant as the notifications write it: UTC with
// milliseconds, "2026-11-20T12:00:00.123Z".
type Stamp time.Time

// StampLayout is the layout of a Stamp.
const StampLayout = "2006-01-02T15:04:05.000Z"

func (s Stamp) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Time(s).UTC().Format(StampLayout))
}

func (s *Stamp) UnmarshalJSON(b []byte) error {
	var raw string
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, raw)
	*s = Stamp(t)
	return err
}

// Count is what the metrics show of a topic: notifications created,
// delivered and missed, and retries (attempts after the first).
type Count struct {
	Topic                               string
	Created, Delivered, Missed, Retried int
}
