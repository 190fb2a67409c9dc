package controlredis

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/feria/feria/core/control"
)

// An entry reads back as it was stored, whatever its bodies hold (new
// lines, quotes, digits where the lengths are, bytes that are not UTF-8),
// and so does one stored as JSON alone, as entries were before their
// bodies were kept apart.
func TestEntryReadsBack(t *testing.T) {
	user := int64(123)
	entry := func(req, res string) control.Entry {
		return control.Entry{ID: "e1", At: time.Date(2026, 11, 29, 3, 4, 5, 6, time.UTC), Method: "POST", Path: "/items",
			Status: 201, DurationMS: 1.5, UserID: &user, Detail: &control.Detail{
				Request:  control.Message{Headers: []control.Header{{Name: "Content-Type", Value: "application/json"}}, Body: req, Size: len(req)},
				Response: control.Message{Headers: []control.Header{{Name: "X-Request-Id", Value: "r"}}, Body: res, Size: len(res), Truncated: true}}}
	}
	cases := []control.Entry{
		entry(`{"title":"a\nb"}`, "12 34\n{\"id\":\"MLA1\"}\n"),
		entry("", ""),
		entry("bad \xff utf-8", `"quoted"`),
		{ID: "e2", At: time.Date(2026, 11, 29, 3, 4, 5, 0, time.UTC), Method: "GET", Path: "/health/live", Status: 200},
	}
	for _, want := range cases {
		stored := appendEntry(nil, want)
		got, err := decodeEntry(string(stored))
		if err != nil {
			t.Fatalf("decodeEntry(%q): %v", stored, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("read back (-stored +read):\n%s", diff)
		}
		if want.Detail != nil && strings.Contains(string(stored), `\"title\"`) {
			t.Errorf("the bodies were escaped: %q", stored)
		}
	}
	old := entry(`{"a":1}`, `{"b":2}`)
	raw, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeEntry(string(raw))
	if err != nil || !cmp.Equal(old, got) {
		t.Errorf("an entry stored as JSON alone read back as %+v, %v", got, err)
	}
	for _, bad := range []string{"5 5\n{}", "x 1\n{}", "-1 0\n{}", "0 0\nnot json", "1 0\n{}x"} {
		if _, err := decodeEntry(bad); err == nil {
			t.Errorf("decodeEntry(%q) read a broken entry", bad)
		}
	}
}
