package e2e

import (
	"bytes"
	"mime/multipart"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// Clients retry every 5xx, POSTs included, so a 5xx must never have
// written anything. Each write path below runs on the demo world three
// times: once to find the tables it writes, then, on each database, once
// per such table with that table's writes failing (a trigger: the database
// breaks in the middle of the change, after validation): the answer must be
// a 5xx and the whole state (every row, every Redis key, every stored
// file) as it was. A last run without failure proves the path still works.
func TestServerErrorsWriteNothing(t *testing.T) {
	t.Parallel() // its paths' runs compute beside the tests that wait, not before them
	for _, p := range writePaths() {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel() // mostly waiting on PostgreSQL's schema setup
			probe := demoApp(t, apptest.Embedded)
			vars := p.prepare(t, probe)
			before := probe.State(t)
			p.do(t, probe, vars).HasStatus(t, p.ok) // the path works
			var tables []string
			for _, k := range before.Changed(probe.State(t)) {
				if name, ok := strings.CutPrefix(k, "table "); ok {
					tables = append(tables, name)
				}
			}
			if len(tables) == 0 {
				t.Fatalf("the path wrote no table: %v", before.Changed(probe.State(t)))
			}
			apptest.Each(t, func(t *testing.T, be apptest.Backend) {
				a := demoApp(t, be)
				vars := p.prepare(t, a)
				for _, table := range tables {
					before := a.State(t)
					undo := a.FailWrites(t, table)
					r := p.do(t, a, vars)
					undo()
					if r.Status < 500 {
						t.Errorf("writes of %s failing: %d %s, want a 5xx", table, r.Status, r.Body)
					}
					if changed := before.Changed(a.State(t)); len(changed) > 0 {
						t.Errorf("writes of %s failing (%d): %v changed", table, r.Status, changed)
					}
				}
				if r := p.do(t, a, vars); r.Status != p.ok {
					t.Errorf("after the failures: %d %s", r.Status, r.Body)
				}
			})
		})
	}
}

// demoApp is a feria with the demo world and a frozen clock.
func demoApp(t *testing.T, be apptest.Backend) *apptest.App {
	t.Helper()
	a := apptest.New(t, be)
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).OK(t, 200)
	raw, err := os.ReadFile("../../deploy/demo/fixtures.json")
	if err != nil {
		t.Fatal(err)
	}
	a.MustLoad(raw)
	return a
}

type writePath struct {
	name string
	// prepare brings the world to where the path applies and returns the
	// values do needs (ids, codes).
	prepare func(t *testing.T, a *apptest.App) map[string]string
	do      func(t *testing.T, a *apptest.App, vars map[string]string) apptest.Response
	ok      int
}

const (
	demoSeller = "APP_USR-demo-seller"
	demoBuyer  = "APP_USR-demo-buyer"
	demoPack   = "/packs/2000001234/fiscal_documents"
)

func nothing(*testing.T, *apptest.App) map[string]string { return nil }

// as sends a JSON request with a bearer token.
func as(token, method, path, body string) func(*testing.T, *apptest.App, map[string]string) apptest.Response {
	return func(_ *testing.T, a *apptest.App, _ map[string]string) apptest.Response {
		var b any
		if body != "" {
			b = body
		}
		return a.Do(method, path, b, apptest.Bearer(token)...)
	}
}

// sandbox sends a sandbox request.
func sandbox(method, path, body string) func(*testing.T, *apptest.App, map[string]string) apptest.Response {
	return func(_ *testing.T, a *apptest.App, _ map[string]string) apptest.Response {
		var b any
		if body != "" {
			b = body
		}
		return a.Sandbox(method, path, b)
	}
}

func uploadPDFTo(a *apptest.App, path, token string) apptest.Response {
	contentType, body := pdfForm(docPDF)
	req := httptest.NewRequest("POST", path, body)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+token)
	return a.Send(req)
}

const demoConversation = "/messages/packs/2000001234/sellers/123?tag=post_sale"

// uploadAttachment uploads a text file for a message of the demo seller.
func uploadAttachment(a *apptest.App) apptest.Response {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	pw, _ := w.CreateFormFile("file", "remito.txt")
	pw.Write([]byte("Remito del pedido\n")) //nolint:errcheck // in memory
	w.Close()
	req := httptest.NewRequest("POST", "/messages/attachments", &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+demoSeller)
	return a.Send(req)
}

// compatibilities creates the demo's compatibilities of MLA1100 and
// returns the id of one.
func compatibilities(t *testing.T, a *apptest.App) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("../../deploy/demo/compatibilities.json")
	if err != nil {
		t.Fatal(err)
	}
	a.Do("POST", "/items/MLA1100/compatibilities", raw, apptest.Bearer(demoSeller)...).OK(t, 200)
	var list struct {
		Products []struct {
			ID string `json:"id"`
		} `json:"products"`
	}
	a.Do("GET", "/items/MLA1100/compatibilities", nil, apptest.Bearer(demoSeller)...).JSON(t, &list)
	if len(list.Products) == 0 {
		t.Fatal("no compatibility created")
	}
	return map[string]string{"compatibility": list.Products[0].ID}
}

// askQuestion has the demo buyer ask a question on the seller's item.
func askQuestion(t *testing.T, a *apptest.App) map[string]string {
	var q struct{ ID int64 }
	a.Do("POST", "/questions", `{"item_id":"MLA1100","text":"¿Tiene garantía?"}`, apptest.Bearer(demoBuyer)...).JSON(t, &q)
	if q.ID == 0 {
		t.Fatal("no question asked")
	}
	return map[string]string{"question": strconv.FormatInt(q.ID, 10)}
}

const demoApp789 = `{"name":"my-integration","owner_id":123,"client_secret":"s3cret","callback_url":"http://127.0.0.1:9/n","redirect_uris":["https://app.example/cb"]}`

var codeOf = regexp.MustCompile(`[?&]code=([^&]+)`)

func writePaths() []writePath {
	compatBody := func() string {
		raw, _ := os.ReadFile("../../deploy/demo/compatibilities.json")
		return string(raw)
	}()
	return []writePath{
		{name: "POST /questions", prepare: nothing, ok: 201,
			do: as(demoBuyer, "POST", "/questions", `{"item_id":"MLA1100","text":"¿Tiene stock?"}`)},
		{name: "POST /answers", prepare: askQuestion, ok: 200,
			do: func(_ *testing.T, a *apptest.App, vars map[string]string) apptest.Response {
				return a.Do("POST", "/answers", `{"question_id":`+vars["question"]+`,"text":"Sí, 12 meses."}`, apptest.Bearer(demoSeller)...)
			}},
		{name: "DELETE /questions/{id}", prepare: askQuestion, ok: 200,
			do: func(_ *testing.T, a *apptest.App, vars map[string]string) apptest.Response {
				return a.Do("DELETE", "/questions/"+vars["question"], nil, apptest.Bearer(demoSeller)...)
			}},
		{name: "POST /orders/{id}/notes", prepare: nothing, ok: 201,
			do: as(demoSeller, "POST", "/orders/2000001/notes", `{"note":"Llamar al comprador"}`)},
		{name: "POST compatibilities", prepare: nothing, ok: 200,
			do: as(demoSeller, "POST", "/items/MLA1100/compatibilities", compatBody)},
		{name: "POST compatibilities item_to_copy", prepare: compatibilities, ok: 200,
			do: as(demoSeller, "POST", "/items/MLA1101/compatibilities", `{"item_to_copy":{"item_id":"MLA1100","extended_information":true}}`)},
		{name: "PUT compatibilities", prepare: compatibilities, ok: 200,
			do: as(demoSeller, "PUT", "/items/MLA1100/compatibilities", `{"create":{"products":[{"id":"MLA16000002"}]},"delete":{"products":[{"id":"MLA16000001"}]}}`)},
		{name: "DELETE compatibilities", prepare: compatibilities, ok: 200,
			do: as(demoSeller, "DELETE", "/items/MLA1100/compatibilities", "")},
		{name: "DELETE one compatibility", prepare: compatibilities, ok: 200,
			do: func(_ *testing.T, a *apptest.App, v map[string]string) apptest.Response {
				return a.Do("DELETE", "/items/MLA1100/compatibilities/"+v["compatibility"], nil, apptest.Bearer(demoSeller)...)
			}},
		{name: "POST exception", prepare: nothing, ok: 200,
			do: as(demoSeller, "POST", "/items/MLA1101/compatibilities/exception", `{"comment":"No hay vehículos para esta pieza en el catálogo"}`)},
		{name: "POST fiscal_documents", prepare: nothing, ok: 201,
			do: func(_ *testing.T, a *apptest.App, _ map[string]string) apptest.Response {
				return uploadPDFTo(a, demoPack, demoSeller)
			}},
		{name: "DELETE fiscal_documents", ok: 200,
			prepare: func(t *testing.T, a *apptest.App) map[string]string {
				uploadPDFTo(a, demoPack, demoSeller).OK(t, 201)
				return nil
			},
			do: as(demoSeller, "DELETE", demoPack, "")},
		{name: "POST billing_info", prepare: nothing, ok: 201,
			do: as(demoSeller, "POST", demoPack+"/billing_info", `{"text":"¿Me pasás tu CUIT y razón social?"}`)},
		{name: "POST message attachment", prepare: nothing, ok: 201,
			do: func(_ *testing.T, a *apptest.App, _ map[string]string) apptest.Response {
				return uploadAttachment(a)
			}},
		{name: "POST message with a file", ok: 201,
			prepare: func(t *testing.T, a *apptest.App) map[string]string {
				var f struct{ ID string }
				uploadAttachment(a).JSON(t, &f)
				return map[string]string{"file": f.ID}
			},
			do: func(_ *testing.T, a *apptest.App, v map[string]string) apptest.Response {
				return a.Do("POST", demoConversation, `{"from":{"user_id":123},"to":{"user_id":456},"text":"Te envío el remito","attachments":["`+v["file"]+`"]}`,
					apptest.Bearer(demoSeller)...)
			}},
		{name: "GET conversation mark_as_read", ok: 200,
			prepare: func(t *testing.T, a *apptest.App) map[string]string {
				a.Do("POST", demoConversation, `{"from":{"user_id":123},"to":{"user_id":456},"text":"Tu pedido sale hoy"}`, apptest.Bearer(demoSeller)...).OK(t, 201)
				return nil
			},
			do: as(demoBuyer, "GET", demoConversation+"&mark_as_read=true", "")},
		{name: "GET /authorization approving", ok: 302,
			prepare: func(t *testing.T, a *apptest.App) map[string]string {
				a.Sandbox("PUT", "/applications/789", demoApp789).OK(t, 200)
				return nil
			},
			do: func(_ *testing.T, a *apptest.App, _ map[string]string) apptest.Response {
				return a.Do("GET", "/authorization?response_type=code&client_id=789&redirect_uri="+url.QueryEscape("https://app.example/cb")+"&user_id=456", nil)
			}},
		{name: "POST /oauth/token authorization_code", ok: 200,
			prepare: func(t *testing.T, a *apptest.App) map[string]string {
				a.Sandbox("PUT", "/applications/789", demoApp789).OK(t, 200)
				r := a.Do("GET", "/authorization?response_type=code&client_id=789&redirect_uri="+url.QueryEscape("https://app.example/cb")+"&user_id=456", nil)
				m := codeOf.FindStringSubmatch(r.Header.Get("Location"))
				if m == nil {
					t.Fatalf("no code: %d %v", r.Status, r.Header)
				}
				return map[string]string{"code": m[1]}
			},
			do: func(_ *testing.T, a *apptest.App, v map[string]string) apptest.Response {
				form := url.Values{"grant_type": {"authorization_code"}, "client_id": {"789"}, "client_secret": {"s3cret"},
					"code": {v["code"]}, "redirect_uri": {"https://app.example/cb"}}
				return a.Do("POST", "/oauth/token?"+form.Encode(), nil)
			}},
		{name: "POST /oauth/token refresh_token", ok: 200,
			prepare: func(t *testing.T, a *apptest.App) map[string]string {
				var g struct {
					RefreshToken string `json:"refresh_token"`
				}
				a.Sandbox("POST", "/users/123/tokens", nil).JSON(t, &g)
				return map[string]string{"refresh": g.RefreshToken}
			},
			do: func(_ *testing.T, a *apptest.App, v map[string]string) apptest.Response {
				return a.Do("POST", "/oauth/token?grant_type=refresh_token&refresh_token="+url.QueryEscape(v["refresh"]), nil)
			}},
		{name: "PUT flex delivery", prepare: nothing, ok: 200,
			do: as(demoSeller, "PUT", "/shipping/flex/sites/MLA/users/123/services/3001/configuration/delivery/custom/v3",
				`{"delivery_window":"same_day","delivery_ranges":{"week":[{"from":12,"to":16,"capacity":20,"cutoff":10}],"saturday":null,"sunday":null}}`)},
		{name: "PUT flex zones", prepare: nothing, ok: 200,
			do: as(demoSeller, "PUT", "/shipping/flex/sites/MLA/users/123/services/3001/configuration/coverage/zone/v3", `{"zones":[{"id":"Z2"}]}`)},
		{name: "POST flex item", prepare: nothing, ok: 204,
			do: as(demoSeller, "POST", "/sites/MLA/shipping/selfservice/items/MLA1100", "")},
		{name: "DELETE flex item", ok: 204,
			prepare: func(t *testing.T, a *apptest.App) map[string]string {
				a.Do("POST", "/sites/MLA/shipping/selfservice/items/MLA1100", nil, apptest.Bearer(demoSeller)...).HasStatus(t, 204)
				return nil
			},
			do: as(demoSeller, "DELETE", "/sites/MLA/shipping/selfservice/items/MLA1100", "")},
		{name: "sandbox PUT user", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/users/999", `{"nickname":"NEW","site_id":"MLA"}`)},
		{name: "sandbox POST token", prepare: nothing, ok: 201, do: sandbox("POST", "/users/123/tokens", "")},
		{name: "sandbox DELETE token", prepare: nothing, ok: 204, do: sandbox("DELETE", "/tokens/"+demoBuyer, "")},
		{name: "sandbox PUT item", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/items/MLA1300", `{"site_id":"MLA","seller_id":123,"title":"Amortiguador trasero","category_id":"MLA1747"}`)},
		{name: "sandbox PUT product", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/products/MLA16000009", `{"site_id":"MLA","domain_id":"MLA-CARS_AND_VANS","name":"Ford Ka 2020","parent_id":"MLA15197894",
				"attributes":[{"id":"BRAND","name":"Marca","value_id":"9909","value_name":"Ford"}]}`)},
		{name: "sandbox PUT order", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/orders/2000009", `{"site_id":"MLA","seller_id":123,"buyer_id":456,"pack_id":null,"status":"paid",
				"items":[{"item_id":"MLA1100","quantity":1,"unit_price":15000}],"has_claim":true,
				"compatibility_selection":{"product_id":"MLA15197901","label_values":[]}}`)},
		{name: "sandbox PUT application", prepare: nothing, ok: 200, do: sandbox("PUT", "/applications/790", demoApp789)},
		{name: "sandbox PUT clock", prepare: nothing, ok: 200, do: sandbox("PUT", "/clock", `{"now":"2026-11-21T00:00:00Z"}`)},
		{name: "sandbox PUT category", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/categories/MLA1800", `{"site_id":"MLA","name":"Bujías","domain_id":"MLA-SPARK_PLUGS","compatibilities":null}`)},
		{name: "sandbox PUT domain", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/domains/MLA-SPARK_PLUGS", `{"site_id":"MLA","main":false,"compatibilities":[]}`)},
		{name: "sandbox PUT brand", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/brands/5009", `{"site_id":"MLA","name":"Acme Sur","users":[789]}`)},
		{name: "sandbox PUT flex subscription", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/flex/subscriptions/3009", `{"site_id":"MLA","user_id":456,"mode":"FLEX","status":"in",
				"configuration_type":{"coverage":"zone","delivery":"custom"},
				"address":{"id":2,"address_line":"Calle 1","city":{"id":"C1","name":"Capital Federal"},"zip_code":"1000"},
				"zones":[{"id":"Z1","label":"CABA","is_mandatory":true,"neighborhoods":[],"price":{"cents":"00","currency_id":"ARS","decimal_separator":",","fraction":"1500","symbol":"$"}}]}`)},
		{name: "sandbox PUT shipment", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/shipments/40009", `{"site_id":"MLA","order_id":2000001,"driver_id":778}`)},
		{name: "sandbox PUT shipping rates", prepare: nothing, ok: 200,
			do: sandbox("PUT", "/shipping_rates/MLA", `{"currency_id":"ARS","volumetric_divisor":5000,
				"weight_tiers":[{"up_to":500,"cost":4000},{"up_to":30000,"cost":15000}],"reputation_discounts":{"green":0.5}}`)},
		{name: "sandbox POST fixtures", prepare: nothing, ok: 200,
			do: sandbox("POST", "/fixtures", `{"users":[{"id":998,"nickname":"N","site_id":"MLA"}],
				"items":[{"id":"MLA1301","site_id":"MLA","seller_id":998,"title":"Bujía","category_id":"MLA1000"}]}`)},
		{name: "sandbox POST notification", prepare: withApplication, ok: 202,
			do: sandbox("POST", "/notifications", `{"app_id":7001,"topic":"items","resource":"/items/MLA1100","user_id":123}`)},
		// A change an application hears of writes its notification in the
		// change's transaction (the outbox of notifications).
		{name: "POST /questions notifying an application", prepare: withApplication, ok: 201,
			do: as(demoBuyer, "POST", "/questions", `{"item_id":"MLA1100","text":"¿Tiene garantía?"}`)},
		{name: "sandbox PUT shipment notifying an application", prepare: withApplication, ok: 200,
			do: sandbox("PUT", "/shipments/40009", `{"site_id":"MLA","order_id":2000001,"driver_id":778}`)},
	}
}

// application is an application of the demo seller that hears every topic.
const application = `{"name":"it","owner_id":123,"client_secret":"s","callback_url":"http://127.0.0.1:9/cb",
	"topics":["items","questions","orders_v2","messages","shipments","flex-handshakes"],"users":[456]}`

func withApplication(t *testing.T, a *apptest.App) map[string]string {
	a.Sandbox("PUT", "/applications/7001", application).OK(t, 200)
	return nil
}
