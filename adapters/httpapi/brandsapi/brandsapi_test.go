package brandsapi_test

import (
	"encoding/json"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// brandsWorld adds to apptest.Sample the brand user 789 (token
// APP_USR-brand) bound to the official stores 5001 and 5002 of MLA (5002
// shared with 124), 5003 of MLB bound to 900, and 5004 of MLA bound to
// nobody.
func brandsWorld() map[string]any {
	return map[string]any{
		"users": []map[string]any{{"id": 789, "nickname": "BRAND", "site_id": "MLA", "user_type": "brand", "tags": []string{"brand"}, "access_token": "APP_USR-brand"}},
		"brands": []map[string]any{
			{"id": 5001, "site_id": "MLA", "name": "Acme Parts", "fantasy_name": "Acme", "relevance_position": 1, "users": []int{789},
				"pictures":       []any{map[string]any{"id": "p1", "name": "logo", "url": "http://example.invalid/l.png", "size": "120x120"}},
				"categories_ids": []string{"MLA1747"}, "permalink": "http://example.invalid/acme", "landing_permalink": "http://example.invalid/acme/landing",
				"boost": map[string]any{"is_active": true, "last_update": "2026-11-19T10:00:00Z"}},
			{"id": 5002, "site_id": "MLA", "name": "Suspensión  Pérez", "relevance_position": 2, "users": []int{124, 789}},
			{"id": 5003, "site_id": "MLB", "name": "Brasil", "users": []int{900}},
			{"id": 5004, "site_id": "MLA", "name": "Nobody"},
		},
	}
}

// errB is an error body of shape (b).
func errB(status int, code, message string) string {
	b, _ := json.Marshal(map[string]any{"error": code, "message": message, "status": status})
	return string(b)
}

func TestBrands(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		a.MustLoad(brandsWorld())
		brand := apptest.Bearer("APP_USR-brand")
		seller := apptest.Bearer("APP_USR-seller")

		a.Do("GET", "/users/789/brands", nil, brand...).Is(t, 200, `{"status":"LINKED","cust_id":789,"site_id":"MLA","user_type":"brand","tags":["brand"],"brands":[
				{"site_id":"MLA","official_store_id":5001,"name":"Acme Parts","type":"normal","relevance_position":1,"status":"active","fantasy_name":"Acme",
				 "date_created":"2026-11-20T12:00:00Z","return_policy":null,"landing_permalink":"http://example.invalid/acme/landing",
				 "pictures":[{"id":"p1","name":"logo","secure_url":null,"url":"http://example.invalid/l.png","size":"120x120"}],"tags":[],
				 "categories_ids":["MLA1747"],"main_categories":[{"id":"MLA1747"}],"permalink":"http://example.invalid/acme","normalized_name":"Acme Parts",
				 "last_updated":"2026-11-20T12:00:00Z"},
				{"site_id":"MLA","official_store_id":5002,"name":"Suspensión  Pérez","type":"normal","relevance_position":2,"status":"active","fantasy_name":"Suspensión  Pérez",
				 "date_created":"2026-11-20T12:00:00Z","return_policy":null,"landing_permalink":"https://www.mercadolibre.com.ar/tienda/suspension-perez","pictures":[],"tags":[],"categories_ids":[],"main_categories":[],
				 "permalink":"https://tienda.mercadolibre.com.ar/suspension-perez","normalized_name":"Suspension Perez","last_updated":"2026-11-20T12:00:00Z"}]}`)
		// Any valid token may read them; a user bound to none is UNLINKED.
		a.Do("GET", "/users/123/brands", nil, brand...).Is(t, 200, `{"status":"UNLINKED","cust_id":123,"site_id":"MLA","user_type":"normal","tags":[],"brands":[]}`)
		a.Do("GET", "/users/900/brands", nil, seller...).Is(t, 200, `{"status":"LINKED","cust_id":900,"site_id":"MLB","user_type":"normal","tags":[],"brands":[
				{"site_id":"MLB","official_store_id":5003,"name":"Brasil","type":"normal","relevance_position":0,"status":"active","fantasy_name":"Brasil",
				 "date_created":"2026-11-20T12:00:00Z","return_policy":null,"landing_permalink":"https://www.mercadolivre.com.br/loja/brasil","pictures":[],"tags":[],"categories_ids":[],"main_categories":[],
				 "permalink":"https://tienda.mercadolivre.com.br/brasil","normalized_name":"Brasil","last_updated":"2026-11-20T12:00:00Z"}]}`)

		a.Do("GET", "/users/789/brands/5001", nil, brand...).Is(t, 200, `{"tags":[],"official_store_id":5001,"categories_ids":["MLA1747"],"fantasy_name":"Acme",
				"users":[{"cust_id":789,"tags":["brand"],"site_id":"MLA","user_type":"brand"}],"site_id":"MLA","status":"active","name":"Acme Parts",
				"date_created":"2026-11-20T12:00:00Z","pictures":[{"id":"p1","name":"logo","secure_url":null,"url":"http://example.invalid/l.png","size":"120x120"}],
				"boost":{"is_active":true,"last_update":"2026-11-19T10:00:00Z"},"relevance_position":1}`)
		a.Do("GET", "/users/789/brands/5002", nil, brand...).Is(t, 200, `{"tags":[],"official_store_id":5002,"categories_ids":[],"fantasy_name":"Suspensión  Pérez",
				"users":[{"cust_id":124,"tags":[],"site_id":"MLA","user_type":"normal"},{"cust_id":789,"tags":["brand"],"site_id":"MLA","user_type":"brand"}],
				"site_id":"MLA","status":"active","name":"Suspensión  Pérez","date_created":"2026-11-20T12:00:00Z","pictures":[],
				"boost":{"is_active":false,"last_update":null},"relevance_position":2}`)
		// A brand of the user's site not bound to the user is read too.
		a.Do("GET", "/users/123/brands/5004", nil, seller...).Is(t, 200, `{"tags":[],"official_store_id":5004,"categories_ids":[],"fantasy_name":"Nobody",
				"users":[],"site_id":"MLA","status":"active","name":"Nobody","date_created":"2026-11-20T12:00:00Z","pictures":[],
				"boost":{"is_active":false,"last_update":null},"relevance_position":0}`)

		// The contract's answers, in shape (b).
		a.Do("GET", "/users/999/brands", nil, brand...).Is(t, 404, errB(404, "U00002", "user not found: 999"))
		a.Do("GET", "/users/999/brands/5001", nil, brand...).Is(t, 404, errB(404, "U00002", "user not found: 999"))
		a.Do("GET", "/users/789/brands/50a1", nil, brand...).Is(t, 400, errB(400, "invalid_parameter", `brand_id must contain only digits, got "50a1"`))
		a.Do("GET", "/users/789/brands/-5", nil, brand...).Is(t, 400, errB(400, "invalid_parameter", `brand_id must contain only digits, got "-5"`))
		a.Do("GET", "/users/78x/brands", nil, brand...).Is(t, 400, errB(400, "invalid_parameter", `user_id must contain only digits, got "78x"`))
		a.Do("GET", "/users/789/brands/5009", nil, brand...).Is(t, 404, errB(404, "B00001", "brand 5009 not found for site MLA"))
		a.Do("GET", "/users/789/brands/5003", nil, brand...).Is(t, 404, errB(404, "B00001", "brand 5003 not found for site MLA"))
		a.Do("GET", "/users/789/brands/99999999999999999999", nil, brand...).Is(t, 404, errB(404, "B00001", "brand 0 not found for site MLA"))
		a.Do("GET", "/users/789/brands", nil).Is(t, 401, errB(401, "unauthorized", "access token required"))
		a.Do("GET", "/users/789/brands/5001", nil, apptest.Bearer("APP_USR-nope")...).Is(t, 401, errB(401, "unauthorized", "invalid access token"))
	})
}
