package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/adapters/redisstore/controlredis"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/test/apptest"
)

// demo reads the demo world of deploy/demo/fixtures.json.
func demo(t *testing.T) (raw []byte, world map[string][]map[string]any) {
	t.Helper()
	raw, err := os.ReadFile("../../deploy/demo/fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &world); err != nil {
		t.Fatal(err)
	}
	return raw, world
}

// sandboxPath is where each fixtures collection is read back.
var sandboxPath = map[string]string{
	"users": "users", "categories": "categories", "domains": "domains", "products": "products", "items": "items",
	"orders": "orders", "brands": "brands", "flex_subscriptions": "flex/subscriptions", "shipments": "shipments",
	"contact_events": "contact_events", "visit_events": "visit_events",
}

// sameInstant reports whether two ISO 8601 strings name the same instant:
// dates given with an offset read back in UTC.
func sameInstant(a, b any) bool {
	as, ok1 := a.(string)
	bs, ok2 := b.(string)
	if !ok1 || !ok2 {
		return false
	}
	at, err1 := time.Parse(time.RFC3339, as)
	bt, err2 := time.Parse(time.RFC3339, bs)
	return err1 == nil && err2 == nil && at.Equal(bt)
}

func idOf(v any) string {
	if f, ok := v.(float64); ok {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprint(v)
}

func TestDemoWorldRoundTrip(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		raw, world := demo(t)
		r := a.Sandbox("POST", "/fixtures", raw)
		r.HasStatus(t, 200)
		var loaded struct {
			Loaded map[string]int `json:"loaded"`
		}
		r.JSON(t, &loaded)
		for name, entries := range world {
			if loaded.Loaded[name] != len(entries) {
				t.Errorf("loaded %s: %d, want %d", name, loaded.Loaded[name], len(entries))
			}
		}

		// Every resource reads back through the sandbox with the scalar
		// fields it was given (tokens and the subscription's status,
		// which the API shows as an object, aside).
		for name, entries := range world {
			for _, e := range entries {
				id := idOf(e["id"])
				r := a.Sandbox("GET", "/"+sandboxPath[name]+"/"+id, nil)
				if r.Status != 200 {
					t.Errorf("GET %s/%s: %d %s", name, id, r.Status, r.Body)
					continue
				}
				var got map[string]any
				r.JSON(t, &got)
				for k, want := range e {
					switch k {
					case "id", "access_token", "expires_in", "status":
						continue
					}
					if _, scalar := want.(map[string]any); scalar {
						continue
					}
					if _, list := want.([]any); list {
						continue
					}
					if g, ok := got[k]; ok && !reflect.DeepEqual(g, want) && !sameInstant(g, want) {
						t.Errorf("%s/%s.%s: %v, want %v", name, id, k, g, want)
					}
				}
			}
		}
		var sub struct {
			Status struct {
				ID string `json:"id"`
			} `json:"status"`
		}
		a.Sandbox("GET", "/flex/subscriptions/3001", nil).JSON(t, &sub)
		if sub.Status.ID != "in" {
			t.Errorf("subscription status: %+v", sub)
		}

		// The public API reads the items, and the seller's search finds
		// the item that must report compatibilities.
		for _, e := range world["items"] {
			r := a.Do("GET", "/items/"+e["id"].(string), nil)
			var it map[string]any
			r.JSON(t, &it)
			r.HasStatus(t, 200)
			if it["id"] != e["id"] || it["title"] != e["title"] {
				t.Errorf("GET /items/%s: %d %s", e["id"], r.Status, r.Body)
			}
		}
		var it struct {
			Tags     []string       `json:"tags"`
			Shipping map[string]any `json:"shipping"`
		}
		a.Do("GET", "/items/MLA1101", nil).JSON(t, &it)
		if !contains(it.Tags, "incomplete_compatibilities") {
			t.Errorf("MLA1101 tags: %v", it.Tags)
		}
		it.Shipping = nil // json merges into an existing map
		a.Do("GET", "/items/MLA1102", nil).JSON(t, &it)
		if _, ok := it.Shipping["methods"]; ok || it.Shipping["free_methods"] == nil {
			t.Errorf("free shipping item: free_methods must replace methods: %v", it.Shipping)
		}
		r = a.Do("GET", "/users/123/items/search?tags=incomplete_compatibilities&status=active", nil, apptest.Bearer("APP_USR-demo-seller")...)
		var search struct {
			SellerID string   `json:"seller_id"`
			Results  []string `json:"results"`
		}
		r.JSON(t, &search)
		r.HasStatus(t, 200)
		if search.SellerID != "123" || !contains(search.Results, "MLA1101") || contains(search.Results, "MLA1200") {
			t.Errorf("search: %d %s", r.Status, r.Body)
		}
		if r := a.Do("PUT", "/items?ids=MLA1100&attributes=status", nil).HasStatus(t, 200); string(r.Body) != `[{"id":"MLA1100","status":"active"}]` {
			t.Errorf("status check: %d %s", r.Status, r.Body)
		}

		// Reset: nothing is left.
		ctx := context.Background()
		if err := a.Deps.Blobs.Put(ctx, "e2e/probe.txt", strings.NewReader("x"), 1, "text/plain"); err != nil {
			t.Fatal(err)
		}
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"})
		a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
		assertEmpty(t, a)
		if _, err := a.Deps.Blobs.Get(ctx, "e2e/probe.txt"); err == nil {
			t.Errorf("a stored file survived the reset")
		}
		if r := a.Sandbox("GET", "/clock", nil); !strings.Contains(string(r.Body), `"frozen":false`) {
			t.Errorf("clock after reset: %s", r.Body)
		}
		a.Do("GET", "/items/MLA1100", nil).HasStatus(t, 404)
		a.Do("GET", "/users/123/items/search", nil, apptest.Bearer("APP_USR-demo-seller")...).HasStatus(t, 401)
	})
}

// assertEmpty checks that every table (but bun's bookkeeping) is empty and
// that Redis holds nothing but asynq's own keys.
func assertEmpty(t *testing.T, a *apptest.App) {
	t.Helper()
	ctx := context.Background()
	db := a.Deps.DB
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if sqlstore.IsPostgres(db) {
		q = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
	}
	var tables []string
	if err := db.NewRaw(q).Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	if len(tables) < 10 {
		t.Fatalf("only %d tables found: %v", len(tables), tables)
	}
	for _, table := range tables {
		if strings.HasPrefix(table, "bun_migration") {
			continue
		}
		var n int
		if err := db.NewRaw("SELECT COUNT(*) FROM "+table).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("table %s has %d rows after the reset", table, n)
		}
	}
	keys, err := a.Deps.Redis.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		// The coverage's start is what a reset writes: the instant counting
		// starts afresh (docs/sandbox.md, "Coverage").
		if !strings.HasPrefix(k, "asynq:") && k != controlredis.DefaultPrefix+"coverage:since" {
			t.Errorf("redis key %q survived the reset", k)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestFixturesWithABadEntryChangeNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		raw, _ := demo(t)
		a.MustLoad(raw)
		before := a.Do("GET", "/items/MLA1100", nil)
		good := func(id string) map[string]any {
			return map[string]any{"id": id, "site_id": "MLA", "seller_id": 123, "title": "Nuevo " + id, "category_id": "MLA1747", "price": 10}
		}
		bad := good("MLA1301")
		bad["category_id"] = "MLA4242"
		changed := good("MLA1100")
		r := a.Sandbox("POST", "/fixtures", map[string]any{
			"users": []any{map[string]any{"id": 1000, "nickname": "NEW", "site_id": "MLA"}},
			"items": []any{changed, bad, good("MLA1302")},
		})
		want := `{"message":"items[1]: category MLA4242 does not exist","error":"bad_request","status":400,"cause":[` +
			`{"code":"items[1]","message":"category MLA4242 does not exist"},{"code":"items[1].category_id","message":"category MLA4242 does not exist"}]}`
		r.HasStatus(t, 400)
		if string(r.Body) != want {
			t.Errorf("bad fixtures:\n got %d %s\nwant 400 %s", r.Status, r.Body, want)
		}
		for _, p := range []string{"/users/1000", "/items/MLA1301", "/items/MLA1302"} {
			a.Sandbox("GET", p, nil).HasStatus(t, 404)
		}
		if after := a.Do("GET", "/items/MLA1100", nil); string(after.Body) != string(before.Body) {
			t.Errorf("MLA1100 changed by a refused load:\n%s\n%s", before.Body, after.Body)
		}
		r = a.Sandbox("POST", "/fixtures", map[string]any{"items": []any{map[string]any{"id": "MLA1303", "site_id": "MLA", "seller_id": "123"}}})
		r.HasStatus(t, 400)
		if !strings.Contains(string(r.Body), `"code":"items[0].seller_id"`) {
			t.Errorf("wrong type in fixtures: %d %s", r.Status, r.Body)
		}
	})
}

func TestTokensThroughBothCarriers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		raw, _ := demo(t)
		a.MustLoad(raw)
		const path = "/users/123/items/search"
		status := func(token string) (bearer, query int) {
			t.Helper()
			return a.Do("GET", path, nil, apptest.Bearer(token)...).Status,
				a.Do("GET", path+"?access_token="+url.QueryEscape(token), nil).Status
		}
		check := func(what, token string, want int) {
			t.Helper()
			if b, q := status(token); b != want || q != want {
				t.Errorf("%s: bearer %d, query %d, want %d", what, b, q, want)
			}
		}
		check("fixed token", "APP_USR-demo-seller", 200)
		check("unknown token", "APP_USR-unknown", 401)
		check("another user's token", "APP_USR-demo-buyer", 403)

		var g struct {
			AccessToken string `json:"access_token"`
			TokenType   string `json:"token_type"`
			ExpiresIn   int    `json:"expires_in"`
			UserID      int64  `json:"user_id"`
		}
		r := a.Sandbox("POST", "/users/123/tokens", map[string]any{"expires_in": 60})
		r.JSON(t, &g)
		r.HasStatus(t, 201)
		if !strings.HasPrefix(g.AccessToken, "APP_USR-") || g.TokenType != "bearer" || g.ExpiresIn != 60 || g.UserID != 123 {
			t.Fatalf("issue: %d %s", r.Status, r.Body)
		}
		check("generated token", g.AccessToken, 200)

		// Expired: the sandbox clock moves past its lifetime.
		later := time.Now().UTC().Add(2 * time.Minute).Format(time.RFC3339)
		a.Sandbox("PUT", "/clock", map[string]any{"now": later}).HasStatus(t, 200)
		check("expired token", g.AccessToken, 401)
		check("fixed token, still alive", "APP_USR-demo-seller", 200)
		a.Sandbox("PUT", "/clock", map[string]any{"now": nil})
		check("token back within its lifetime", g.AccessToken, 200)

		// Expired in real time: expires_in 1, then wait.
		var short struct {
			AccessToken string `json:"access_token"`
		}
		a.Sandbox("POST", "/users/123/tokens", map[string]any{"expires_in": 1}).JSON(t, &short)
		check("one-second token", short.AccessToken, 200)
		time.Sleep(1100 * time.Millisecond)
		check("one-second token after a second", short.AccessToken, 401)

		// Revoked.
		a.Sandbox("DELETE", "/tokens/"+url.PathEscape(g.AccessToken), nil).HasStatus(t, 204)
		check("revoked token", g.AccessToken, 401)
		a.Sandbox("DELETE", "/tokens/APP_USR-never-issued", nil).HasStatus(t, 404)
	})
}

func TestOAuthRefresh(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		raw, _ := demo(t)
		a.MustLoad(raw)
		post := func(form url.Values) apptest.Response {
			req := httptest.NewRequest("POST", "/oauth/token", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return a.Send(req)
		}
		var issued struct {
			RefreshToken string `json:"refresh_token"`
		}
		a.Sandbox("POST", "/users/123/tokens", nil).JSON(t, &issued)
		if !strings.HasPrefix(issued.RefreshToken, "TG-") {
			t.Fatalf("refresh token: %q", issued.RefreshToken)
		}
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {issued.RefreshToken},
			"client_id": {"123456"}, "client_secret": {"any-secret"}}
		r := post(form)
		var g map[string]any
		r.JSON(t, &g)
		r.HasStatus(t, 200)
		keys := []string{}
		for k := range g {
			keys = append(keys, k)
		}
		want := map[string]any{"token_type": "bearer", "expires_in": float64(21600), "scope": "offline_access read write", "user_id": float64(123)}
		for k, v := range want {
			if g[k] != v {
				t.Errorf("refresh answer %s: %v, want %v", k, g[k], v)
			}
		}
		access, _ := g["access_token"].(string)
		next, _ := g["refresh_token"].(string)
		if len(g) != 6 || !strings.HasPrefix(access, "APP_USR-") || !strings.HasPrefix(next, "TG-") || next == issued.RefreshToken {
			t.Errorf("refresh answer: %s", r.Body)
		}
		a.Do("GET", "/users/123/items/search", nil, apptest.Bearer(access)...).HasStatus(t, 200)
		used := `{"error_description":"Error validating grant. Your authorization code or refresh token may be expired or it was already used","error":"invalid_grant","status":400,"cause":[]}`
		if r := post(form).HasStatus(t, 400); string(r.Body) != used {
			t.Errorf("reuse:\n got %d %s\nwant 400 %s", r.Status, r.Body, used)
		}
		form.Set("refresh_token", "TG-unknown")
		if r := post(form).HasStatus(t, 400); string(r.Body) != used {
			t.Errorf("unknown refresh token: %d %s", r.Status, r.Body)
		}
		form.Set("refresh_token", next)
		post(form).HasStatus(t, 200)
		form.Del("refresh_token")
		if r := post(form).HasStatus(t, 400); string(r.Body) != `{"error_description":"the request is missing a required parameter, includes an unsupported parameter or parameter value, there is some duplicated value or is otherwise malformed.","error":"invalid_request","status":400,"cause":[]}` {
			t.Errorf("missing refresh token: %d %s", r.Status, r.Body)
		}
		form.Set("grant_type", "password")
		if r := post(form).HasStatus(t, 400); string(r.Body) != `{"error_description":"the values allowed for grant_type are “authorization_code” or “refresh_token”.","error":"unsupported_grant_type","status":400,"cause":[]}` {
			t.Errorf("other grant type: %d %s", r.Status, r.Body)
		}
	})
}

// TestDemoScript runs the three steps of deploy/scripts/run-demo.sh (load the
// fixtures, the seller declares MLA1100's vehicles, the claim order 2000002 is
// stored) and checks the world the README's curl lines then show.
func TestDemoScript(t *testing.T) {
	read := func(t *testing.T, name string) []byte {
		t.Helper()
		raw, err := os.ReadFile("../../deploy/demo/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	seller := apptest.Bearer("APP_USR-demo-seller")
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		a.Sandbox("POST", "/fixtures", read(t, "fixtures.json")).HasStatus(t, 200)
		if r := a.Do("POST", "/items/MLA1100/compatibilities", read(t, "compatibilities.json"), seller...); r.Status/100 != 2 {
			t.Fatalf("compatibilities: %d %s", r.Status, r.Body)
		}
		a.Sandbox("PUT", "/orders/2000002", read(t, "claim-order.json")).HasStatus(t, 200)

		var item struct {
			Tags       []string `json:"tags"`
			Attributes []struct {
				ID string `json:"id"`
			} `json:"attributes"`
		}
		a.Do("GET", "/items/MLA1100", nil).HasStatus(t, 200).JSON(t, &item)
		has := false
		for _, at := range item.Attributes {
			has = has || at.ID == "HAS_COMPATIBILITIES"
		}
		if !has {
			t.Errorf("MLA1100 lacks HAS_COMPATIBILITIES: %+v", item.Attributes)
		}
		item.Tags = nil
		a.Do("GET", "/items/MLA1102", nil).JSON(t, &item)
		if !contains(item.Tags, "pending_compatibilities") {
			t.Errorf("MLA1102 tags: %v, want pending_compatibilities", item.Tags)
		}

		for order, want := range map[string]string{"2000002": "CONFIRMED", "2000001": "INCOMPATIBLE"} {
			r := a.Do("GET", "/compats-snapshots/orders/"+order, nil, seller...)
			var snap struct {
				CompatibilityStatus struct {
					Compatibility   string `json:"compatibility"`
					CompatibilityID string `json:"compatibility_id"`
				} `json:"compatibility_status"`
			}
			r.JSON(t, &snap)
			r.HasStatus(t, 200)
			if snap.CompatibilityStatus.Compatibility != want {
				t.Errorf("snapshot of order %s: %d %s, want %s", order, r.Status, r.Body, want)
			}
			if want == "CONFIRMED" && snap.CompatibilityStatus.CompatibilityID == "" {
				t.Errorf("confirmed snapshot of order %s names no compatibility: %s", order, r.Body)
			}
		}
	})
}
