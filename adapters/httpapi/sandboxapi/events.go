package sandboxapi

import (
	"context"
	"encoding/json"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
)

// Counter is what an events collection calls: the use cases of a kind of
// counters (contacts', visits'), over inputs of type T.
type Counter[T any] interface {
	Ingest(ctx context.Context, events []T) (contacts.Result, error)
	Prepare(ctx context.Context, in T) (contacts.Event, error)
	Count(ctx context.Context, events []contacts.Event) (contacts.Result, error)
	StoredEvent(ctx context.Context, id string) (contacts.Event, error)
}

// Events is the sandbox collection of a kind of counters' events
// (contact_events, visit_events): POST a batch, counted all or none; PUT
// one event, which a fixtures load counts once every entry is valid; GET
// one counted event.
type Events[T any] struct {
	// Name is the collection's key in a fixtures body and its path.
	Name    string
	Counter Counter[T]
	// Noun names an event in the message of a batch without "events".
	Noun string
	// Decode decodes entry i of a batch; its error names the entry.
	Decode func(raw json.RawMessage, in *T, i int) error
	// ID is the input's id, which the path of a PUT sets.
	ID func(in *T) *string
	// Out is a counted event as the sandbox shows it; duplicate, when set,
	// tells whether a PUT found it counted already.
	Out func(ev contacts.Event, duplicate *bool) any
}

var errEventsBody = kernel.E(kernel.Invalid, "bad_request", "invalid body")

// Collection is e as a sandbox collection.
func (e Events[T]) Collection() Collection {
	return Collection{
		Name: e.Name, Path: e.Name,
		Batch: func(ctx context.Context, body []byte) (any, error) {
			var b struct {
				Events *[]json.RawMessage `json:"events"`
			}
			if err := httpapi.DecodeJSON(body, &b); err != nil {
				return nil, err
			}
			if b.Events == nil {
				return nil, errEventsBody.Withf("events is required: an array of %s", e.Noun).WithCause("events", "events is required")
			}
			in := make([]T, len(*b.Events))
			for i, raw := range *b.Events {
				if err := e.Decode(raw, &in[i], i); err != nil {
					return nil, err
				}
			}
			return e.Counter.Ingest(ctx, in)
		},
		Put: func(ctx context.Context, id string, body []byte) (any, error) {
			var in T
			if err := httpapi.DecodeJSON(body, &in); err != nil {
				return nil, err
			}
			if got := e.ID(&in); *got != "" && *got != id {
				return nil, errEventsBody.Withf("id %q in the body differs from the id %q of the path", *got, id).WithCause("id", "id differs from the path")
			}
			*e.ID(&in) = id
			ev, err := e.Counter.Prepare(ctx, in)
			if err != nil {
				return nil, err
			}
			return deferredEvent[T]{e: e, ev: ev}, nil
		},
		Get: func(ctx context.Context, id string) (any, error) {
			ev, err := e.Counter.StoredEvent(ctx, id)
			if err != nil {
				return nil, err
			}
			return e.Out(ev, nil), nil
		},
	}
}

// deferredEvent counts a prepared event when the fixtures are applied.
type deferredEvent[T any] struct {
	e  Events[T]
	ev contacts.Event
}

func (d deferredEvent[T]) Apply(ctx context.Context) (any, error) {
	r, err := d.e.Counter.Count(ctx, []contacts.Event{d.ev})
	if err != nil {
		return nil, err
	}
	dup := r.Duplicates > 0
	return d.e.Out(d.ev, &dup), nil
}
