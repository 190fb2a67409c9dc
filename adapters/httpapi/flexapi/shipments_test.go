package flexapi_test

import (
	"testing"

	"github.com/feria/feria/test/apptest"
)

// An integration reads what a shipment carries, as it reads the shipment:
// its order's seller and buyer only, errors in shape (a).
func TestShipmentItems(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := newFlexApp(t, be)
		buyer := apptest.Bearer("APP_USR-buyer")
		a.Sandbox("PUT", "/users/456", map[string]any{"id": 456, "nickname": "BUYER", "site_id": "MLA", "access_token": "APP_USR-buyer"}).OK(t, 200)
		a.Sandbox("PUT", "/orders/2000001", map[string]any{"site_id": "MLA", "seller_id": 123, "buyer_id": 456, "pack_id": nil, "status": "paid",
			"items":    []any{map[string]any{"item_id": "MLA1100", "quantity": 2, "unit_price": 15000}, map[string]any{"item_id": "MLA2100", "quantity": 1, "unit_price": 100}},
			"shipping": map[string]any{"id": 40001}, "has_claim": false}).OK(t, 200)
		want := `[{"item_id":"MLA1100","description":"Amortiguador MLA1100","quantity":2,"dimensions":null,"sender_id":123,"order_id":2000001,"variation_id":null},
				{"item_id":"MLA2100","description":"Auriculares MLA2100","quantity":1,"dimensions":null,"sender_id":123,"order_id":2000001,"variation_id":null}]`
		a.Do("GET", "/shipments/40001/items", nil, seller...).Is(t, 200, want)
		a.Do("GET", "/shipments/40002/items", nil, buyer...).Is(t, 200, want)
		a.Do("GET", "/shipments/40001/items", nil, other...).Is(t, 403,
			apptest.Err(403, "forbidden", "the caller is neither the seller nor the buyer of the order of shipment 40001"))
		a.Do("GET", "/shipments/40001/items", nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
		a.Do("GET", "/shipments/4242/items", nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "shipment not found"))
		a.Do("GET", "/shipments/abc/items", nil, seller...).Is(t, 400, `{"message":"shipment_id must be a positive integer, got \"abc\"","error":"bad_request","status":400,
				"cause":[{"code":"shipment_id","message":"shipment_id must be a positive integer"}]}`)
	})
}
