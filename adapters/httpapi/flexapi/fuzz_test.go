package flexapi

import (
	"context"
	"testing"

	"github.com/feria/feria/core/flex"
	"github.com/feria/feria/ports/flexport"
)

// oneSubscription answers every configuration read with one subscription;
// the other methods are never called by the GraphQL executor.
type oneSubscription struct{ flexport.Service }

func (oneSubscription) Configuration(context.Context, string, int64, int64) (flex.Subscription, error) {
	return flex.Subscription{ID: 1, UserID: 2, SiteID: "MLA"}, nil
}

// FuzzGraphQL: any query text, with or without an operation name, is run
// or refused by the schema without a panic (syntax errors, unknown fields,
// deep or long queries, fragments and aliases).
func FuzzGraphQL(f *testing.F) {
	for _, s := range []string{
		`{ configuration(user_id: 2, service_id: 1) { delivery_window working_days } }`,
		`query Q { c: configuration(user_id: 2, service_id: 1) { ...F } } fragment F on Configuration { zones { id } }`,
		`{ configuration(user_id: 2, service_id: 1) { nope } }`, `{ configuration`, ``, `query { __schema { types { name } } }`,
		`{ configuration(user_id: "x", service_id: 1) { delivery_window } }`, `{ a: configuration(user_id: 9223372036854775807, service_id: -1) { is_moderated } }`,
	} {
		f.Add(s, "")
	}
	g := newGraph(oneSubscription{})
	f.Fuzz(func(t *testing.T, query, operation string) {
		_, _ = g.execute(context.Background(), "MLA", query, operation, nil)
	})
}
