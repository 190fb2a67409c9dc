package contactsapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/feria/feria/core/contacts"
)

// The window results' own encoding answers what encoding/json would,
// byte for byte, for the dates the service formats and any total.
func TestResultsEncodeAsJSON(t *testing.T) {
	at := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	for _, rs := range []results{nil, {}, {{Date: contacts.FormatDate(at), Total: 0}},
		{{Date: contacts.FormatDate(at), Total: 7}, {Date: contacts.FormatDate(at.Add(time.Hour)), Total: -1}, {Date: contacts.FormatDate(at.In(time.FixedZone("", -3*3600))), Total: 1 << 40}}} {
		got, err := json.Marshal(rs)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal([]resultJSON(rs))
		if rs == nil {
			want = []byte("[]") // windows always answer a list
		}
		if string(got) != string(want) {
			t.Errorf("results %v encode as %s, want %s", rs, got, want)
		}
	}
}
