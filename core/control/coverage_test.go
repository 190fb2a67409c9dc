package control

import (
	"reflect"
	"testing"
	"time"
)

func TestOperationsMatchLikeTheRouter(t *testing.T) {
	ops := NewOperations([]Operation{
		{Method: "GET", Path: "/orders/{order_id}", Area: "orders"},
		{Method: "GET", Path: "/orders/search", Area: "orders"},
		{Method: "GET", Path: "/items/{item_id}", Area: "items"},
		{Method: "POST", Path: "/items/{item_id}/compatibilities", Area: "compatibilities"},
		{Method: "GET", Path: "/users/{user_id}/items/search", Area: "items"},
	})
	for _, tc := range []struct {
		method, path, want string
	}{
		{"GET", "/orders/search", "GET /orders/search"},
		{"GET", "/orders/123", "GET /orders/{order_id}"},
		{"HEAD", "/items/MLA1", "GET /items/{item_id}"},
		{"GET", "/items/MLA1/", "GET /items/{item_id}"},
		{"GET", "/ORDERS/SEARCH", "GET /orders/search"},
		{"POST", "/items/MLA1/compatibilities", "POST /items/{item_id}/compatibilities"},
		{"GET", "/users/7/items/search", "GET /users/{user_id}/items/search"},
		{"GET", "/items/MLA1/compatibilities", ""},
		{"DELETE", "/items/MLA1", ""},
		{"GET", "/items", ""},
		{"GET", "/items//", ""},
	} {
		got, ok := ops.Match(tc.method, tc.path)
		if (tc.want == "") == ok || (ok && got.Key() != tc.want) {
			t.Errorf("%s %s: %q %v, want %q", tc.method, tc.path, got.Key(), ok, tc.want)
		}
	}
	if got := ops.List(); len(got) != 5 || got[1].Path != "/orders/search" {
		t.Errorf("List keeps the contract's order: %v", got)
	}
}

func TestTallyFieldsReadBack(t *testing.T) {
	for _, tc := range []struct {
		t     Tally
		field string
	}{
		{Tally{Op: "GET /items/{item_id}", Status: 200}, "GET /items/{item_id}|200|"},
		{Tally{Op: "GET /items/{item_id}", Status: 503, Faulted: true}, "GET /items/{item_id}|503|f"},
		{Tally{Op: "POST /a|b", Status: 429, RateLimited: true}, "POST /a|b|429|l"},
	} {
		if got := tc.t.Field(); got != tc.field {
			t.Errorf("Field %q, want %q", got, tc.field)
		}
		if back, ok := ParseTally(tc.field); !ok || back != tc.t {
			t.Errorf("ParseTally(%q) = %+v %v", tc.field, back, ok)
		}
	}
	for _, bad := range []string{"", "x", "GET /a|x|", "GET /a|200|z"} {
		if _, ok := ParseTally(bad); ok {
			t.Errorf("ParseTally(%q) accepted", bad)
		}
	}
}

func TestBuildCoverage(t *testing.T) {
	ops := []Operation{
		{Method: "GET", Path: "/items/{item_id}", Area: "items"},
		{Method: "POST", Path: "/answers", Area: "questions"},
		{Method: "GET", Path: "/orders/{order_id}", Area: "orders"},
	}
	since := time.Date(2026, 11, 20, 12, 0, 0, 0, time.FixedZone("x", 3600))
	cov := BuildCoverage(ops, map[string]int64{
		"GET /items/{item_id}|200|":    10,
		"GET /items/{item_id}|404|":    1,
		"GET /items/{item_id}|503|f":   1,
		"GET /orders/{order_id}|200|":  2,
		"GET /orders/{order_id}|429|l": 3,
		"GET /gone|200|":               5, // an operation the contract no longer has
		"garbage":                      1,
	}, since)
	want := Coverage{Since: since.UTC(), Operations: []OperationCoverage{
		{Operation: ops[0], Calls: 12, Statuses: map[string]int64{"200": 10, "404": 1, "503": 1}, Faulted: 1},
		{Operation: ops[1], Statuses: map[string]int64{}},
		{Operation: ops[2], Calls: 5, Statuses: map[string]int64{"200": 2, "429": 3}, RateLimited: 3},
	}, Summary: CoverageSummary{Operations: 3, Called: 2, WithErrorSeen: 2}}
	if !reflect.DeepEqual(cov, want) {
		t.Errorf("BuildCoverage\n got %+v\nwant %+v", cov, want)
	}
	uncalled, noError := BuildCoverage(ops, map[string]int64{"GET /items/{item_id}|200|": 1}, since).Gaps()
	if len(uncalled) != 2 || uncalled[0].Path != "/answers" || len(noError) != 1 || noError[0].Path != "/items/{item_id}" {
		t.Errorf("Gaps: %v / %v", uncalled, noError)
	}
}
