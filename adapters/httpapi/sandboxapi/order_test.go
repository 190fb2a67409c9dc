package sandboxapi_test

import (
	"slices"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// fixturesOrder is the order of the fixtures keys in docs/sandbox.md's
// POST /sandbox/fixtures row, which is the order they are applied in.
var fixturesOrder = []string{"users", "categories", "domains", "products", "items", "orders", "brands",
	"flex_subscriptions", "shipments", "contact_events", "visit_events", "shipping_rates", "applications"}

// The module map serves its collections in docs/sandbox.md's order: a row put
// in the wrong place (a module added after the applications) fails here.
func TestFixturesOrder(t *testing.T) {
	a := apptest.New(t, apptest.Embedded)
	var served []string
	for _, m := range a.Deps.Modules {
		for _, c := range m.Collections {
			served = append(served, c.Name)
		}
	}
	var want []string
	for _, name := range fixturesOrder {
		if slices.Contains(served, name) {
			want = append(want, name)
		}
	}
	if !slices.Equal(served, want) {
		t.Fatalf("collections served in order %v, want docs/sandbox.md's %v", served, want)
	}
	for _, name := range []string{"users", "items", "orders", "shipments", "applications"} {
		if !slices.Contains(served, name) {
			t.Errorf("collection %s is not served", name)
		}
	}
}
