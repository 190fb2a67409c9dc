package visitsapi

import (
	"encoding/json"
	"strconv"

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

// Collections are the visits module's sandbox collection, "visit_events"
// (sandboxapi.Events).
func Collections(svc visitsport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{sandboxapi.Events[visits.EventInput]{
		Name: "visit_events", Counter: svc, Noun: "visits", Decode: decodeVisit,
		ID: func(in *visits.EventInput) *string { return &in.ID },
		Out: func(ev contacts.Event, duplicate *bool) any {
			out := eventOut(ev)
			out.Duplicate = duplicate
			return out
		},
	}.Collection()}
}

// decodeVisit decodes one entry of a batch; a wrong type names the entry.
func decodeVisit(raw json.RawMessage, in *visits.EventInput, i int) error {
	if err := json.Unmarshal(raw, in); err != nil {
		field := "events[" + strconv.Itoa(i) + "]"
		return errBody.Withf("%s must be an object with string id, item_id and date", field).WithCause(field, "must be an object of strings")
	}
	return nil
}
