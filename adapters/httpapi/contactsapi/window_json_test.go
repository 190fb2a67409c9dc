package contactsapi

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/feria/feria/core/contacts"
)

// windowJSON is a time-window answer as the contract shows it: the document
// appendWindow is held to, byte for byte, through encoding/json.
type windowJSON struct {
	ItemID   string       `json:"item_id,omitempty"`
	UserID   string       `json:"user_id,omitempty"`
	Total    int64        `json:"total"`
	DateFrom string       `json:"date_from"`
	DateTo   string       `json:"date_to"`
	Last     any          `json:"last"`
	Unit     string       `json:"unit"`
	Results  []resultJSON `json:"results"`
}

type resultJSON struct {
	Date  string `json:"date"`
	Total int64  `json:"total"`
}

func reference(w contacts.Window) windowJSON {
	out := windowJSON{ItemID: w.Subject.Item, Total: w.Total, DateFrom: contacts.FormatDate(w.From),
		DateTo: contacts.FormatDate(w.To), Last: w.Last, Unit: string(w.Unit), Results: []resultJSON{}}
	if w.Subject.Item == "" {
		out.UserID = strconv.FormatInt(w.Subject.User, 10)
	}
	if w.Kind == contacts.MsgApp {
		out.Last = strconv.Itoa(w.Last)
	}
	for _, r := range w.Results() {
		out.Results = append(out.Results, resultJSON{Date: contacts.FormatDate(r.Start), Total: r.Total})
	}
	return out
}

func window(s contacts.Subject, k contacts.Kind, u contacts.Unit, ending time.Time, n int, desc bool) contacts.Window {
	counts := make([]int64, n)
	for i := range counts {
		counts[i] = int64(i*i*7919) % 100003
	}
	return contacts.NewWindow(s, k, contacts.WindowSpec{Unit: u, Last: n, Ending: ending, Desc: desc}, counts)
}

// TestWindowJSONIsEncodingJSON holds the hand-written answers to what
// encoding/json writes for windowJSON: one window and arrays of them, of
// items and sellers, every kind, both units and orders, empty results,
// windows of one request with other intervals than the first's (their
// dates are not shared), and ids that need escaping.
func TestWindowJSONIsEncodingJSON(t *testing.T) {
	end := time.Date(2026, 11, 20, 12, 30, 0, 0, time.FixedZone("ART", -3*3600))
	item, user := contacts.ItemSubject("MLA1100"), contacts.UserSubject(987654321)
	var ws []contacts.Window
	for _, k := range contacts.Kinds {
		for _, u := range []contacts.Unit{contacts.Day, contacts.Hour} {
			for _, desc := range []bool{false, true} {
				ws = append(ws, window(item, k, u, end, 30, desc), window(user, k, u, end, 3, desc))
			}
		}
	}
	ws = append(ws, window(item, contacts.Question, contacts.Day, end, 0, false),
		window(contacts.ItemSubject(`MLA1"<&>\é`+"\x01"), contacts.PhoneView, contacts.Day, end.Add(-48*time.Hour), 2, false))

	var pre resultPrefixes
	for i, w := range ws {
		want, err := json.Marshal(reference(w))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendWindow(nil, &w, &pre); string(got) != string(want) {
			t.Fatalf("window %d:\n got %s\nwant %s", i, got, want)
		}
	}
	// One array, prefixes carried from window to window as sendWindows
	// does.
	refs := make([]windowJSON, len(ws))
	for i, w := range ws {
		refs[i] = reference(w)
	}
	want, _ := json.Marshal(refs)
	got := []byte{'['}
	pre = resultPrefixes{}
	for i := range ws {
		if i > 0 {
			got = append(got, ',')
		}
		got = appendWindow(got, &ws[i], &pre)
	}
	if got = append(got, ']'); string(got) != string(want) {
		t.Fatalf("array:\n got %s\nwant %s", got, want)
	}
}
