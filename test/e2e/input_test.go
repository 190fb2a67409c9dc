package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// A NUL character in a text field (a question, the billing text, a sandbox
// name) must not reach PostgreSQL, which refuses it in text columns (a
// 500). Text is checked when a body is decoded:
// 400 naming the field, nothing written.
func TestNULInText(t *testing.T) {
	a := apptest.NewSample(t, apptest.Real)
	a.Sandbox("PUT", "/users/456", map[string]any{"nickname": "BUYER", "site_id": "MLA", "access_token": "APP_USR-buyer"}).OK(t, 200)
	nul := "hola\u0000chau"
	cases := []struct {
		name, method, path string
		body               any
		headers            []string
		field              string
	}{
		{"question", "POST", "/questions", map[string]any{"item_id": "MLA1100", "text": nul}, apptest.Bearer("APP_USR-buyer"), "text"},
		{"billing text", "POST", "/packs/2000001234/fiscal_documents/billing_info", map[string]any{"text": nul}, apptest.Bearer("APP_USR-seller"), "text"},
		{"message text", "POST", "/messages/packs/2000001234/sellers/123?tag=post_sale", map[string]any{"from": map[string]any{"user_id": 123},
			"to": map[string]any{"user_id": 456}, "text": nul}, apptest.Bearer("APP_USR-seller"), "text"},
		{"sandbox user nickname", "PUT", "/sandbox/users/777", map[string]any{"nickname": nul, "site_id": "MLA"}, []string{"X-Sandbox-Key", apptest.SandboxKey}, "nickname"},
		{"fixtures item title", "POST", "/sandbox/fixtures", map[string]any{"items": []any{func() map[string]any {
			it := apptest.Item("MLA1190", "", "active")
			it["title"] = nul
			return it
		}()}}, []string{"X-Sandbox-Key", apptest.SandboxKey}, "items[0].title"},
		{"compatibility note", "POST", "/items/MLA1100/compatibilities", map[string]any{"products": []any{map[string]any{"id": "MLA15197901", "note": nul}}}, apptest.Bearer("APP_USR-seller"), "products[0].note"},
		{"key", "PUT", "/sandbox/users/778", map[string]any{"nickname": "N", "site_id": "MLA", "x\u0000": 1}, []string{"X-Sandbox-Key", apptest.SandboxKey}, "x\u0000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := a.Do(tc.method, tc.path, tc.body, tc.headers...)
			r.HasStatus(t, 400)
			var v map[string]any
			r.JSON(t, &v)
			if msg, _ := v["message"].(string); !strings.Contains(msg, "NUL") || !strings.Contains(string(r.Body), mustJSON(tc.field)) {
				t.Fatalf("%s: %s; want a message about NUL naming %q", r.Request, r.Body, tc.field)
			}
		})
	}
	// Nothing was written.
	a.Sandbox("GET", "/users/777", nil).HasStatus(t, 404)
	a.Do("GET", "/items/MLA1190", nil).HasStatus(t, 404)
}

// mustJSON is s as it appears inside a JSON string.
func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}
