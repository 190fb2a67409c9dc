package worldsapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

// callbacks records the notifications posted to it, by path: each world's
// application calls back at a path of its own.
type callbacks struct {
	srv *httptest.Server
	mu  sync.Mutex
	got map[string][]map[string]any
}

func newCallbacks(t *testing.T) *callbacks {
	c := &callbacks{got: map[string][]map[string]any{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		c.mu.Lock()
		c.got[r.URL.Path] = append(c.got[r.URL.Path], body)
		c.mu.Unlock()
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *callbacks) at(path string) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]map[string]any(nil), c.got[path]...)
}

// client is one client's world: its name and key, and its requests.
type client struct {
	a         *apptest.App
	name, key string
}

func (w client) do(method, path string, body any, headers ...string) apptest.Response {
	return w.a.Do(method, "/worlds/"+w.name+path, body, headers...)
}

func (w client) sandbox(method, path string, body any) apptest.Response {
	return w.do(method, "/sandbox"+path, body, "X-Sandbox-Key", w.key)
}

// fiscalFixtures are a seller (101), a buyer (201), an item titled after
// the world and a paid order of pack 1001.
func fiscalFixtures(title string) map[string]any {
	user := func(id int) map[string]any {
		return map[string]any{"id": id, "nickname": fmt.Sprint("U", id), "site_id": "MLA", "user_type": "normal",
			"tags": []string{}, "messaging_allowed": true, "access_token": fmt.Sprint("tok-", id)}
	}
	return map[string]any{
		"users": []any{user(101), user(201)},
		"categories": []any{map[string]any{"id": "MLA1", "site_id": "MLA", "name": "Cosas", "domain_id": "MLA-THINGS",
			"shipping_preferences": map[string]any{"dimensions": map[string]any{"height": 10, "width": 20, "length": 30, "weight": 500},
				"logistics": []any{map[string]any{"mode": "me2", "types": []string{"drop_off"}}}, "restricted": false},
			"accepted_shipping_methods": []int{73328}, "compatibilities": nil}},
		"items": []any{map[string]any{"id": "MLA101", "site_id": "MLA", "seller_id": 101, "title": title, "category_id": "MLA1",
			"domain_id": "MLA-THINGS", "status": "active", "price": 100, "currency_id": "ARS", "available_quantity": 1,
			"listing_type_id": "gold_special", "condition": "new", "attributes": []any{}, "tags": []any{},
			"shipping": map[string]any{"mode": "me2", "local_pick_up": false, "free_shipping": false, "logistic_type": "drop_off",
				"methods": []any{}, "free_methods": []any{}}}},
		"orders": []any{map[string]any{"id": 9001, "site_id": "MLA", "seller_id": 101, "buyer_id": 201,
			"pack_id": 1001, "status": "paid", "items": []any{map[string]any{"item_id": "MLA101", "quantity": 1, "unit_price": 100}},
			"shipping": map[string]any{"id": 1, "logistic_type": "drop_off"}, "has_claim": false, "compatibility_selection": nil}},
	}
}

// pdfUpload is the multipart body of one PDF, and its content type.
func pdfUpload() ([]byte, string) {
	return pdfForm("%PDF-1.7\n1 0 obj<</Type/Catalog>>endobj\ntrailer<<>>\n%%EOF\n")
}

// pdfForm is the multipart body of a PDF file holding content, in the
// fiscal upload's part, and its content type.
func pdfForm(content string) ([]byte, string) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="fiscal_document"; filename="factura.pdf"`)
	h.Set("Content-Type", "application/pdf")
	pw, _ := w.CreatePart(h)
	pw.Write([]byte(content)) //nolint:errcheck // a bytes.Buffer
	w.Close()
	return body.Bytes(), w.FormDataContentType()
}

// eventually polls check every 50 ms until it answers "" or within has
// passed, then fails with its last answer.
func eventually(t *testing.T, within time.Duration, check func() string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		why := check()
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", within, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Eight clients, each in a world of its own, run the same scenario at once
// on one instance with its workers: a reset, a frozen clock, fixtures, a
// notification to their application's callback, a fiscal upload whose
// buyer notice a job writes, a fault rule and a rate limit's 429. Each
// sees exactly its own results, while a ninth world is deleted under them.
func TestEightWorldsAtOnce(t *testing.T) {
	t.Parallel() // an instance of its own on each backend
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := apptest.New(t, be)
		a.StartWorkers()
		cb := newCallbacks(t)
		doomed := client{a: a, name: "doomed", key: "doomed-key-0123456789"}
		a.Sandbox("PUT", "/worlds/doomed", map[string]any{"sandbox_key": doomed.key}).OK(t, 201)
		doomed.sandbox("POST", "/fixtures", fiscalFixtures("doomed")).OK(t, 200)
		t.Run("clients", func(t *testing.T) {
			for i := range 8 {
				w := client{a: a, name: fmt.Sprintf("client-%d", i), key: fmt.Sprintf("client-%d-key-0123456789", i)}
				t.Run(w.name, func(t *testing.T) {
					t.Parallel()
					scenario(t, w, i, cb)
				})
			}
			t.Run("delete", func(t *testing.T) {
				t.Parallel()
				doomed.do("GET", "/items/MLA101", nil).HasStatus(t, 200)
				a.Sandbox("DELETE", "/worlds/doomed", nil).HasStatus(t, 204)
				doomed.do("GET", "/items/MLA101", nil).Is(t, 404, apptest.Err(404, "not_found", "world doomed not found"))
			})
		})
		if got := cb.at("/doomed"); len(got) != 0 {
			t.Errorf("the deleted world's callback got %v", got)
		}
	})
}

// scenario is one client's run in world w, the i-th.
func scenario(t *testing.T, w client, i int, cb *callbacks) {
	w.a.Sandbox("PUT", "/worlds/"+w.name, map[string]any{"sandbox_key": w.key}).HasStatus(t, 201)
	w.sandbox("DELETE", "", nil).HasStatus(t, 204)
	now := fmt.Sprintf("2026-0%d-15T12:00:00Z", i+1)
	w.sandbox("PUT", "/clock", map[string]any{"now": now}).HasStatus(t, 200)
	title := "Cosa de " + w.name
	w.sandbox("POST", "/fixtures", fiscalFixtures(title)).HasStatus(t, 200)
	w.sandbox("PUT", "/applications/789", map[string]any{"name": w.name, "owner_id": 101, "client_secret": "s",
		"callback_url": cb.srv.URL + "/" + w.name, "topics": []string{"items"}, "ack_timeout_ms": 2000,
		"retry_delays_ms": []int{0, 0, 0, 0, 0, 0, 0}}).HasStatus(t, 200)

	var item struct{ Title string }
	w.do("GET", "/items/MLA101", nil).HasStatus(t, 200).JSON(t, &item)
	if item.Title != title {
		t.Errorf("item title %q, want %q", item.Title, title)
	}
	w.sandbox("POST", "/notifications", map[string]any{"app_id": 789, "topic": "items", "resource": "/items/MLA101", "user_id": 101}).HasStatus(t, 202)
	pdf, contentType := pdfUpload()
	w.do("POST", "/packs/1001/fiscal_documents?access_token=tok-101", pdf, "Content-Type", contentType).HasStatus(t, 201)

	w.sandbox("POST", "/faults", map[string]any{"method": "GET", "path": "/items/*", "status": 503,
		"error": "service_unavailable", "message": "down in " + w.name}).HasStatus(t, 201)
	w.do("GET", "/items/MLA101", nil).Is(t, 503, apptest.Err(503, "service_unavailable", "down in "+w.name))
	w.sandbox("PUT", "/rate_limits", `{"rules": [{"method": "GET", "path": "/categories/*/shipping_preferences", "per_minute": 1}]}`).HasStatus(t, 200)
	w.do("GET", "/categories/MLA1/shipping_preferences", nil).HasStatus(t, 200)
	w.do("GET", "/categories/MLA1/shipping_preferences", nil).HasStatus(t, 429)
	var clock struct {
		Now    string `json:"now"`
		Frozen bool   `json:"frozen"`
	}
	w.sandbox("GET", "/clock", nil).HasStatus(t, 200).JSON(t, &clock)
	if !clock.Frozen || !strings.HasPrefix(clock.Now, now[:10]) {
		t.Errorf("clock %+v, want frozen at %s", clock, now)
	}

	eventually(t, 15*time.Second, func() string {
		var feed struct {
			Results []map[string]any `json:"results"`
		}
		r := w.do("GET", "/my/notifications", nil, apptest.Bearer("tok-201")...)
		r.JSON(t, &feed)
		got := cb.at("/" + w.name)
		if len(feed.Results) != 1 || len(got) != 1 {
			return fmt.Sprintf("buyer's feed %s; %d callbacks", r.Body, len(got))
		}
		if feed.Results[0]["pack_id"] != float64(1001) || got[0]["resource"] != "/items/MLA101" || got[0]["application_id"] != float64(789) {
			return fmt.Sprintf("buyer's feed %s; callback %v", r.Body, got[0])
		}
		return ""
	})
	w.sandbox("DELETE", "", nil).HasStatus(t, 204)
	w.do("GET", "/items/MLA101", nil).Is(t, 404, apptest.Err(404, "not_found", "item not found"))
}
