package appsapi_test

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/test/apptest"
)

// app is the application of docs/sandbox.md's example, owned by seller 123 and
// granted by buyer 456.
const app = `{"name":"my-integration","owner_id":123,"client_secret":"app-secret",
 "callback_url":"http://127.0.0.1:9999/notifications",
 "topics":["orders_v2","items","questions","messages","shipments","flex-handshakes"],
 "users":[123,456],"ack_timeout_ms":500,"retry_delays_ms":null}`

const stored = `{"id":789,"name":"my-integration","owner_id":123,"client_secret":"app-secret",
 "callback_url":"http://127.0.0.1:9999/notifications",
 "topics":["orders_v2","items","questions","messages","shipments","flex-handshakes"],
 "users":[123,456],"ack_timeout_ms":500,"retry_delays_ms":null}`

func TestApplications(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		a.Sandbox("GET", "/applications/789", nil).Is(t, 404, apptest.Err(404, "not_found", "application not found"))
		a.Sandbox("PUT", "/applications/789", app).Is(t, 200, stored)
		a.Sandbox("PUT", "/applications/789", app).Is(t, 200, stored) // an upsert
		a.Sandbox("GET", "/applications/789", nil).Is(t, 200, stored)

		// Defaults: the acknowledgement time, empty lists; repeated topics
		// and users are kept once.
		a.Sandbox("PUT", "/applications/790", `{"name":"n","owner_id":124,"client_secret":"s","callback_url":"https://example.com/cb","topics":["items","items"],"users":[456,456]}`).
			Is(t, 200, `{"id":790,"name":"n","owner_id":124,"client_secret":"s","callback_url":"https://example.com/cb","topics":["items"],"users":[456],"ack_timeout_ms":500,"retry_delays_ms":null}`)
		a.Sandbox("PUT", "/applications/791", `{"name":"n","owner_id":124,"client_secret":"s","callback_url":"http://h/cb","retry_delays_ms":[10,20,30,40,50,60,70],"ack_timeout_ms":100}`).
			Is(t, 200, `{"id":791,"name":"n","owner_id":124,"client_secret":"s","callback_url":"http://h/cb","topics":[],"users":[],"ack_timeout_ms":100,"retry_delays_ms":[10,20,30,40,50,60,70]}`)

		cases := []struct {
			name, path, body string
			want             string
		}{
			{"unknown owner", "/applications/792", strings.Replace(app, `"owner_id":123`, `"owner_id":999`, 1), apptest.Err(400, "bad_request", "user 999 does not exist", "owner_id", "user 999 does not exist")},
			{"unknown user", "/applications/792", strings.Replace(app, "[123,456]", "[123,998]", 1), apptest.Err(400, "bad_request", "user 998 does not exist", "users[1]", "user 998 does not exist")},
			{"callback not http", "/applications/792", strings.Replace(app, "http://127.0.0.1:9999/notifications", "ftp://h/x", 1),
				apptest.Err(400, "bad_request", `callback_url must be an http or https URL, got "ftp://h/x"`, "callback_url", `callback_url must be an http or https URL, got "ftp://h/x"`)},
			{"unknown topic", "/applications/792", strings.Replace(app, `"orders_v2",`, `"orders",`, 1),
				apptest.Err(400, "bad_request", `topic "orders" is not one of items, questions, orders_v2, messages, shipments, flex-handshakes`, "topics[0]", `topic "orders" is not one of items, questions, orders_v2, messages, shipments, flex-handshakes`)},
			{"six delays", "/applications/792", strings.Replace(app, `"retry_delays_ms":null`, `"retry_delays_ms":[1,2,3,4,5,6]`, 1),
				apptest.Err(400, "bad_request", "retry_delays_ms must be null or a list of exactly 7 delays, got 6", "retry_delays_ms", "retry_delays_ms must be null or a list of exactly 7 delays, got 6")},
			{"ack too long", "/applications/792", strings.Replace(app, `"ack_timeout_ms":500`, fmt.Sprintf(`"ack_timeout_ms":%d`, apps.MaxAckTimeoutMS+1), 1),
				apptest.Err(400, "bad_request", "ack_timeout_ms must be between 1 and 30000, got 30001", "ack_timeout_ms", "ack_timeout_ms must be between 1 and 30000, got 30001")},
			{"no secret", "/applications/792", strings.Replace(app, `"client_secret":"app-secret",`, "", 1), apptest.Err(400, "bad_request", "client_secret is required", "client_secret", "client_secret is required")},
			{"wrong type", "/applications/792", strings.Replace(app, "[123,456]", `["123"]`, 1), apptest.Err(400, "bad_request", "field users must be an integer, got string", "users", "users must be an integer")},
			{"bad id", "/applications/x", app, apptest.Err(400, "bad_request", `app_id must be a positive integer, got "x"`, "app_id", "app_id must be a positive integer")},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) { a.Sandbox("PUT", c.path, c.body).Is(t, 400, c.want) })
		}
		a.Sandbox("GET", "/applications/792", nil).Is(t, 404, apptest.Err(404, "not_found", "application not found"))
		a.Sandbox("GET", "/applications/0", nil).Is(t, 400, apptest.Err(400, "bad_request", `app_id must be a positive integer, got "0"`, "app_id", "app_id must be a positive integer"))

		// The fixtures load applications last (they name users of the same
		// load); a bad one names its index, and nothing of the load stays.
		a.Sandbox("POST", "/fixtures", `{"applications":[{"id":800,"name":"n","owner_id":130,"client_secret":"s","callback_url":"http://h/"}],
			"users":[{"id":130,"nickname":"NEW","site_id":"MLA"}]}`).Is(t, 200, `{"loaded":{"applications":1,"users":1}}`)
		a.Sandbox("POST", "/fixtures", `{"users":[{"id":131,"nickname":"NEW","site_id":"MLA"}],"applications":[{"id":801,"name":"n","owner_id":130,"client_secret":"s","callback_url":"http://h/"},{"id":802,"name":"n","owner_id":132,"client_secret":"s","callback_url":"http://h/"}]}`).
			Is(t, 400, apptest.Err(400, "bad_request", "applications[1]: user 132 does not exist", "applications[1]", "user 132 does not exist", "applications[1].owner_id", "user 132 does not exist"))
		a.Sandbox("GET", "/applications/801", nil).Is(t, 404, apptest.Err(404, "not_found", "application not found"))
		a.Sandbox("GET", "/users/131", nil).Is(t, 404, apptest.Err(404, "not_found", "user not found"))

		// DELETE /sandbox removes every application.
		a.Sandbox("DELETE", "", nil).HasStatus(t, 204)
		a.Sandbox("GET", "/applications/789", nil).Is(t, 404, apptest.Err(404, "not_found", "application not found"))
	})
}

// tokenOf issues a token pair of user through the sandbox.
func tokenOf(t *testing.T, a *apptest.App, user int, body string) (access, refresh string) {
	t.Helper()
	var g struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	r := a.Sandbox("POST", fmt.Sprintf("/users/%d/tokens", user), body)
	r.HasStatus(t, 201)
	r.JSON(t, &g)
	return g.AccessToken, g.RefreshToken
}

func TestTokensOfAnApplication(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		a.Sandbox("PUT", "/applications/789", app).OK(t, 200)
		a.Sandbox("PUT", "/applications/790", strings.Replace(app, "app-secret", "other-secret", 1)).OK(t, 200)
		a.Sandbox("POST", "/users/123/tokens", `{"app_id":4242}`).Is(t, 404, apptest.Err(404, "not_found", "application 4242 not found"))
		a.Sandbox("POST", "/users/123/tokens", `{"app_id":0}`).Is(t, 400, apptest.Err(400, "bad_request", "app_id must be a positive integer", "app_id", "app_id must be a positive integer"))
		a.Sandbox("POST", "/users/123/tokens", `{"app_id":"789"}`).Is(t, 400, apptest.Err(400, "bad_request", "field app_id must be an integer, got string", "app_id", "app_id must be an integer"))
		a.Sandbox("POST", "/users/999/tokens", `{"app_id":789}`).Is(t, 404, apptest.Err(404, "not_found", "user not found"))

		// A token of a user who did not grant the application is a token
		// of that application all the same (grants are the application's
		// users).
		access, refresh := tokenOf(t, a, 124, `{"app_id":789}`)
		a.Do("GET", "/users/124/items/search", nil, apptest.Bearer(access)...).HasStatus(t, 200)
		post := func(form url.Values) apptest.Response {
			req := httptest.NewRequest("POST", "/oauth/token", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return a.Send(req)
		}
		form := func(refresh, id, secret string) url.Values {
			return url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {id}, "client_secret": {secret}}
		}
		invalidClient := `{"error_description":"invalid client_id and/or client_secret provided.","error":"invalid_client","status":400,
			"cause":[]}`
		for _, c := range [][2]string{{"789", "wrong"}, {"790", "other-secret"}, {"790", "app-secret"}, {"", ""}} {
			post(form(refresh, c[0], c[1])).Is(t, 400, invalidClient)
		}
		// Refused, the refresh token stays usable; the pair it gives is the
		// application's too.
		var g struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
			UserID       int64  `json:"user_id"`
		}
		r := post(form(refresh, "789", "app-secret"))
		r.OK(t, 200)
		r.JSON(t, &g)
		if g.UserID != 124 || g.AccessToken == "" || g.RefreshToken == refresh {
			t.Fatalf("refresh: %s", r.Body)
		}
		post(form(refresh, "789", "app-secret")).Is(t, 400, `{"error_description":"Error validating grant. Your authorization code or refresh token may be expired or it was already used","error":"invalid_grant","status":400,
			"cause":[]}`)
		post(form(g.RefreshToken, "790", "other-secret")).Is(t, 400, invalidClient)
		post(form(g.RefreshToken, "789", "app-secret")).HasStatus(t, 200)

		// A token without an application behaves as before: any client.
		_, plain := tokenOf(t, a, 123, "")
		post(form(plain, "anything", "at-all")).HasStatus(t, 200)
	})
}
