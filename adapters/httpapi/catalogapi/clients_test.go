package catalogapi_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/feria/feria/adapters/httpapi/catalogapi"
	"github.com/feria/feria/test/apptest"
)

// scroll is the scroll_id feria issues for a position: the JSON of the
// scroll, base64url without padding (docs/decisions.md).
func scroll(position string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(position))
}

func TestScan(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		seller := apptest.Bearer("APP_USR-seller")
		s1, s2 := scroll(`{"s":123,"a":"MLA1101"}`), scroll(`{"s":123,"a":"MLA1103"}`)
		a.Do("GET", "/users/123/items/search?search_type=scan&limit=2", nil, seller...).Is(t, 200,
			`{"seller_id":"123","results":["MLA1100","MLA1101"],"paging":{"limit":2,"offset":0,"total":4},"query":null,"scroll_id":"`+s1+`"}`)
		a.Do("GET", "/users/123/items/search?search_type=scan&limit=2&scroll_id="+s1, nil, seller...).Is(t, 200,
			`{"seller_id":"123","results":["MLA1102","MLA1103"],"paging":{"limit":2,"offset":0,"total":4},"query":null,"scroll_id":"`+s2+`"}`)
		// The last block is empty and carries no scroll_id.
		a.Do("GET", "/users/123/items/search?search_type=scan&limit=2&scroll_id="+s2, nil, seller...).Is(t, 200,
			`{"seller_id":"123","results":[],"paging":{"limit":2,"offset":0,"total":4},"query":null,"scroll_id":null}`)
		// A scroll_id carries its query: the status of the first call holds
		// without being repeated, and scroll_id alone means a scan.
		active := scroll(`{"s":123,"st":"active","a":"MLA1100"}`)
		a.Do("GET", "/users/123/items/search?search_type=scan&status=active&limit=1", nil, seller...).Is(t, 200,
			`{"seller_id":"123","results":["MLA1100"],"paging":{"limit":1,"offset":0,"total":3},"query":null,"scroll_id":"`+active+`"}`)
		a.Do("GET", "/users/123/items/search?limit=5&scroll_id="+active, nil, seller...).Is(t, 200,
			`{"seller_id":"123","results":["MLA1101","MLA1102"],"paging":{"limit":5,"offset":0,"total":3},"query":null,"scroll_id":"`+
				scroll(`{"s":123,"st":"active","a":"MLA1102"}`)+`"}`)
		a.Do("GET", "/users/123/items/search?search_type=scan&tags=incomplete_compatibilities&access_token=APP_USR-seller", nil).Is(t, 200,
			`{"seller_id":"123","results":["MLA1100","MLA1101","MLA1102","MLA1103"],"paging":{"limit":50,"offset":0,"total":4},"query":null,"scroll_id":"`+
				scroll(`{"s":123,"t":["incomplete_compatibilities"],"a":"MLA1103"}`)+`"}`)
		// An offset is not read by a scan.
		a.Do("GET", "/users/123/items/search?search_type=scan&limit=1&offset=3", nil, seller...).Is(t, 200,
			`{"seller_id":"123","results":["MLA1100"],"paging":{"limit":1,"offset":0,"total":4},"query":null,"scroll_id":"`+scroll(`{"s":123,"a":"MLA1100"}`)+`"}`)

		// errors
		bad := func(why string) string {
			return apptest.Err(400, "bad_request", "invalid scroll_id: "+why, "scroll_id", why)
		}
		a.Do("GET", "/users/123/items/search?scroll_id=nope!", nil, seller...).Is(t, 400, bad("it is not a scroll_id this service issued"))
		a.Do("GET", "/users/123/items/search?scroll_id="+scroll(`{"s":123}`), nil, seller...).Is(t, 400, bad("it is not a scroll_id this service issued"))
		a.Do("GET", "/users/124/items/search?scroll_id="+s1, nil, apptest.Bearer("APP_USR-other")...).Is(t, 400, bad("it belongs to the scan of another seller"))
		a.Do("GET", "/users/123/items/search?search_type=scan&limit=0", nil, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", "limit must be between 1 and 200 with search_type=scan, got 0", "limit", "limit must be between 1 and 200 with search_type=scan, got 0"))
		a.Do("GET", "/users/123/items/search?search_type=full", nil, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", `search_type must be scan, got "full"`, "search_type", `search_type must be scan, got "full"`))
		a.Do("GET", "/users/123/items/search?search_type=scan&tags=shiny", nil, seller...).Is(t, 400,
			apptest.Err(400, "bad_request", `tags must be incomplete_compatibilities or pending_compatibilities, got "shiny"`, "tags", `tags must be incomplete_compatibilities or pending_compatibilities, got "shiny"`))
		a.Do("GET", "/users/123/items/search?search_type=scan", nil, apptest.Bearer("APP_USR-other")...).Is(t, 403,
			`{"message":"the caller (user 124) may only search its own items, not those of seller 123","error":"forbidden","status":403,"cause":[]}`)
		a.Do("GET", "/users/123/items/search?search_type=scan", nil).Is(t, 401, apptest.Err(401, "unauthorized", "access token required"))
	})
}

// A loop written for the marketplace (scan until a block comes back empty)
// ends and sees every item once; an item added meanwhile behind its
// position is not seen (the scan moves on by id).
func TestScanLoopEnds(t *testing.T) {
	a := apptest.NewSample(t, apptest.Embedded)
	items := []any{}
	for i := 0; i < 23; i++ {
		items = append(items, apptest.Item(fmt.Sprintf("MLA2%03d", i), "", "active"))
	}
	a.MustLoad(map[string]any{"items": items})
	var seen []string
	next := ""
	for calls := 0; ; calls++ {
		if calls > 20 {
			t.Fatal("the scan does not end")
		}
		var block struct {
			Results  []string `json:"results"`
			ScrollID *string  `json:"scroll_id"`
		}
		a.Do("GET", "/users/123/items/search?search_type=scan&limit=5&scroll_id="+next, nil, apptest.Bearer("APP_USR-seller")...).JSON(t, &block)
		if len(block.Results) == 0 {
			break
		}
		seen = append(seen, block.Results...)
		next = *block.ScrollID
		if calls == 1 {
			a.MustLoad(map[string]any{"items": []any{apptest.Item("MLA1000", "", "active")}}) // before the position
		}
	}
	want := []string{"MLA1100", "MLA1101", "MLA1102", "MLA1103"}
	for i := 0; i < 23; i++ {
		want = append(want, fmt.Sprintf("MLA2%03d", i))
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("scanned (-want +got):\n%s", diff)
	}
}

func TestSiteSearch(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		a.MustLoad(map[string]any{"categories": []any{
			map[string]any{"id": "MLB1000", "site_id": "MLB", "name": "Outros", "domain_id": "MLB-OTHERS", "compatibilities": nil},
		}, "items": []any{
			map[string]any{"id": "MLA3000", "site_id": "MLA", "seller_id": 124, "title": "Bujía de encendido NGK", "category_id": "MLA1000",
				"price": 2500.5, "available_quantity": 7, "official_store_id": nil, "shipping": map[string]any{"mode": "me2", "free_shipping": true, "logistic_type": "cross_docking"}},
			map[string]any{"id": "MLB3000", "site_id": "MLB", "seller_id": 900, "title": "Bujia de ignição", "category_id": "MLB1000"},
		}})
		a.Do("GET", "/sites/MLA/search?q=BUJIA", nil).Is(t, 200, `{"site_id":"MLA","query":"BUJIA","paging":{"total":1,"offset":0,"limit":50},"results":[
			{"id":"MLA3000","site_id":"MLA","title":"Bujía de encendido NGK","seller":{"id":124},"price":2500.5,"currency_id":"ARS",
			 "available_quantity":7,"condition":"new","listing_type_id":"gold_special","category_id":"MLA1000","domain_id":"MLA-OTHERS",
			 "official_store_id":null,"catalog_product_id":null,"shipping":{"mode":"me2","free_shipping":true,"logistic_type":"cross_docking"}}]}`)
		// Only active items; word prefixes; paged.
		ids := func(path string) string {
			var v struct {
				Paging  map[string]int `json:"paging"`
				Results []struct {
					ID string `json:"id"`
				} `json:"results"`
			}
			r := a.Do("GET", path, nil)
			r.JSON(t, &v)
			out := []string{}
			for _, x := range v.Results {
				out = append(out, x.ID)
			}
			return fmt.Sprintf("%d %v %v", r.Status, v.Paging, out)
		}
		for path, want := range map[string]string{
			"/sites/MLA/search?q=amortiguador":                  "200 map[limit:50 offset:0 total:3] [MLA1100 MLA1101 MLA1102]",
			"/sites/MLA/search?q=amort%20mla1101":               "200 map[limit:50 offset:0 total:1] [MLA1101]",
			"/sites/MLA/search?q=amortiguador&limit=1&offset=1": "200 map[limit:1 offset:1 total:3] [MLA1101]",
			"/sites/MLA/search?q=tiguador":                      "200 map[limit:50 offset:0 total:0] []",
			"/sites/MLA/search?q=amortiguador&seller_id=124":    "200 map[limit:50 offset:0 total:0] []",
			"/sites/MLA/search?category=MLA1000":                "200 map[limit:50 offset:0 total:1] [MLA3000]",
			"/sites/MLA/search":                                 "200 map[limit:50 offset:0 total:4] [MLA1100 MLA1101 MLA1102 MLA3000]",
			"/sites/MLB/search?q=bujia":                         "200 map[limit:50 offset:0 total:1] [MLB3000]",
			"/sites/MLM/search?q=bujia":                         "200 map[limit:50 offset:0 total:0] []",
		} {
			if got := ids(path); got != want {
				t.Errorf("%s: %s, want %s", path, got, want)
			}
		}
		a.Do("GET", "/sites/MLA/search?q=zzz", nil).Is(t, 200, `{"site_id":"MLA","query":"zzz","paging":{"total":0,"offset":0,"limit":50},"results":[]}`)
		a.Do("GET", "/sites/MLA/search?limit=0", nil).Is(t, 200, `{"site_id":"MLA","query":null,"paging":{"total":4,"offset":0,"limit":0},"results":[]}`)
		// A token is not needed and not read.
		a.Do("GET", "/sites/MLA/search?q=bujia", nil, apptest.Bearer("APP_USR-nope")...).HasStatus(t, 200)

		// errors
		a.Do("GET", "/sites/XXX/search?q=a", nil).Is(t, 400, apptest.Err(400, "bad_request",
			`site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XXX"`, "site_id", `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XXX"`))
		a.Do("GET", "/sites/MLA/search?limit=201", nil).Is(t, 400, apptest.Err(400, "bad_request", "limit must be at most 200, got 201"))
		a.Do("GET", "/sites/MLA/search?seller_id=x", nil).Is(t, 400, apptest.Err(400, "bad_request", `seller_id must be a positive integer, got "x"`, "seller_id", "seller_id must be a positive integer"))
	})
}

func TestMultiGet(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		notFound := `{"code":404,"body":{"message":"item not found","error":"not_found","status":404,"cause":[]}}`
		a.Do("GET", "/items?ids=MLA1100,MLA4242&attributes=id,title", nil).Is(t, 200,
			`[{"code":200,"body":{"id":"MLA1100","title":"Amortiguador MLA1100"}},`+notFound+`]`)
		// The id is always answered; unknown attributes are ignored; blanks
		// dropped; an id asked twice is answered twice; a malformed id is a 404
		// as GET /items/{id} answers it.
		a.Do("GET", "/items?ids=MLA1103,,MLA1103,xyz,&attributes=status,%20price,nope", nil).Is(t, 200,
			`[{"code":200,"body":{"id":"MLA1103","status":"paused","price":15000}},{"code":200,"body":{"id":"MLA1103","status":"paused","price":15000}},`+notFound+`]`)
		// Without attributes, each body is exactly GET /items/{id}.
		var multi []struct {
			Code int             `json:"code"`
			Body json.RawMessage `json:"body"`
		}
		a.Do("GET", "/items?ids=MLA1101,MLA1102", nil).JSON(t, &multi)
		for i, id := range []string{"MLA1101", "MLA1102"} {
			var got, want any
			if err := json.Unmarshal(multi[i].Body, &got); err != nil {
				t.Fatal(err)
			}
			a.Do("GET", "/items/"+id, nil).JSON(t, &want)
			if multi[i].Code != 200 || !cmp.Equal(got, want) {
				t.Errorf("%s: %d %s", id, multi[i].Code, cmp.Diff(want, got))
			}
		}
		ids := strings.TrimSuffix(strings.Repeat("MLA1100,", catalogapi.MaxItemIDs), ",")
		if r := a.Do("GET", "/items?attributes=id&ids="+ids, nil).HasStatus(t, 200); strings.Count(string(r.Body), `"code":200`) != catalogapi.MaxItemIDs {
			t.Errorf("%d ids: %d %s", catalogapi.MaxItemIDs, r.Status, r.Body)
		}

		// errors
		a.Do("GET", "/items?ids="+ids+",MLA1101", nil).Is(t, 400, apptest.Err(400, "bad_request", "at most 20 ids per request, got 21", "ids", "too many ids"))
		a.Do("GET", "/items?ids=,", nil).Is(t, 400, apptest.Err(400, "bad_request", "ids is required", "ids", "ids is required: comma-separated item ids"))
		a.Do("GET", "/items", nil).Is(t, 400, apptest.Err(400, "bad_request", "ids is required", "ids", "ids is required: comma-separated item ids"))
		a.Do("PUT", "/items?ids="+ids+",MLA1101", nil).Is(t, 400, apptest.Err(400, "bad_request", "at most 20 ids per request, got 21", "ids", "too many ids"))
	})
}
