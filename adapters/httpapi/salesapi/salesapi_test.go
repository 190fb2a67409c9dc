package salesapi_test

import (
	"fmt"
	"testing"

	"github.com/feria/feria/test/apptest"
)

var (
	seller = apptest.Bearer("APP_USR-seller") // 123
	other  = apptest.Bearer("APP_USR-other")  // 124
	buyer  = apptest.Bearer("APP_USR-buyer")  // 456
)

// ordersWorld adds to apptest.Sample a token for buyer 456 and three orders
// of seller 123 sold to 456, created an hour apart: 2000001 paid (MLA1100),
// 2000002 cancelled (MLA1101), 2000003 paid (MLA1100 and MLA1102).
func ordersWorld(t *testing.T, be apptest.Backend) *apptest.App {
	a := apptest.NewSample(t, be)
	a.Sandbox("PUT", "/users/456", map[string]any{"id": 456, "nickname": "BUYER", "site_id": "MLA", "access_token": "APP_USR-buyer"}).OK(t, 200)
	line := func(item string) map[string]any {
		return map[string]any{"item_id": item, "quantity": 1, "unit_price": 15000}
	}
	for i, o := range []struct {
		status string
		items  []any
	}{{"paid", []any{line("MLA1100")}}, {"cancelled", []any{line("MLA1101")}}, {"paid", []any{line("MLA1100"), line("MLA1102")}}} {
		a.Sandbox("PUT", "/clock", map[string]any{"now": fmt.Sprintf("2026-11-20T1%d:00:00Z", i+2)}).OK(t, 200)
		a.Sandbox("PUT", fmt.Sprintf("/orders/%d", 2000001+i), map[string]any{"site_id": "MLA", "seller_id": 123, "buyer_id": 456, "pack_id": nil,
			"status": o.status, "items": o.items, "shipping": map[string]any{"id": 40001 + i}, "has_claim": false}).OK(t, 200)
	}
	return a
}

func order(id int, status, date string, items string, total int) string {
	return fmt.Sprintf(`{"id":%d,"status":%q,"date_created":%q,"pack_id":null,"order_items":[%s],"total_amount":%d,"currency_id":"ARS",
		"buyer":{"id":456},"seller":{"id":123},"shipping":{"id":%d}}`, id, status, date, items, total, 40001+id-2000001)
}

const (
	line1100 = `{"item":{"id":"MLA1100"},"quantity":1,"unit_price":15000,"currency_id":"ARS"}`
	line1101 = `{"item":{"id":"MLA1101"},"quantity":1,"unit_price":15000,"currency_id":"ARS"}`
	line1102 = `{"item":{"id":"MLA1102"},"quantity":1,"unit_price":15000,"currency_id":"ARS"}`
	asc      = `"sort":{"id":"date_asc","name":"Date ascending"},"available_sorts":[{"id":"date_desc","name":"Date descending"}]`
	desc     = `"sort":{"id":"date_desc","name":"Date descending"},"available_sorts":[{"id":"date_asc","name":"Date ascending"}]`
)

var (
	o1 = order(2000001, "paid", "2026-11-20T12:00:00Z", line1100, 15000)
	o2 = order(2000002, "cancelled", "2026-11-20T13:00:00Z", line1101, 15000)
	o3 = order(2000003, "paid", "2026-11-20T14:00:00Z", line1100+","+line1102, 30000)
)

// An integration searches its orders as the marketplace's clients do: as
// seller or buyer, filtered, sorted and paged.
func TestOrdersSearch(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := ordersWorld(t, be)
		a.Do("GET", "/orders/search?seller=123", nil, seller...).Is(t, 200,
			`{"query":null,"results":[`+o1+`,`+o2+`,`+o3+`],`+asc+`,"filters":[],"paging":{"total":3,"offset":0,"limit":51}}`)
		a.Do("GET", "/orders/search?buyer=456&sort=date_desc&limit=2", nil, buyer...).Is(t, 200,
			`{"query":null,"results":[`+o3+`,`+o2+`],`+desc+`,"filters":[],"paging":{"total":3,"offset":0,"limit":2}}`)
		a.Do("GET", "/orders/search?seller=123&order.status=paid&offset=1", nil, seller...).Is(t, 200,
			`{"query":null,"results":[`+o3+`],`+asc+`,"filters":[{"id":"order.status","name":"Order Status","type":"text","values":[{"id":"paid","name":"paid"}]}],
				"paging":{"total":2,"offset":1,"limit":51}}`)
		a.Do("GET", "/orders/search?seller=123&order.date_created.from=2026-11-20T10:00:00.000-03:00&order.date_created.to=2026-11-20T14:00:00Z", nil, seller...).Is(t, 200,
			`{"query":null,"results":[`+o2+`,`+o3+`],`+asc+`,"filters":[
				{"id":"order.date_created.from","name":"Order date created from","type":"date","values":[{"id":"2026-11-20T10:00:00-03:00","name":"2026-11-20T10:00:00-03:00"}]},
				{"id":"order.date_created.to","name":"Order date created to","type":"date","values":[{"id":"2026-11-20T14:00:00Z","name":"2026-11-20T14:00:00Z"}]}],
				"paging":{"total":2,"offset":0,"limit":51}}`)
		a.Do("GET", "/orders/search?seller=123&q=mla1100", nil, seller...).Is(t, 200,
			`{"query":"mla1100","results":[`+o1+`,`+o3+`],`+asc+`,"filters":[],"paging":{"total":2,"offset":0,"limit":51}}`)
		a.Do("GET", "/orders/search?seller=123&q=2000002", nil, seller...).Is(t, 200,
			`{"query":"2000002","results":[`+o2+`],`+asc+`,"filters":[],"paging":{"total":1,"offset":0,"limit":51}}`)
		a.Do("GET", "/orders/search?seller=124", nil, other...).Is(t, 200,
			`{"query":null,"results":[],`+asc+`,"filters":[],"paging":{"total":0,"offset":0,"limit":51}}`)

		// Only the caller's own orders.
		a.Do("GET", "/orders/search?seller=123", nil, other...).Is(t, 403, apptest.Err(403, "forbidden", "the caller is not seller 123"))
		a.Do("GET", "/orders/search?buyer=456", nil, seller...).Is(t, 403, apptest.Err(403, "forbidden", "the caller is not buyer 456"))
		a.Do("GET", "/orders/search?seller=123", nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
		bad := func(field, msg string) string {
			return fmt.Sprintf(`{"message":%q,"error":"bad_request","status":400,"cause":[{"code":%q,"message":%q}]}`, msg, field, msg)
		}
		for _, c := range []struct{ query, field, msg string }{
			{"", "seller", "exactly one of seller and buyer is required"},
			{"seller=123&buyer=456", "seller", "exactly one of seller and buyer is required"},
			{"seller=abc", "seller", `seller must be a positive integer, got "abc"`},
			{"seller=123&order.status=shipped", "order.status", `order.status must be one of confirmed, payment_required, payment_in_process, partially_paid, paid, partially_refunded, pending_cancel, cancelled, got "shipped"`},
			{"seller=123&order.date_created.from=2026-11-20", "order.date_created.from", `order.date_created.from must be an ISO 8601 date with its offset (2026-11-20T00:00:00.000-03:00), got "2026-11-20"`},
			{"seller=123&sort=price_asc", "sort", `sort must be one of date_asc, date_desc, got "price_asc"`},
			{"seller=123&limit=52", "limit", "limit must be at most 51, got 52"},
		} {
			a.Do("GET", "/orders/search?"+c.query, nil, seller...).Is(t, 400, bad(c.field, c.msg))
		}
		a.Do("GET", "/orders/search?seller=123&offset=-1", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", "offset must not be negative, got -1"))
	})
}

// The seller keeps private notes on its order; nobody else reads them.
func TestOrderNotes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := ordersWorld(t, be)
		a.Do("GET", "/orders/2000001/notes", nil, seller...).Is(t, 200, `[{"order_id":"2000001","results":[]}]`)
		r := a.Do("POST", "/orders/2000001/notes", `{"note":"Llamar al comprador"}`, seller...)
		var created struct {
			Note struct {
				ID string `json:"id"`
			} `json:"note"`
		}
		r.OK(t, 201)
		r.JSON(t, &created)
		note := fmt.Sprintf(`{"id":%q,"note":"Llamar al comprador","date_created":"2026-11-20T14:00:00Z","date_last_updated":"2026-11-20T14:00:00Z"}`, created.Note.ID)
		r.Is(t, 201, `{"order_id":"2000001","note":`+note+`}`)
		a.Do("GET", "/orders/2000001/notes", nil, seller...).Is(t, 200, `[{"order_id":"2000001","results":[`+note+`]}]`)

		forbidden := apptest.Err(403, "forbidden", "only the seller of order 2000001 may read and write its notes")
		a.Do("GET", "/orders/2000001/notes", nil, buyer...).Is(t, 403, forbidden)
		a.Do("POST", "/orders/2000001/notes", `{"note":"x"}`, buyer...).Is(t, 403, forbidden)
		a.Do("POST", "/orders/2000001/notes", `{"note":"x"}`, other...).Is(t, 403, forbidden)
		a.Do("POST", "/orders/2000001/notes", `{"note":"x"}`).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
		a.Do("POST", "/orders/4242/notes", `{"note":"x"}`, seller...).Is(t, 404, apptest.Err(404, "not_found", "order not found"))
		a.Do("POST", "/orders/2000001/notes", `{"note":"  "}`, seller...).Is(t, 400,
			`{"message":"note is required","error":"bad_request","status":400,"cause":[{"code":"note","message":"note must not be empty"}]}`)
		long := fmt.Sprintf(`{"note":"%0301d"}`, 0)
		a.Do("POST", "/orders/2000001/notes", long, seller...).Is(t, 400,
			`{"message":"note must be at most 300 characters","error":"bad_request","status":400,"cause":[{"code":"note","message":"note must be at most 300 characters"}]}`)
		a.Do("GET", "/orders/2000001/notes", nil, seller...).Is(t, 200, `[{"order_id":"2000001","results":[`+note+`]}]`)
	})
}
