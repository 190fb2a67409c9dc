package e2e

import (
	"strings"
	"testing"

	"github.com/feria/feria/app"
	"github.com/feria/feria/test/apptest"
)

// The sandbox's own contract (docs/sandbox.md "Access", "Reset and bulk load",
// "Clock", "Users and tokens"): the key, the disabled mode, the clock, the
// fixtures envelope and the token routes.
func TestSandboxAccess(t *testing.T) {
	a := apptest.New(t, apptest.Embedded)
	unauthorized := `{"message":"missing or wrong X-Sandbox-Key header","error":"unauthorized","status":401,"cause":[]}`
	for _, headers := range [][]string{nil, {"X-Sandbox-Key", "wrong"}} {
		for _, path := range []string{"/sandbox", "/sandbox/fixtures", "/sandbox/users/1", "/sandbox/clock"} {
			r := a.Do("GET", path, nil, headers...)
			r.HasStatus(t, 401)
			if string(r.Body) != unauthorized {
				t.Errorf("GET %s %v: %d %s", path, headers, r.Status, r.Body)
			}
		}
	}

	off := apptest.NewConfigured(t, apptest.Embedded, func(c *app.Config) { c.SandboxKey = "" })
	for _, path := range []string{"/sandbox", "/sandbox/fixtures", "/sandbox/users/1", "/sandbox/clock"} {
		r := off.Do("POST", path, "{}", "X-Sandbox-Key", apptest.SandboxKey)
		r.HasStatus(t, 404)
		if !strings.Contains(string(r.Body), `"error":"not_found","status":404`) {
			t.Errorf("disabled sandbox %s: %d %s", path, r.Status, r.Body)
		}
	}
}

func TestSandboxClock(t *testing.T) {
	a := apptest.New(t, apptest.Embedded)
	check := func(r apptest.Response, status int, want string) {
		t.Helper()
		if r.Status != status || (want != "" && string(r.Body) != want) {
			t.Errorf("got %d %s; want %d %s", r.Status, r.Body, status, want)
		}
	}
	if r := a.Sandbox("GET", "/clock", nil).HasStatus(t, 200); !strings.HasSuffix(string(r.Body), `"frozen":false}`) {
		t.Fatalf("real clock: %d %s", r.Status, r.Body)
	}
	check(a.Sandbox("PUT", "/clock", `{"now": "2026-11-20T12:00:00Z"}`), 200, `{"now":"2026-11-20T12:00:00Z","frozen":true}`)
	check(a.Sandbox("GET", "/clock", nil), 200, `{"now":"2026-11-20T12:00:00Z","frozen":true}`)
	check(a.Sandbox("PUT", "/clock", `{"now": "2026-11-20T09:00:00-03:00"}`), 200, `{"now":"2026-11-20T12:00:00Z","frozen":true}`)
	check(a.Sandbox("PUT", "/clock", `{"now": "yesterday"}`), 400,
		`{"message":"now must be an ISO 8601 date-time such as 2026-11-20T12:00:00Z, or null","error":"bad_request","status":400,"cause":[{"code":"now","message":"not an ISO 8601 date-time: \"yesterday\""}]}`)
	check(a.Sandbox("PUT", "/clock", `{"now": 5}`), 400,
		`{"message":"field now must be a string, got number","error":"bad_request","status":400,"cause":[{"code":"now","message":"now must be a string"}]}`)
	// A user created now carries the frozen instant.
	r := a.Sandbox("PUT", "/users/1", map[string]any{"nickname": "S", "site_id": "MLA", "access_token": "APP_USR-t"})
	if !strings.Contains(string(r.Body), `"date_created":"2026-11-20T12:00:00Z"`) {
		t.Errorf("user created under a frozen clock: %s", r.Body)
	}
	check(a.Sandbox("PUT", "/clock", `{"now": null}`), 200, "")
	if r := a.Sandbox("GET", "/clock", nil); !strings.HasSuffix(string(r.Body), `"frozen":false}`) {
		t.Errorf("released: %s", r.Body)
	}
	check(a.Sandbox("PUT", "/clock", `{"now": "2026-11-20T12:00:00Z"}`), 200, "")
	check(a.Sandbox("DELETE", "", nil), 204, "")
	if r := a.Sandbox("GET", "/clock", nil); !strings.HasSuffix(string(r.Body), `"frozen":false}`) {
		t.Errorf("DELETE /sandbox left the clock frozen: %s", r.Body)
	}
}

func TestSandboxFixturesEnvelope(t *testing.T) {
	a := apptest.New(t, apptest.Embedded)
	cases := []struct {
		name, body string
		want       string
	}{
		{"unknown collection", `{"planets": []}`,
			`{"message":"unknown collection \"planets\"","error":"bad_request","status":400,"cause":[{"code":"planets","message":"unknown collection"}]}`},
		{"not JSON", `{"users": [`,
			`{"message":"invalid JSON body: unexpected end of JSON input","error":"bad_request","status":400,"cause":[{"code":"body","message":"unexpected end of JSON input"}]}`},
		{"entry without id", `{"users": [{"nickname": "S", "site_id": "MLA"}]}`,
			`{"message":"users[0]: entry needs an id (string or integer)","error":"bad_request","status":400,"cause":[{"code":"users[0]","message":"entry needs an id (string or integer)"},{"code":"users[0].id","message":"id is required"}]}`},
		{"second entry bad", `{"users": [{"id": 1, "nickname": "S", "site_id": "MLA"}, {"id": 2, "nickname": "B", "site_id": "XXX"}]}`,
			`{"message":"users[1]: site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC","error":"bad_request","status":400,"cause":[{"code":"users[1]","message":"site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC"},{"code":"users[1].site_id","message":"site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC"}]}`},
	}
	for _, tc := range cases {
		r := a.Sandbox("POST", "/fixtures", tc.body)
		r.HasStatus(t, 400)
		if string(r.Body) != tc.want {
			t.Errorf("%s: %d %s", tc.name, r.Status, r.Body)
		}
	}
	a.Sandbox("GET", "/users/1", nil).HasStatus(t, 404)
	r := a.Sandbox("POST", "/fixtures", `{}`)
	r.HasStatus(t, 200)
	if string(r.Body) != `{"loaded":{}}` {
		t.Errorf("empty fixtures: %d %s", r.Status, r.Body)
	}
}

func TestSandboxUsersAndTokens(t *testing.T) {
	a := apptest.New(t, apptest.Embedded)
	user := map[string]any{"nickname": "TESTSELLER1", "site_id": "MLA", "user_type": "normal", "reputation": "green",
		"tags": []string{}, "messaging_allowed": true, "access_token": "APP_USR-fixed-token-for-tests", "expires_in": 21600}
	first, second := a.Sandbox("PUT", "/users/123", user), a.Sandbox("PUT", "/users/123", user)
	first.HasStatus(t, 200)
	if string(first.Body) != string(second.Body) {
		t.Fatalf("PUT twice: %d %s / %s", first.Status, first.Body, second.Body)
	}
	if !strings.Contains(string(first.Body), `"access_token":"APP_USR-fixed-token-for-tests","expires_in":21600`) {
		t.Errorf("answer lacks the token: %s", first.Body)
	}
	// Without access_token every PUT issues a new token; all stay valid.
	delete(user, "access_token")
	var g1, g2 struct {
		AccessToken string `json:"access_token"`
	}
	a.Sandbox("PUT", "/users/123", user).JSON(t, &g1)
	a.Sandbox("PUT", "/users/123", user).JSON(t, &g2)
	if g1.AccessToken == g2.AccessToken || !strings.HasPrefix(g1.AccessToken, "APP_USR-") {
		t.Fatalf("generated tokens %q %q", g1.AccessToken, g2.AccessToken)
	}
	if r := a.Sandbox("GET", "/users/123", nil).HasStatus(t, 200); strings.Contains(string(r.Body), "access_token") {
		t.Errorf("GET user: %d %s (tokens are never shown again)", r.Status, r.Body)
	}

	cases := []struct {
		method, path string
		body         any
		status       int
		want         string
	}{
		{"POST", "/users/999/tokens", nil, 404, `{"message":"user not found","error":"not_found","status":404,"cause":[]}`},
		{"POST", "/users/abc/tokens", nil, 400, `{"message":"user_id must be a positive integer, got \"abc\"","error":"bad_request","status":400,"cause":[{"code":"user_id","message":"user_id must be a positive integer"}]}`},
		{"POST", "/users/123/tokens", `{"expires_in": -1}`, 400, `{"message":"expires_in must be a positive number of seconds","error":"bad_request","status":400,"cause":[{"code":"expires_in","message":"expires_in must be a positive number of seconds"}]}`},
		{"DELETE", "/tokens/APP_USR-unknown", nil, 404, `{"message":"token not found","error":"not_found","status":404,"cause":[]}`},
		{"PUT", "/users/0", map[string]any{"nickname": "S", "site_id": "MLA"}, 400, `{"message":"user_id must be a positive integer, got \"0\"","error":"bad_request","status":400,"cause":[{"code":"user_id","message":"user_id must be a positive integer"}]}`},
		{"PUT", "/users/5", map[string]any{"nickname": "S", "site_id": "MLA", "user_type": "robot"}, 400, `{"message":"user_type must be normal or brand","error":"bad_request","status":400,"cause":[{"code":"user_type","message":"user_type must be normal or brand"}]}`},
		{"GET", "/users/5", nil, 404, `{"message":"user not found","error":"not_found","status":404,"cause":[]}`},
	}
	for _, tc := range cases {
		r := a.Sandbox(tc.method, tc.path, tc.body)
		if r.Status != tc.status || string(r.Body) != tc.want {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, r.Status, r.Body)
		}
	}
	r := a.Sandbox("POST", "/users/123/tokens", `{"expires_in": 60}`)
	r.HasStatus(t, 201)
	if !strings.Contains(string(r.Body), `"token_type":"bearer","expires_in":60,"scope":"offline_access read write","user_id":123,"refresh_token":"TG-`) {
		t.Errorf("issue: %d %s", r.Status, r.Body)
	}
	a.Sandbox("DELETE", "/tokens/APP_USR-fixed-token-for-tests", nil).HasStatus(t, 204)
}
