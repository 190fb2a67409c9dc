package contactsapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// BenchmarkHTTP drives the two hot reads through the fiber app on the real
// backends (PostgreSQL, Redis): a 30-day daily window of 50 items, and a
// one-year total of one item with partial days at both ends. Profile it with
// -cpuprofile; the subjects are marked known by the first request.
func BenchmarkHTTP(b *testing.B) {
	a := apptest.New(b, apptest.Real)
	var items []map[string]any
	var ids []string
	for i := 0; i < 50; i++ {
		id := fmt.Sprint("MLA", 1000+i)
		ids = append(ids, id)
		items = append(items, map[string]any{"id": id, "site_id": "MLA", "seller_id": 7, "title": "Item " + id, "category_id": "MLA1000",
			"status": "active", "price": 100, "currency_id": "ARS", "available_quantity": 1})
	}
	a.MustLoad(map[string]any{
		"users":      []map[string]any{{"id": 7, "nickname": "SELLER7", "site_id": "MLA"}},
		"categories": []map[string]any{{"id": "MLA1000", "site_id": "MLA", "name": "Otros", "domain_id": "MLA-OTHERS", "compatibilities": nil}},
		"items":      items,
	})
	var events []map[string]string
	for i := 0; i < 1000; i++ {
		events = append(events, map[string]string{"id": fmt.Sprint("e", i), "item_id": ids[i%50], "type": "phone_view",
			"date": fmt.Sprintf("2026-11-%02dT10:00:00Z", 1+i%20)})
	}
	a.Sandbox("POST", "/contact_events", map[string]any{"events": events}).HasStatus(b, 200)
	for _, c := range []struct{ name, path string }{
		{"window_50ids_30days", "/items/contacts/phone_views/time_window?unit=day&last=30&ending=2026-11-20T12:00:00Z&ids=" + strings.Join(ids, ",")},
		{"total_1year", "/items/MLA1000/contacts/phone_views?date_from=2025-11-20T12:30:00Z&date_to=2026-11-20T12:30:00Z"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				a.Do("GET", c.path, nil).HasStatus(b, 200)
			}
		})
	}
}
