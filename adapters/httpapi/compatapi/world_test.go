package compatapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// Tokens of the test world.
const (
	seller = "APP_USR-seller"
	other  = "APP_USR-other"
	buyer  = "APP_USR-buyer"
)

type obj = map[string]any

func enabled(required bool, note, restr, universal string) obj {
	return obj{"required": required, "note_status": note, "restrictions_status": restr, "universal_status": universal}
}

func link(domain string) obj {
	return obj{"compatible_domain_id": domain, "type": "EXTENSION", "required": true, "restrictions": []any{},
		"categories": []any{obj{"id": "MLA1747", "required": true, "note_status": "ENABLED", "restrictions_status": "ENABLED", "universal_status": "ENABLED"}},
		"restriction_values": []any{obj{"attribute_id": "POSITION", "values": []any{
			obj{"value_id": "1", "value_name": "Delantera"}, obj{"value_id": "2", "value_name": "Trasera"}}}}}
}

func product(id, domain, name string, parent any, attrs ...[3]string) obj {
	as := []any{}
	for _, a := range attrs {
		as = append(as, obj{"id": a[0], "name": a[0], "value_id": a[1], "value_name": a[2]})
	}
	site := id[:3]
	return obj{"id": id, "site_id": site, "domain_id": domain, "name": name, "parent_id": parent, "attributes": as}
}

func item(id string, sellerID int, category, domain, status string, extra ...string) obj {
	it := obj{"id": id, "site_id": "MLA", "seller_id": sellerID, "title": "Item " + id, "category_id": category,
		"domain_id": domain, "status": status, "price": 1000, "currency_id": "ARS", "available_quantity": 1,
		"listing_type_id": "gold_special", "condition": "new", "attributes": []any{}, "tags": []any{},
		"shipping": obj{"mode": "me2", "local_pick_up": false, "free_shipping": false, "logistic_type": "drop_off", "methods": []any{}, "free_methods": []any{}}}
	for i := 0; i+1 < len(extra); i += 2 {
		switch extra[i] {
		case "catalog_product_id":
			it["catalog_product_id"] = extra[i+1]
		case "part_number":
			it["attributes"] = []any{obj{"id": "PART_NUMBER", "name": "Part number", "value_name": extra[i+1], "value_type": "string"}}
		}
	}
	return it
}

// Vehicle domains: MLA-CARS_AND_VANS (Ford Ka parent MLA100 with children
// MLA101..MLA102 and Fiat MLA103), MLA-MOTOS (MLA201), MLA-TRUCKS (MLA301,
// not compatible with shock absorbers), MLA-V1..MLA-V11 (one child each,
// MLA401..MLA411), MLA-BIG (with big, 250 Renault children
// MLA5000..MLA5249: most of the world's load, which only the tests of the
// limits and of the family counts need).
func world(big bool) obj {
	domains := []any{
		obj{"id": "MLA-CAR_SHOCK_ABSORBERS", "site_id": "MLA", "main": false, "compatibilities": nil},
		obj{"id": "MLA-CARS_AND_VANS", "site_id": "MLA", "main": true, "compatibilities": []any{}},
		obj{"id": "MLA-MOTOS", "site_id": "MLA", "main": true, "compatibilities": []any{}},
		obj{"id": "MLA-TRUCKS", "site_id": "MLA", "main": true, "compatibilities": []any{}},
		obj{"id": "MLA-BIG", "site_id": "MLA", "main": true, "compatibilities": []any{}},
		obj{"id": "MLB-CARS", "site_id": "MLB", "main": true, "compatibilities": []any{}},
	}
	links := []any{link("MLA-CARS_AND_VANS"), link("MLA-MOTOS"), link("MLA-BIG")}
	products := []any{
		product("MLA100", "MLA-CARS_AND_VANS", "Ford Ka", nil, [3]string{"BRAND", "9909", "Ford"}),
		product("MLA101", "MLA-CARS_AND_VANS", "Ford Ka 2018", "MLA100", [3]string{"BRAND", "9909", "Ford"}, [3]string{"VEHICLE_YEAR", "18503", "2018"}),
		product("MLA102", "MLA-CARS_AND_VANS", "Ford Ka 2019", "MLA100", [3]string{"BRAND", "9909", "Ford"}, [3]string{"VEHICLE_YEAR", "18504", "2019"}),
		product("MLA103", "MLA-CARS_AND_VANS", "Fiat Uno 2018", "MLA100", [3]string{"BRAND", "67", "Fiat"}, [3]string{"VEHICLE_YEAR", "18503", "2018"}),
		product("MLA201", "MLA-MOTOS", "Honda CB 2020", "MLA200", [3]string{"BRAND", "1", "Honda"}),
		product("MLA301", "MLA-TRUCKS", "Scania 2020", "MLA300", [3]string{"BRAND", "2", "Scania"}),
		product("MLB1", "MLB-CARS", "Gol 2018", "MLB0", [3]string{"BRAND", "3", "VW"}),
	}
	for i := 1; i <= 11; i++ {
		d := fmt.Sprintf("MLA-V%d", i)
		domains = append(domains, obj{"id": d, "site_id": "MLA", "main": true, "compatibilities": []any{}})
		links = append(links, link(d))
		products = append(products, product(fmt.Sprintf("MLA%d", 400+i), d, "V "+d, "MLA400", [3]string{"BRAND", "5", "Generic"}))
	}
	for i := 0; big && i < 250; i++ {
		products = append(products, product(fmt.Sprintf("MLA%d", 5000+i), "MLA-BIG", fmt.Sprintf("Renault %d", i), "MLA4999",
			[3]string{"BRAND", "77", "Renault"}, [3]string{"VEHICLE_YEAR", fmt.Sprint(i % 2), fmt.Sprint(i % 2)}))
	}
	domains[0].(obj)["compatibilities"] = links
	return obj{
		"users": []any{
			obj{"id": 123, "nickname": "SELLER", "site_id": "MLA", "access_token": seller},
			obj{"id": 456, "nickname": "OTHER", "site_id": "MLA", "access_token": other},
			obj{"id": 789, "nickname": "BUYER", "site_id": "MLA", "access_token": buyer},
		},
		"categories": []any{
			obj{"id": "MLA1747", "site_id": "MLA", "name": "Amortiguadores", "domain_id": "MLA-CAR_SHOCK_ABSORBERS", "compatibilities": enabled(true, "ENABLED", "ENABLED", "ENABLED")},
			obj{"id": "MLA1748", "site_id": "MLA", "name": "Sin extras", "domain_id": "MLA-CAR_SHOCK_ABSORBERS", "compatibilities": enabled(false, "DISABLED", "DISABLED", "DISABLED")},
			obj{"id": "MLA1749", "site_id": "MLA", "name": "Sin compatibilidades", "domain_id": "MLA-CAR_SHOCK_ABSORBERS", "compatibilities": nil},
		},
		"domains":  domains,
		"products": products,
		"items": []any{
			item("MLA1100", 123, "MLA1747", "MLA-CAR_SHOCK_ABSORBERS", "active", "catalog_product_id", "MLA9000"),
			item("MLA1101", 123, "MLA1748", "MLA-CAR_SHOCK_ABSORBERS", "active"),
			item("MLA1102", 123, "MLA1749", "MLA-CAR_SHOCK_ABSORBERS", "active"),
			item("MLA1103", 123, "MLA1747", "MLA-CAR_SHOCK_ABSORBERS", "closed"),
			item("MLA1104", 123, "MLA1747", "MLA-CAR_SHOCK_ABSORBERS", "active", "part_number", "PN-1"),
			item("MLA1105", 123, "MLA1747", "MLA-CAR_SHOCK_ABSORBERS", "active", "part_number", "PN-1"),
			item("MLA1200", 456, "MLA1747", "MLA-CAR_SHOCK_ABSORBERS", "active", "catalog_product_id", "MLA9000"),
		},
	}
}

// newApp is a fresh feria on be with the test world loaded, MLA-BIG
// without its products.
func newApp(t *testing.T, be apptest.Backend) *apptest.App {
	t.Helper()
	a := apptest.New(t, be)
	a.MustLoad(world(false))
	return a
}

// newBigApp is newApp with MLA-BIG's 250 products.
func newBigApp(t *testing.T, be apptest.Backend) *apptest.App {
	t.Helper()
	a := apptest.New(t, be)
	a.MustLoad(world(true))
	return a
}

// readOnly are the tests that change nothing of the world (what they send
// to write is refused, and they check that nothing was written): they share
// one loaded world per backend, MLA-BIG's products included, instead of
// loading it each. A test that writes takes a world of its own (newApp).
var readOnly = []struct {
	name string
	test func(t *testing.T, a *apptest.App)
}{
	{"CatalogReads", catalogReads},
	{"AuthAndPermission", authAndPermission},
	{"CreateErrors", createErrors},
}

func TestSharedWorld(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		shared := newBigApp(t, be)
		for _, r := range readOnly {
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				r.test(t, shared.For(t))
			})
		}
	})
}

func get(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			var i int
			fmt.Sscan(k, &i)
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func ids(prefix, from, to int) []any {
	out := []any{}
	for i := from; i < to; i++ {
		out = append(out, obj{"id": fmt.Sprintf("MLA%d", prefix+i)})
	}
	return out
}

// odd names n products of MLA-BIG with VEHICLE_YEAR 1 (odd ids).
func odd(n int) []any {
	out := []any{}
	for i := 0; i < n; i++ {
		out = append(out, obj{"id": fmt.Sprintf("MLA%d", 5001+2*i)})
	}
	return out
}
