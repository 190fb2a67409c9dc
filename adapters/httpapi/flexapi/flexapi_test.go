package flexapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// flexWorld adds to apptest.Sample: category MLA2000 whose me2 logistics
// offer self_service; items of seller 123 in it (MLA2100 offers the option,
// MLA2101 is paused, MLA2102 ships not_specified) and MLA2200 of 124;
// subscriptions of 123 on MLA (FLEX 3001 in, with zones Z1 mandatory, Z2,
// Z3 selected and Z4 disabled; TURBO 3002 pending) and FLEX 3003 of 124,
// out; order 2000001 of 123 sold to 456 with shipments 40001 (driver 777)
// and 40002 (no driver).
func flexWorld() map[string]any {
	item := func(id string, seller int, status, mode string) map[string]any {
		return map[string]any{"id": id, "site_id": "MLA", "seller_id": seller, "title": "Auriculares " + id, "category_id": "MLA2000",
			"status": status, "price": 100, "shipping": map[string]any{"mode": mode, "local_pick_up": false, "free_shipping": false, "logistic_type": "drop_off"}}
	}
	price := map[string]any{"cents": "00", "currency_id": "ARS", "decimal_separator": ",", "fraction": "1500", "symbol": "$"}
	return map[string]any{
		"categories": []map[string]any{{"id": "MLA2000", "site_id": "MLA", "name": "Auriculares", "domain_id": "MLA-HEADPHONES", "compatibilities": nil,
			"shipping_preferences": map[string]any{"dimensions": map[string]any{"height": 10, "width": 10, "length": 10, "weight": 200},
				"logistics":  []any{map[string]any{"mode": "me2", "types": []string{"drop_off", "self_service"}}},
				"restricted": false}}},
		"items": []map[string]any{item("MLA2100", 123, "active", "me2"), item("MLA2101", 123, "paused", "me2"),
			item("MLA2102", 123, "active", "not_specified"), item("MLA2200", 124, "active", "me2")},
		"orders": []map[string]any{{"id": 2000001, "site_id": "MLA", "seller_id": 123, "buyer_id": 456, "pack_id": nil, "status": "paid",
			"items": []any{map[string]any{"item_id": "MLA1100", "quantity": 1, "unit_price": 15000}}, "shipping": map[string]any{"id": 40001}, "has_claim": false}},
		"flex_subscriptions": []map[string]any{
			{"id": 3001, "site_id": "MLA", "user_id": 123, "mode": "FLEX", "status": "in",
				"address": map[string]any{"id": 1, "address_line": "Av. Corrientes 1000", "city": map[string]any{"id": "TUxBQ0NBUGZlZG1sYQ", "name": "Capital Federal"}, "zip_code": "1043"},
				"zones": []any{
					map[string]any{"id": "Z1", "label": "CABA", "is_mandatory": true, "neighborhoods": []string{"Palermo"}, "price": price},
					map[string]any{"id": "Z2", "label": "GBA Norte", "price": price},
					map[string]any{"id": "Z3", "label": "GBA Sur", "selected": true, "price": price},
					map[string]any{"id": "Z4", "label": "GBA Oeste", "enabled": false, "price": price},
				}},
			{"id": 3002, "site_id": "MLA", "user_id": 123, "mode": "TURBO", "status": "pending", "configuration_type": map[string]any{"coverage": "radius", "delivery": "accurate"}},
			{"id": 3003, "site_id": "MLA", "user_id": 124, "mode": "FLEX", "status": "out"},
		},
		"shipments": []map[string]any{{"id": 40001, "site_id": "MLA", "order_id": 2000001, "driver_id": 777}, {"id": 40002, "site_id": "MLA", "order_id": 2000001, "driver_id": nil}},
	}
}

func newFlexApp(t *testing.T, be apptest.Backend) *apptest.App {
	a := apptest.NewSample(t, be)
	a.MustLoad(flexWorld())
	return a
}

var (
	seller = apptest.Bearer("APP_USR-seller") // 123
	other  = apptest.Bearer("APP_USR-other")  // 124
)

const invalidSite = `{"message":"invalid site_id: \"MLX\" is not a site","error":"bad_request","status":400,
	"cause":[{"code":"site_id","message":"site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC"}]}`

func TestSubscriptions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := newFlexApp(t, be)
		path := func(site, user string) string {
			return "/shipping/flex/sites/" + site + "/users/" + user + "/subscriptions/v1"
		}
		// FLEX and TURBO: two entries.
		a.Do("GET", path("MLA", "123"), nil, seller...).Is(t, 200, `[
				{"id":3001,"site_id":"MLA","user_id":123,"mode":"FLEX","configuration_type":{"coverage":"zone","delivery":"custom"},"service_id":3001,"status":{"id":"in"},"creation_date":"2026-11-20T12:00:00Z"},
				{"id":3002,"site_id":"MLA","user_id":123,"mode":"TURBO","configuration_type":{"coverage":"radius","delivery":"accurate"},"service_id":3002,"status":{"id":"pending"},"creation_date":"2026-11-20T12:00:00Z"}]`)
		// FLEX only: one entry.
		a.Do("GET", path("MLA", "124"), nil, other...).Is(t, 200, `[
				{"id":3003,"site_id":"MLA","user_id":124,"mode":"FLEX","configuration_type":{"coverage":"zone","delivery":"custom"},"service_id":3003,"status":{"id":"out"},"creation_date":"2026-11-20T12:00:00Z"}]`)
		a.Do("GET", path("MLB", "123"), nil, seller...).Is(t, 200, `[]`)

		a.Do("GET", path("", "123"), nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", "empty site id"))
		a.Do("GET", path("MLX", "123"), nil, seller...).Is(t, 400, invalidSite)
		a.Do("GET", path("MLA", "123"), nil, other...).Is(t, 400, apptest.Err(400, "bad_request", "can't access to resource: user 123 is not the caller"))
		a.Do("GET", path("MLA", "999"), nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "user not found: 999"))
		a.Do("GET", path("MLA", "abc"), nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", `invalid user_id: "abc" is not a positive integer`, "user_id", "user_id must be a positive integer"))
		a.Do("GET", path("MLA", "123"), nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
	})
}

func TestTurboRequiresFlex(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := newFlexApp(t, be)
		msg := "a TURBO subscription requires a FLEX subscription of user 456 on site MLA"
		a.Sandbox("PUT", "/flex/subscriptions/3009", `{"site_id":"MLA","user_id":456,"mode":"TURBO","status":"in"}`).
			Is(t, 400, apptest.Err(400, "bad_request", msg, "mode", msg))
		a.Sandbox("GET", "/flex/subscriptions/3009", nil).Is(t, 404, apptest.Err(404, "not_found", "subscription not found"))
		// The FLEX that 123's TURBO needs cannot become TURBO itself.
		msg = "a TURBO subscription requires a FLEX subscription of user 123 on site MLA"
		a.Sandbox("PUT", "/flex/subscriptions/3001", `{"site_id":"MLA","user_id":123,"mode":"TURBO","status":"in"}`).
			Is(t, 400, apptest.Err(400, "bad_request", msg, "mode", msg))
		// With a FLEX first, TURBO is accepted.
		a.Sandbox("PUT", "/flex/subscriptions/3008", `{"site_id":"MLA","user_id":456,"mode":"FLEX","status":"in"}`).OK(t, 200)
		a.Sandbox("PUT", "/flex/subscriptions/3009", `{"site_id":"MLA","user_id":456,"mode":"TURBO","status":"in"}`).OK(t, 200)
	})
}

func TestSandboxZoneSelection(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := newFlexApp(t, be)
		// docs/sandbox.md: unselected unless "selected": true, mandatory zones always selected.
		body := `{"site_id":"MLA","user_id":124,"mode":"FLEX","status":"in","zones":[
				{"id":"M","label":"M","is_mandatory":true,"selected":false},{"id":"A","label":"A"},{"id":"B","label":"B","selected":true},{"id":"C","label":"C","enabled":false,"selected":false}]}`
		var s struct {
			Configuration struct {
				Zones []struct {
					ID                string
					Enabled, Selected bool
				} `json:"zones"`
			} `json:"configuration"`
		}
		raw, _ := json.Marshal(a.Sandbox("PUT", "/flex/subscriptions/3004", body).OK(t, 200))
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		got := map[string][2]bool{}
		for _, z := range s.Configuration.Zones {
			got[z.ID] = [2]bool{z.Enabled, z.Selected}
		}
		want := map[string][2]bool{"M": {true, true}, "A": {true, false}, "B": {true, true}, "C": {false, false}}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("zone %s: enabled, selected = %v, want %v", id, got[id], w)
			}
		}
	})
}

const everyField = `query Full($u: Long!) { configuration(user_id: $u, service_id: 3001) {
	address { id address_line city { id name } zip_code }
	availables { capacity_range { from to } cutoff ranges }
	delivery_ranges { week { ...R } saturday { ...R } sunday { ...R } }
	delivery_window disabled_features is_moderated
	subscription { creation_date service_id site_id status { id } training_times { original { value unit } remaining { value unit } activation_date } user_id }
	working_days
	zones { enabled id is_mandatory label neighborhoods price { cents currency_id decimal_separator fraction symbol } selected } } }
fragment R on DeliveryRange { calculated_cutoff capacity et_hour from processing_time to type }`

const zonePrice = `"price":{"cents":"00","currency_id":"ARS","decimal_separator":",","fraction":"1500","symbol":"$"}`

func TestConfigurationRead(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := newFlexApp(t, be)
		read := func(site string, body any, auth ...string) apptest.Response {
			return a.Do("POST", "/shipping/flex/sites/"+site+"/configuration/v3", body, auth...)
		}
		q := func(query string) map[string]any { return map[string]any{"query": query} }

		// One leaf.
		read("MLA", q(`{ configuration(user_id: 123, service_id: 3001) { delivery_window } }`), seller...).
			Is(t, 200, `{"configuration":{"delivery_window":"same_day"}}`)
		// Aliases and a fragment.
		read("MLA", q(`{ conf: configuration(user_id: 123, service_id: 3001) { window: delivery_window zones { ...Z } } }
				fragment Z on Zone { id picked: selected }`), seller...).
			Is(t, 200, `{"conf":{"window":"same_day","zones":[{"id":"Z1","picked":true},{"id":"Z2","picked":false},{"id":"Z3","picked":true},{"id":"Z4","picked":false}]}}`)
		// Every field, with a variable and an operation name.
		read("MLA", map[string]any{"query": everyField, "variables": map[string]any{"u": 123}, "operationName": "Full"}, seller...).Is(t, 200, `{"configuration":{
				"address":{"id":1,"address_line":"Av. Corrientes 1000","city":{"id":"TUxBQ0NBUGZlZG1sYQ","name":"Capital Federal"},"zip_code":"1043"},
				"availables":{"capacity_range":{"from":1,"to":300},"cutoff":[10,11,12,13,14,15],"ranges":[2,3,4,5,6,7,8]},
				"delivery_ranges":{"week":[{"calculated_cutoff":13,"capacity":50,"et_hour":20,"from":14,"processing_time":1,"to":20,"type":"cpt"}],"saturday":null,"sunday":null},
				"delivery_window":"same_day","disabled_features":[],"is_moderated":false,
				"subscription":{"creation_date":"2026-11-20T12:00:00Z","service_id":3001,"site_id":"MLA","status":{"id":"in"},"training_times":null,"user_id":123},
				"working_days":["week"],
				"zones":[{"enabled":true,"id":"Z1","is_mandatory":true,"label":"CABA","neighborhoods":["Palermo"],`+zonePrice+`,"selected":true},
					{"enabled":true,"id":"Z2","is_mandatory":false,"label":"GBA Norte","neighborhoods":[],`+zonePrice+`,"selected":false},
					{"enabled":true,"id":"Z3","is_mandatory":false,"label":"GBA Sur","neighborhoods":[],`+zonePrice+`,"selected":true},
					{"enabled":false,"id":"Z4","is_mandatory":false,"label":"GBA Oeste","neighborhoods":[],`+zonePrice+`,"selected":false}]}}`)

		// The contract's answers.
		read("MLA", q(`{ configuration(user_id: 123, service_id: 3001) { delivery_window `), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "failed to create schema in graphql operation", "query", `syntax error: unexpected "", expecting Ident (line 1, column 67)`))
		read("MLA", q(`{ configuration(user_id: 123, service_id: 3001) { colour } }`), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid query", "query", `Cannot query field "colour" on type "Configuration". (line 1, column 51)`))
		read("MLA", q(`{ configuration(user_id: 123) { delivery_window } }`), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid query", "query", `Field "configuration" argument "service_id" of type "Long!" is required, but it was not provided. (line 1, column 3)`))
		read("MLA", q(`{ configuration(user_id: "123", service_id: 3001) { delivery_window } }`), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid query", "query", `an integer is required, got string`))
		read("MLA", map[string]any{"variables": map[string]any{}}, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid query", "query", "query must be a GraphQL query selecting configuration(user_id, service_id)"))
		read("MLA", `{"query":`, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid JSON body: unexpected end of JSON input", "body", "unexpected end of JSON input"))
		read("MLA", `{"query":5}`, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid JSON body: field query must be a string, got number", "query", "query must be a string"))
		read("MLA", q(`mutation { configuration(user_id: 123, service_id: 3001) { delivery_window } }`), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid query", "query", "no mutations are offered by the schema"))
		long := `{ configuration(user_id: 123, service_id: 3001) { delivery_window } }` + strings.Repeat(" ", 16<<10)
		read("MLA", q(long), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid query", "query", fmt.Sprintf("query length %d exceeds the maximum allowed query length of 16384 bytes", len(long))))
		read("MLA", q(`{ __typename }`), seller...).Is(t, 200, `{"__typename":"Query"}`)
		read("MLA", q(`{ __schema { types { fields { type { ofType { ofType { ofType { ofType { name } } } } } } } } }`), seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid query", "query", `Field "name" has depth 9 that exceeds max depth 8 (line 1, column 74)`))
		leaf := q(`{ configuration(user_id: 123, service_id: 3001) { delivery_window } }`)
		read("", leaf, seller...).Is(t, 400, apptest.Err(400, "bad_request", "empty site id"))
		read("MLX", leaf, seller...).Is(t, 400, invalidSite)
		read("MLA", leaf, other...).Is(t, 400, apptest.Err(400, "bad_request", "can't access to resource: user 123 is not the caller"))
		read("MLA", q(`{ configuration(user_id: 999, service_id: 3001) { delivery_window } }`), seller...).Is(t, 404, apptest.Err(404, "not_found", "user not found: 999"))
		for _, service := range []string{"3003", "4000"} {
			read("MLA", q(`{ configuration(user_id: 123, service_id: `+service+`) { delivery_window } }`), seller...).Is(t, 404,
				apptest.Err(404, "not_found", "no subscription for the user_id 123 and service_id "+service+" pair on site MLA"))
		}
		read("MLB", leaf, seller...).Is(t, 404, apptest.Err(404, "not_found", "no subscription for the user_id 123 and service_id 3001 pair on site MLB"))
		read("MLA", leaf).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
	})
}

func TestConfigurationChanges(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := newFlexApp(t, be)
		base := func(site, user, service string) string {
			return "/shipping/flex/sites/" + site + "/users/" + user + "/services/" + service + "/configuration"
		}
		delivery := func(site, user, service string) string { return base(site, user, service) + "/delivery/custom/v3" }
		zones := func(site, user, service string) string { return base(site, user, service) + "/coverage/zone/v3" }
		week := func(r string) string { return `{"delivery_window":"same_day","delivery_ranges":{"week":[` + r + `]}}` }

		a.Do("PUT", delivery("MLA", "123", "3001"), `{"delivery_window":"same_day","delivery_ranges":{
				"week":[{"from":12,"to":16,"capacity":20,"cutoff":10},{"from":16,"to":20,"capacity":30,"cutoff":15}],
				"saturday":[{"from":14,"to":18,"capacity":10,"cutoff":12}],"sunday":null}}`, seller...).Is(t, 200, `{"delivery_window":"same_day",
				"delivery_ranges":{"week":[{"calculated_cutoff":10,"capacity":20,"et_hour":16,"from":12,"processing_time":2,"to":16,"type":"cpt"},
					{"calculated_cutoff":15,"capacity":30,"et_hour":20,"from":16,"processing_time":1,"to":20,"type":"cpt"}],
				"saturday":[{"calculated_cutoff":12,"capacity":10,"et_hour":18,"from":14,"processing_time":2,"to":18,"type":"cpt"}],"sunday":null},
				"working_days":["week","saturday"]}`)
		a.Do("PUT", zones("MLA", "123", "3001"), `{"zones":[{"id":"Z2"}]}`, seller...).Is(t, 200, `{"zones":[
				{"enabled":true,"id":"Z1","is_mandatory":true,"label":"CABA","neighborhoods":["Palermo"],`+zonePrice+`,"selected":true},
				{"enabled":true,"id":"Z2","is_mandatory":false,"label":"GBA Norte","neighborhoods":[],`+zonePrice+`,"selected":true},
				{"enabled":true,"id":"Z3","is_mandatory":false,"label":"GBA Sur","neighborhoods":[],`+zonePrice+`,"selected":true},
				{"enabled":false,"id":"Z4","is_mandatory":false,"label":"GBA Oeste","neighborhoods":[],`+zonePrice+`,"selected":false}]}`)
		// Read back through the GraphQL read.
		a.Do("POST", "/shipping/flex/sites/MLA/configuration/v3", map[string]any{"query": `{ configuration(user_id: 123, service_id: 3001) {
				delivery_ranges { week { from to capacity } saturday { from } sunday { from } } working_days zones { id selected } } }`}, seller...).
			Is(t, 200, `{"configuration":{"delivery_ranges":{"week":[{"from":12,"to":16,"capacity":20},{"from":16,"to":20,"capacity":30}],"saturday":[{"from":14}],"sunday":null},
					"working_days":["week","saturday"],"zones":[{"id":"Z1","selected":true},{"id":"Z2","selected":true},{"id":"Z3","selected":true},{"id":"Z4","selected":false}]}}`)

		// Each violation names its field.
		bad := func(path, body string, field, msg string) {
			t.Helper()
			a.Do("PUT", path, body, seller...).Is(t, 400, apptest.Err(400, "bad_request", msg, field, msg))
		}
		d := delivery("MLA", "123", "3001")
		bad(d, week(`{"from":14,"to":20,"capacity":301,"cutoff":13}`), "delivery_ranges.week[0].capacity", "delivery_ranges.week[0].capacity must be within 1..300, got 301")
		bad(d, week(`{"from":14,"to":20,"capacity":50,"cutoff":9}`), "delivery_ranges.week[0].cutoff", "delivery_ranges.week[0].cutoff must be one of 10, 11, 12, 13, 14, 15, got 9")
		bad(d, week(`{"from":11,"to":20,"capacity":50,"cutoff":10}`), "delivery_ranges.week[0]", "delivery_ranges.week[0] lasts 9 hours; the configuration offers ranges of 2, 3, 4, 5, 6, 7, 8 hours")
		bad(d, week(`{"from":14,"to":20,"cutoff":13}`), "delivery_ranges.week[0].capacity", "delivery_ranges.week[0].capacity is required")
		bad(d, week(``), "delivery_ranges.week", "delivery_ranges.week must have at least one range")
		bad(d, `{"delivery_window":"next_day","delivery_ranges":{"week":[{"from":14,"to":20,"capacity":50,"cutoff":13}]}}`, "delivery_window", `delivery_window must be one of same_day, got "next_day"`)
		bad(d, `{}`, "delivery_ranges", "delivery_ranges is required")
		z := zones("MLA", "123", "3001")
		bad(z, `{"zones":[{"id":"Z9"}]}`, "zones[0].id", `zones[0].id must be one of the subscription's zones (Z1, Z2, Z3, Z4), got "Z9"`)
		bad(z, `{"zones":[{"id":"Z4"}]}`, "zones[0].id", "zones[0].id names zone Z4, which is not enabled")
		bad(z, `{"zones":[]}`, "zones", "zones must list at least one zone")
		// Nothing of a refused change was written.
		a.Do("POST", "/shipping/flex/sites/MLA/configuration/v3", map[string]any{"query": `{ configuration(user_id: 123, service_id: 3001) { delivery_window delivery_ranges { week { capacity } } zones { id selected } } }`}, seller...).
			Is(t, 200, `{"configuration":{"delivery_window":"same_day","delivery_ranges":{"week":[{"capacity":20},{"capacity":30}]},
					"zones":[{"id":"Z1","selected":true},{"id":"Z2","selected":true},{"id":"Z3","selected":true},{"id":"Z4","selected":false}]}}`)

		// The contract's answers, for both PUTs.
		ok := week(`{"from":14,"to":20,"capacity":50,"cutoff":13}`)
		for _, put := range []struct {
			path func(site, user, service string) string
			body string
		}{{delivery, ok}, {zones, `{"zones":[{"id":"Z2"}]}`}} {
			a.Do("PUT", put.path("MLA", "x1", "3001"), put.body, seller...).Is(t, 400,
				apptest.Err(400, "bad_request", `invalid user_id: "x1" is not a positive integer`, "user_id", "user_id must be a positive integer"))
			a.Do("PUT", put.path("MLA", "123", "3.5"), put.body, seller...).Is(t, 400,
				apptest.Err(400, "bad_request", `invalid service_id: "3.5" is not a positive integer`, "service_id", "service_id must be a positive integer"))
			a.Do("PUT", put.path("MLA", "123", "3001"), `{"zones":`, seller...).Is(t, 400,
				apptest.Err(400, "bad_request", "invalid JSON body: unexpected end of JSON input", "body", "unexpected end of JSON input"))
			a.Do("PUT", put.path("MLA", "123", "4000"), put.body, seller...).Is(t, 404,
				apptest.Err(404, "not_found", "can't update delivery custom: no subscription for the user_id 123 and service_id 4000 pair on site MLA"))
			a.Do("PUT", put.path("MLA", "123", "3001"), put.body, other...).Is(t, 400,
				apptest.Err(400, "bad_request", "can't access to resource: user 123 is not the caller"))
			a.Do("PUT", put.path("MLX", "123", "3001"), put.body, seller...).Is(t, 400, invalidSite)
			a.Do("PUT", put.path("MLX", "123", "3001"), `[`, seller...).Is(t, 400,
				apptest.Err(400, "bad_request", "invalid JSON body: unexpected end of JSON input", "body", "unexpected end of JSON input"))
			// An out subscription's settings cannot be changed.
			a.Do("PUT", put.path("MLA", "124", "3003"), put.body, other...).Is(t, 409,
				apptest.Err(409, "conflict", "subscription 3003 is out: its settings cannot be changed"))
		}
		a.Do("PUT", d, `{"delivery_ranges":{"week":[{"from":"14"}]}}`, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "invalid JSON body: field delivery_ranges.week.from must be an integer, got string",
				"delivery_ranges.week.from", "delivery_ranges.week.from must be an integer"))
	})
}

func TestItemOption(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := newFlexApp(t, be)
		path := func(site, item string) string { return "/sites/" + site + "/shipping/selfservice/items/" + item }
		p := path("MLA", "MLA2100")
		shippingTags := func() string {
			var it struct {
				Shipping struct {
					Tags []string `json:"tags"`
				} `json:"shipping"`
			}
			a.Do("GET", "/items/MLA2100", nil).JSON(t, &it)
			b, _ := json.Marshal(it.Shipping.Tags)
			return string(b)
		}
		notIn := apptest.Err(404, "not_found", "item MLA2100 is not in flex")

		// The state table.
		a.Do("GET", p, nil, seller...).Is(t, 404, notIn)
		a.Do("DELETE", p, nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", "item MLA2100 is not in flex"))
		if got := shippingTags(); got != `[]` {
			t.Errorf("shipping tags before: %s", got)
		}
		if r := a.Do("POST", p, nil, seller...).HasStatus(t, 204); len(r.Body) != 0 {
			t.Fatalf("enable: %d %s", r.Status, r.Body)
		}
		a.Do("GET", p, nil, seller...).HasStatus(t, 204)
		if got := shippingTags(); got != `["self_service_in"]` {
			t.Errorf("shipping tags when enabled: %s", got)
		}
		a.Do("POST", p, nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", "item MLA2100 is already in flex"))
		a.Do("DELETE", p, nil, seller...).HasStatus(t, 204)
		a.Do("GET", p, nil, seller...).Is(t, 404, notIn)
		if got := shippingTags(); got != `[]` {
			t.Errorf("shipping tags after: %s", got)
		}

		// An enabled item that stops offering the option is down, and
		// can still be disabled.
		a.Do("POST", p, nil, seller...)
		a.Sandbox("PUT", "/items/MLA2100", `{"site_id":"MLA","seller_id":123,"title":"Auriculares","category_id":"MLA2000","price":100,"status":"paused","shipping":{"mode":"me2"}}`).OK(t, 200)
		down := func(item, reason string) string {
			return apptest.Err(403, "forbidden", "item down: "+reason, "item_id", reason)
		}
		a.Do("GET", p, nil, seller...).Is(t, 403, down("MLA2100", "item MLA2100 is not active (status paused)"))
		a.Do("DELETE", p, nil, seller...).HasStatus(t, 204)

		// Items that do not offer the option, for every method.
		for _, m := range []string{"GET", "POST", "DELETE"} {
			a.Do(m, path("MLA", "MLA2101"), nil, seller...).Is(t, 403, down("MLA2101", "item MLA2101 is not active (status paused)"))
			a.Do(m, path("MLA", "MLA2102"), nil, seller...).Is(t, 403, down("MLA2102", "item MLA2102 does not ship with mode me2 (mode not_specified)"))
			a.Do(m, path("MLA", "MLA1100"), nil, seller...).Is(t, 403, down("MLA1100", "the category of item MLA1100 does not offer self_service in its me2 logistics"))
			a.Do(m, path("MLA", "MLA2200"), nil, other...).Is(t, 403, down("MLA2200", "the seller of item MLA2200 has no FLEX subscription in on its site"))
			a.Do(m, path("MLA", "MLA4242"), nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "item not found: MLA4242"))
			a.Do(m, path("MLA", "MLA2200"), nil, seller...).Is(t, 403, apptest.Err(403, "forbidden", "only the seller of item MLA2200 may use its local delivery option"))
			a.Do(m, path("", "MLA2100"), nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", "empty site id"))
			a.Do(m, path("MLX", "MLA2100"), nil, seller...).Is(t, 400, invalidSite)
			a.Do(m, path("MLB", "MLA2100"), nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "item not found: MLA2100"))
			a.Do(m, p, nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
		}
	})
}

func TestAssignment(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := newFlexApp(t, be)
		path := func(site, id string) string { return "/flex/sites/" + site + "/shipments/" + id + "/assignment/v1" }
		a.Do("GET", path("MLA", "40001"), nil, seller...).Is(t, 200, `{"driver_id":777}`)
		a.Do("GET", path("MLA", "40002"), nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "shipment_id not found: 40002"))
		a.Do("GET", path("MLA", "40009"), nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "shipment_id not found: 40009"))
		a.Do("GET", path("MLA", "abc"), nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "shipment_id not found: abc"))
		a.Do("GET", path("MLB", "40001"), nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "shipment_id not found: 40001"))
		a.Do("GET", path("MLA", "40001"), nil, other...).Is(t, 403, apptest.Err(403, "forbidden", "only the seller of the order of shipment 40001 may read its assignment"))
		a.Do("GET", path("MLA", "40002"), nil, other...).Is(t, 403, apptest.Err(403, "forbidden", "only the seller of the order of shipment 40002 may read its assignment"))
		a.Do("GET", path("MLX", "40001"), nil, seller...).Is(t, 400, invalidSite)
		a.Do("GET", path("", "40001"), nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", "empty site id"))
		a.Do("GET", path("MLA", "40001"), nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
	})
}
