package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"strings"

	"github.com/feria/feria/test/apptest"
)

// day sends the writes and reads of an integration's day through Prism:
// successes the generic calls cannot make.
func (v *validator) day() {
	v.strict = true
	defer func() { v.strict = false }()
	js := func(method, path, token string, body any) (int, []byte) {
		b, _ := json.Marshal(body)
		return v.send(method, path, token, "application/json", b)
	}
	st, b := js("POST", "/questions", prismBuyer, map[string]any{"item_id": "MLA1100", "text": "¿Tiene garantía?"})
	var q struct{ ID int64 }
	if err := json.Unmarshal(b, &q); err != nil || st != 200 && st != 201 {
		v.t.Fatalf("POST /questions: %d %s", st, b)
	}
	js("POST", "/answers", prismSeller, map[string]any{"question_id": q.ID, "text": "Sí, 12 meses."})
	js("POST", "/answers", prismSeller, map[string]any{"question_id": q.ID, "text": "Otra vez."})
	v.send("GET", fmt.Sprintf("/questions/%d", q.ID), prismBuyer, "", nil)
	v.send("GET", "/questions/search?item=MLA1100", prismSeller, "", nil)
	_, b = js("POST", "/questions", prismBuyer, map[string]any{"item_id": "MLA1100", "text": "¿Hacen envíos?"})
	if err := json.Unmarshal(b, &q); err == nil {
		v.send("DELETE", fmt.Sprintf("/questions/%d", q.ID), prismSeller, "", nil)
	}
	v.send("GET", "/questions/search?seller_id=123&status=UNANSWERED", prismSeller, "", nil)
	v.send("GET", "/users/123/questions/response_time", prismSeller, "", nil)
	js("POST", "/orders/2000001/notes", prismSeller, map[string]any{"note": "Llamar al comprador"})
	v.send("GET", "/orders/2000001/notes", prismSeller, "", nil)
	v.send("GET", "/orders/search?seller=123&sort=date_desc", prismSeller, "", nil)
	v.send("GET", "/orders/search?buyer=456", prismBuyer, "", nil)
	v.send("GET", "/users/123/items/search?tags=incomplete_compatibilities", prismSeller, "", nil)
	v.send("GET", "/sites/MLA/search?q=amortiguador", "", "", nil)
	v.send("GET", "/items?ids=MLA1100,MLA1101,MLA999999&attributes=id,title", "", "", nil)
	v.send("PUT", "/items?ids=MLA1100&attributes=status", prismSeller, "", nil)
	v.send("GET", "/users/123/shipping_options/free?dimensions=10x20x30,500&verbose=true", "", "", nil)
	v.send("GET", "/users/123/shipping_modes?category_id=MLA1747", "", "", nil)
	v.send("GET", "/items/MLA1102/shipping_options/free?verbose=true", "", "", nil)
	v.send("GET", "/items/shipping_options/free?ids=MLA1100,MLA1102,MLA1200", "", "", nil)
	v.send("GET", "/users/789/brands", "APP_USR-demo-brand", "", nil)
	v.send("GET", "/users/789/brands/5002", "APP_USR-demo-brand", "", nil)
	v.send("GET", "/items/MLA1100/compatibilities?extended=true", prismSeller, "", nil)
	js("POST", "/items/catalog_domains/MLA-CAR_SHOCK_ABSORBERS/compatibilities/cards", prismSeller,
		map[string]any{"item_id": "MLA1102", "filters": []string{"REPUTATION", "SUGGESTED"}})
	v.send("GET", "/compats-snapshots/orders/2000002", prismSeller, "", nil)
	js("POST", "/items/MLA1101/compatibilities", prismSeller, map[string]any{"products": []map[string]any{{"id": "MLA16000001"}}})
	js("POST", "/items/MLA1200/compatibilities", prismSeller, map[string]any{"item_to_copy": map[string]any{"item_id": "MLA1100", "extended_information": false}})
	js("PUT", "/items/MLA1101/compatibilities", prismSeller, map[string]any{"create": map[string]any{"products": []map[string]any{{"id": "MLA16000002"}}}})
	v.send("GET", "/items/MLA1101/compatibilities", prismSeller, "", nil)
	js("POST", "/items/compatibilities_summary", prismSeller, map[string]any{"domain_id": "MLA-CARS_AND_VANS", "items": []string{"MLA1100", "MLA1101"}})
	js("POST", "/catalog_compatibilities/products_search/count_family_products", "",
		map[string]any{"domain_id": "MLA-CARS_AND_VANS", "attributes": []map[string]string{{"id": "BRAND", "value_id": "9909"}}})
	v.compatibility()
	js("POST", "/catalog_domains/MLA-CAR_SHOCK_ABSORBERS/compatibilities/cards", prismSeller, map[string]any{"item_id": "MLA1102", "filters": []string{"REPUTATION"}})
	js("POST", "/items/MLA1100/compatibilities/exception", prismSeller, map[string]any{"comment": "No aplica"})
	v.send("GET", "/items/MLA1100/compatibilities/exception", prismSeller, "", nil)
	v.send("GET", "/catalog/dumps/domains/MLA/compatibilities", "", "", nil)
	js("POST", "/shipping/flex/sites/MLA/configuration/v3", prismSeller,
		map[string]any{"query": "{ configuration(user_id: 123, service_id: 3001) { delivery_window zones { id label selected } } }"})
	js("PUT", "/shipping/flex/sites/MLA/users/123/services/3001/configuration/coverage/zone/v3", prismSeller,
		map[string]any{"zones": []map[string]string{{"id": "Z2"}}})
	v.send("PUT", "/shipping/flex/sites/MLA/users/123/services/3001/configuration/delivery/custom/v3", prismSeller, "application/json",
		[]byte(`{"delivery_window":"same_day","delivery_ranges":{"week":[{"from":12,"to":16,"capacity":20,"cutoff":10}],"saturday":null,"sunday":null}}`))
	v.send("POST", "/sites/MLA/shipping/selfservice/items/MLA1100", prismSeller, "", nil)
	v.send("GET", "/sites/MLA/shipping/selfservice/items/MLA1100", prismSeller, "", nil)
	v.send("DELETE", "/sites/MLA/shipping/selfservice/items/MLA1100", prismSeller, "", nil)
	v.send("GET", "/flex/sites/MLA/shipments/40001/assignment/v1", prismSeller, "", nil)
	v.fiscal()
	v.send("GET", "/my/notifications", prismBuyer, "", nil)
	v.messages()
	v.send("GET", "/messages/packs/2000001234/sellers/123", prismSeller, "", nil)
	v.send("GET", "/health/ready", "", "", nil)
	app, _ := json.Marshal(map[string]any{"name": "my-integration", "owner_id": 123, "client_secret": "my-secret",
		"callback_url": "http://127.0.0.1:9/notifications", "redirect_uris": []string{"http://localhost:3000/callback"}})
	v.send("PUT", "/sandbox/applications/4242", "", "application/json", app, "X-Sandbox-Key", apptest.SandboxKey)
	v.send("GET", "/authorization?response_type=code&client_id=4242&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fcallback", "", "", nil)
	v.send("GET", "/missed_feeds?app_id=4242", prismSeller, "", nil)
	refresh := v.tokenPair()
	v.send("POST", "/oauth/token", "", "application/x-www-form-urlencoded",
		[]byte("grant_type=refresh_token&client_id=app&client_secret=secret&refresh_token="+refresh))
}

// fiscal uploads a PDF to the demo pack, reads it back, asks for billing
// data and reads the message.
func (v *validator) fiscal() {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="fiscal_document"; filename="invoice.pdf"`)
	h.Set("Content-Type", "application/pdf")
	part, _ := w.CreatePart(h)
	part.Write([]byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")) //nolint:errcheck // a buffer
	w.Close()
	st, b := v.send("POST", "/packs/2000001234/fiscal_documents", prismSeller, w.FormDataContentType(), buf.Bytes())
	var up struct {
		IDs []string `json:"ids"`
	}
	json.Unmarshal(b, &up) //nolint:errcheck // read below
	if st == 200 || st == 201 {
		for _, id := range up.IDs {
			v.send("GET", "/packs/2000001234/fiscal_documents/"+id, prismBuyer, "", nil)
		}
	}
	v.send("GET", "/packs/2000001234/fiscal_documents", prismBuyer, "", nil)
	body, _ := json.Marshal(map[string]string{"text": "Necesito tus datos de facturación"})
	_, b = v.send("POST", "/packs/2000001234/fiscal_documents/billing_info", prismSeller, "application/json", body)
	var sent struct{ Message string }
	json.Unmarshal(b, &sent) //nolint:errcheck // an empty message reads a 404
	if f := strings.Fields(sent.Message); len(f) > 1 {
		v.send("GET", "/messages/"+f[1], prismBuyer, "", nil)
	}
	v.send("DELETE", "/packs/2000001234/fiscal_documents", prismSeller, "", nil)
}

// messages uploads a file, sends it to the buyer with a message, and has
// the buyer read the conversation (marking it read) and the file.
func (v *validator) messages() {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, _ := w.CreateFormFile("file", "remito.txt")
	part.Write([]byte("Remito del pedido\n")) //nolint:errcheck // a buffer
	w.Close()
	_, b := v.send("POST", "/messages/attachments", prismSeller, w.FormDataContentType(), buf.Bytes())
	var file struct{ ID string }
	json.Unmarshal(b, &file) //nolint:errcheck // an empty id is refused below
	body, _ := json.Marshal(map[string]any{"from": map[string]any{"user_id": 123}, "to": map[string]any{"user_id": 456},
		"text": "Te envío el remito", "attachments": []string{file.ID}})
	v.send("POST", "/messages/packs/2000001234/sellers/123?tag=post_sale", prismSeller, "application/json", body)
	v.send("GET", "/messages/packs/2000001234/sellers/123?tag=post_sale&mark_as_read=true", prismBuyer, "", nil)
	v.send("GET", "/messages/packs/2000001234?mark_as_read=false", prismSeller, "", nil)
	v.send("GET", "/messages/attachments/"+file.ID, prismBuyer, "", nil)
}

// tokenPair asks the sandbox, through Prism, for a token pair of the seller
// and returns its refresh token.
func (v *validator) tokenPair() string {
	st, b := v.send("POST", "/sandbox/users/123/tokens", "", "", nil, "X-Sandbox-Key", apptest.SandboxKey)
	var pair struct {
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal(b, &pair); err != nil || st != 200 && st != 201 {
		v.t.Fatalf("POST /sandbox/users/123/tokens: %d %s", st, b)
	}
	return pair.RefreshToken
}

// compatibility reads the compatibility the day created, its note, and
// deletes it.
func (v *validator) compatibility() {
	st, b := v.send("GET", "/items/MLA1101/compatibilities", prismSeller, "", nil)
	var list struct {
		Products []struct {
			ID string `json:"id"`
		} `json:"products"`
	}
	if err := json.Unmarshal(b, &list); err != nil || st != 200 || len(list.Products) == 0 {
		v.t.Logf("GET /items/MLA1101/compatibilities: %d %.300s", st, b)
		return
	}
	id := list.Products[0].ID
	v.send("GET", "/items/MLA1101/compatibilities/"+id, prismSeller, "", nil)
	v.send("GET", "/items/MLA1101/compatibilities/"+id+"/note", prismSeller, "", nil)
	v.send("DELETE", "/items/MLA1101/compatibilities/"+id, prismSeller, "", nil)
}
