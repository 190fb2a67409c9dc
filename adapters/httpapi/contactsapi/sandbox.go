package contactsapi

import (
	"encoding/json"
	"strconv"

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
// "contact_events" (sandboxapi.Events).
func Collections(svc contactsport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{sandboxapi.Events[contacts.EventInput]{
		Name: "contact_events", Counter: svc, Noun: "events", Decode: decodeEvent,
		ID: func(in *contacts.EventInput) *string { return &in.ID },
		Out: func(ev contacts.Event, duplicate *bool) any {
			out := eventOut(ev)
			out.Duplicate = duplicate
			return out
		},
	}.Collection()}
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
