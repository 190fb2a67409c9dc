package contactsapi

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/contactsport"
)

// eventJSON is a contact event as the sandbox shows it; Duplicate tells
// whether a PUT found it counted already.
type eventJSON struct {
	ID        string `json:"id"`
	ItemID    string `json:"item_id"`
	Type      string `json:"type"`
	Date      string `json:"date"`
	Duplicate *bool  `json:"duplicate,omitempty"`
}

func eventOut(e contacts.Event) eventJSON {
	return eventJSON{ID: e.ID, ItemID: e.ItemID, Type: string(e.Kind), Date: contacts.FormatDate(e.Date)}
}

var errBody = kernel.E(kernel.Invalid, "bad_request", "invalid body")

// Collections are the contacts module's sandbox collections: one,
// "contact_events": POST a batch, PUT one event (what fixtures use, counted
// once every entry is valid), GET one.
func Collections(svc contactsport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{{
		Name: "contact_events", Path: "contact_events",
		Batch: func(ctx context.Context, body []byte) (any, error) {
			var b struct {
				Events *[]json.RawMessage `json:"events"`
			}
			if err := httpapi.DecodeJSON(body, &b); err != nil {
				return nil, err
			}
			if b.Events == nil {
				return nil, errBody.With("events is required: an array of events").WithCause("events", "events is required")
			}
			in := make([]contacts.EventInput, len(*b.Events))
			for i, raw := range *b.Events {
				if err := decodeEvent(raw, &in[i], i); err != nil {
					return nil, err
				}
			}
			return svc.Ingest(ctx, in)
		},
		Put: func(ctx context.Context, id string, body []byte) (any, error) {
			var in contacts.EventInput
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
			return deferredEvent{svc: svc, ev: ev}, nil
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

// decodeEvent decodes one entry of a batch; a wrong type names the entry.
func decodeEvent(raw json.RawMessage, in *contacts.EventInput, i int) error {
	if err := json.Unmarshal(raw, in); err != nil {
		field := "events[" + strconv.Itoa(i) + "]"
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			field += "." + te.Field
			return errBody.Withf("%s must be a string", field).WithCause(field, field+" must be a string")
		}
		return errBody.Withf("%s must be an object with id, item_id, type and date", field).WithCause(field, "must be an object")
	}
	return nil
}

// deferredEvent counts a prepared event when the fixtures are applied.
type deferredEvent struct {
	svc contactsport.Service
	ev  contacts.Event
}

func (d deferredEvent) Apply(ctx context.Context) (any, error) {
	r, err := d.svc.Count(ctx, []contacts.Event{d.ev})
	if err != nil {
		return nil, err
	}
	out := eventOut(d.ev)
	dup := r.Duplicates > 0
	out.Duplicate = &dup
	return out, nil
}
