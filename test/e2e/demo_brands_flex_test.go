package e2e

import (
	"testing"

	"github.com/feria/feria/test/apptest"
)

// The README's lines for official stores and local delivery answer on the
// demo world as `make run` loads it.
func TestDemoWorldBrandsAndLocalDelivery(t *testing.T) {
	t.Parallel() // instances of its own, on a frozen clock
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).OK(t, 200)
		raw, _ := demo(t)
		a.Sandbox("POST", "/fixtures", raw).OK(t, 200)
		brand := apptest.Bearer("APP_USR-demo-brand")
		seller := apptest.Bearer("APP_USR-demo-seller")

		b := a.Do("GET", "/users/789/brands", nil, brand...).OK(t, 200).(map[string]any)
		if b["status"] != "LINKED" || len(b["brands"].([]any)) != 2 {
			t.Errorf("brands of 789: %v", b)
		}
		a.Do("GET", "/users/789/brands/5002", nil, brand...).Is(t, 200, `{"tags":[],"official_store_id":5002,"categories_ids":["MLA1747"],
				"fantasy_name":"Pérez","users":[{"cust_id":789,"tags":[],"site_id":"MLA","user_type":"brand"}],"site_id":"MLA","status":"active",
				"name":"Suspensión  Pérez","date_created":"2026-11-20T12:00:00Z",
				"pictures":[{"id":"p3","name":"small_logo","secure_url":null,"url":"http://example.invalid/perez.png","size":"60x60"}],
				"boost":{"is_active":false,"last_update":null},"relevance_position":2}`)

		a.Do("GET", "/shipping/flex/sites/MLA/users/123/subscriptions/v1", nil, seller...).Is(t, 200, `[
				{"id":3001,"site_id":"MLA","user_id":123,"mode":"FLEX","configuration_type":{"coverage":"zone","delivery":"custom"},"service_id":3001,"status":{"id":"in"},"creation_date":"2026-11-20T12:00:00Z"},
				{"id":3002,"site_id":"MLA","user_id":123,"mode":"TURBO","configuration_type":{"coverage":"zone","delivery":"custom"},"service_id":3002,"status":{"id":"in"},"creation_date":"2026-11-20T12:00:00Z"}]`)
		query := map[string]any{"query": "{ configuration(user_id: 123, service_id: 3001) { delivery_window availables { cutoff } zones { id label selected } } }"}
		a.Do("POST", "/shipping/flex/sites/MLA/configuration/v3", query, seller...).Is(t, 200, `{"configuration":{"delivery_window":"same_day",
				"availables":{"cutoff":[10,11,12,13,14,15]},"zones":[{"id":"Z1","label":"CABA","selected":true},{"id":"Z2","label":"GBA Norte","selected":false}]}}`)
		a.Do("PUT", "/shipping/flex/sites/MLA/users/123/services/3001/configuration/coverage/zone/v3", `{"zones":[{"id":"Z2"}]}`, seller...).OK(t, 200)
		a.Do("POST", "/shipping/flex/sites/MLA/configuration/v3", query, seller...).Is(t, 200, `{"configuration":{"delivery_window":"same_day",
				"availables":{"cutoff":[10,11,12,13,14,15]},"zones":[{"id":"Z1","label":"CABA","selected":true},{"id":"Z2","label":"GBA Norte","selected":true}]}}`)

		a.Do("POST", "/sites/MLA/shipping/selfservice/items/MLA1100", nil, seller...).HasStatus(t, 204)
		it := a.Do("GET", "/items/MLA1100", nil).OK(t, 200).(map[string]any)
		if tags := it["shipping"].(map[string]any)["tags"].([]any); len(tags) != 1 || tags[0] != "self_service_in" {
			t.Errorf("MLA1100 shipping tags: %v", tags)
		}
		a.Do("GET", "/flex/sites/MLA/shipments/40001/assignment/v1", nil, seller...).Is(t, 200, `{"driver_id":777}`)
	})
}
