package messagingapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// world: seller 101 and buyer 201 share pack 1001 (order 9001); 301 is a
// stranger. Tokens are tok-<id>.
func world(t *testing.T, be apptest.Backend) *apptest.App {
	a := apptest.New(t, be)
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).OK(t, 200)
	user := func(id int) map[string]any {
		return map[string]any{"id": id, "nickname": fmt.Sprint("U", id), "site_id": "MLA", "access_token": fmt.Sprint("tok-", id)}
	}
	a.MustLoad(map[string]any{
		"users":      []any{user(101), user(201), user(301)},
		"categories": []any{map[string]any{"id": "MLA1", "site_id": "MLA", "name": "Cosas", "domain_id": "MLA-THINGS", "compatibilities": nil}},
		"items":      []any{map[string]any{"id": "MLA10", "site_id": "MLA", "seller_id": 101, "title": "Cosa", "category_id": "MLA1"}},
		"orders": []any{map[string]any{"id": 9001, "site_id": "MLA", "seller_id": 101, "buyer_id": 201, "pack_id": 1001, "status": "paid",
			"items": []any{map[string]any{"item_id": "MLA10", "quantity": 1, "unit_price": 100}}}},
	})
	return a
}

func TestConversation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := world(t, be)
		seller, buyer := apptest.Bearer("tok-101"), apptest.Bearer("tok-201")
		path := "/messages/packs/1001/sellers/101?tag=post_sale"
		a.Do("GET", path, nil, seller...).Is(t, 200, `{"paging":{"total":0,"offset":0,"limit":50},"messages":[]}`)
		var ids []string
		for i, text := range []string{"¿Razón social y CUIT?", "¿Y la dirección fiscal?"} {
			a.Sandbox("PUT", "/clock", map[string]any{"now": fmt.Sprintf("2026-11-20T12:0%d:00Z", i)}).OK(t, 200)
			var ans struct{ Message string }
			a.Do("POST", "/packs/1001/fiscal_documents/billing_info", map[string]string{"text": text}, seller...).JSON(t, &ans)
			ids = append(ids, strings.TrimSuffix(strings.TrimPrefix(ans.Message, "Message "), " sent to the buyer"))
		}
		msg := func(id, text, at string, first bool) string {
			return fmt.Sprintf(`{"id":%q,"site_id":"MLA","from":{"user_id":101},"to":{"user_id":201},"status":"available","text":%q,
				"message_date":{"received":%[3]q,"available":%[3]q,"notified":%[3]q,"created":%[3]q,"read":null},
				"message_moderation":{"status":"clean","reason":null},"message_attachments":null,
				"message_resources":[{"id":"1001","name":"packs"},{"id":"101","name":"sellers"}],"conversation_first_message":%t}`, id, text, at, first)
		}
		first, second := msg(ids[0], "¿Razón social y CUIT?", "2026-11-20T12:00:00Z", true), msg(ids[1], "¿Y la dirección fiscal?", "2026-11-20T12:01:00Z", false)
		both := `{"paging":{"total":2,"offset":0,"limit":50},"messages":[` + first + `,` + second + `]}`
		a.Do("GET", path, nil, seller...).Is(t, 200, both)
		a.Do("GET", path+"&mark_as_read=false", nil, buyer...).Is(t, 200, both)
		// feria's first path answers the same; tag may be left out.
		a.Do("GET", "/messages/packs/1001?mark_as_read=false", nil, buyer...).Is(t, 200, both)
		a.Do("GET", "/messages/packs/1001/sellers/101?limit=1&offset=1&access_token=tok-101", nil).Is(t, 200,
			`{"paging":{"total":2,"offset":1,"limit":1},"messages":[`+second+`]}`)

		// errors
		a.Do("GET", path, nil).Is(t, 403, apptest.Err(403, "access_token_not_granted", "access_token was not sent"))
		a.Do("GET", path, nil, apptest.Bearer("tok-nope")...).Is(t, 401, apptest.Err(401, "unauthorized", "invalid access token"))
		a.Do("GET", path, nil, apptest.Bearer("tok-301")...).Is(t, 403, apptest.Err(403, "forbidden", "caller is neither the seller nor the buyer of the pack"))
		a.Do("GET", "/messages/packs/1001/sellers/301?tag=post_sale", nil, buyer...).Is(t, 404, apptest.Err(404, "not_found", "pack 1001 has no conversation with seller 301"))
		a.Do("GET", "/messages/packs/4242/sellers/101?tag=post_sale", nil, seller...).Is(t, 404, apptest.Err(404, "not_found", "pack 4242 not found"))
		a.Do("GET", "/messages/packs/1001/sellers/x?tag=post_sale", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", `seller_id must be a positive integer, got "x"`, "seller_id", "seller_id must be a positive integer"))
		a.Do("GET", "/messages/packs/1001/sellers/101?tag=pre_sale", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", `tag must be post_sale, got "pre_sale"`, "tag", "tag must be post_sale"))
		a.Do("GET", "/messages/packs/1001/sellers/101?limit=-1", nil, seller...).Is(t, 400, apptest.Err(400, "bad_request", "limit must not be negative, got -1"))
	})
}
