package visitsapi

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/visits"
	"github.com/feria/feria/ports/visitsport"
)

// eventJSON is a visit as the sandbox shows it; Duplicate tells whether a
// PUT found it counted already.
type eventJSON struct {
	ID        string `json:"id"`
	ItemID    string `json:"item_id"`
	Date      string `json:"date"`
	Duplicate *bool  `json:"duplicate,omitempty"`
}

func eventOut(e contacts.Event) eventJSON {
	return eventJSON{ID: e.ID, ItemID: e.ItemID, Date: contacts.FormatDate(e.Date)}
}

var errBody = kernel.E(kernel.Invalid, "bad_request", "invalid body")

// Collections are the visits module's sandbox collection, "visit_events":
// POST a batch, PUT one visit (what fixtures use, counted once every entry
// is valid), GET one.
func Collections(svc visitsport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{{
		Name: "visit_events", Path: "visit_events",
		Batch: func(ctx context.Context, body []byte) (any, error) {
			var b struct {
				Events *[]json.RawMessage `json:"events"`
			}
			if err := httpapi.DecodeJSON(body, &b); err != nil {
				return nil, err
			}
			if b.Events == nil {
				return nil, errBody.With("events is required: an array of visits").WithCause("events", "events is required")
			}
			in := make([]visits.EventInput, len(*b.Events))
			for i, raw := range *b.Events {
				if err := json.Unmarshal(raw, &in[i]); err != nil {
					field := "events[" + strconv.Itoa(i) + "]"
					return nil, errBody.Withf("%s must be an object with string id, item_id and date", field).WithCause(field, "must be an object of strings")
				}
			}
			return svc.Ingest(ctx, in)
		},
		Put: func(ctx context.Context, id string, body []byte) (any, error) {
			var in visits.EventInput
			if err := httpapi.DecodeJSON(body, &in); err != nil {
				return nil, err
			}
			if in.ID != "" && in.ID != id {
				return nil, errBody.Withf("id %q in the body differs from the id %q of the path", in.ID, id).WithCause("id", "id differs from the path")
			}
			in.ID = id
			ev, err := svc.Prepare(ctx, in)
			if err != nil {
				return nil, err
			}
			return deferred{svc: svc, ev: ev}, nil
		},
		Get: func(ctx context.Context, id string) (any, error) {
			ev, err := svc.StoredEvent(ctx, id)
			if err != nil {
				return nil, err
			}
			return eventOut(ev), nil
		},
	}}
}

// deferred counts a prepared visit when the fixtures are applied.
type deferred struct {
	svc visitsport.Service
	ev  contacts.Event
}

func (d deferred) Apply(ctx context.Context) (any, error) {
	r, err := d.svc.Count(ctx, []contacts.Event{d.ev})
	if err != nil {
		return nil, err
	}
	out := eventOut(d.ev)
	dup := r.Duplicates > 0
	out.Duplicate = &dup
	return out, nil
}
