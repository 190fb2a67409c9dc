package controlapi_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/feria/feria/core/control"
	"github.com/feria/feria/test/apptest"
)

// The journal keeps each exchange's headers and bodies, each cut at
// control.BodyBound, with every credential masked before it is stored:
// bearer tokens, the sandbox key, tokens, secrets and codes in form and
// JSON bodies and in the answers; a rate limit's refusal names its rule
// and a fault's answer its rule. No token sent or answered is in any
// stored entry.
func TestJournalDetail(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		var tok struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		}
		a.Sandbox("POST", "/users/123/tokens", `{}`).JSON(t, &tok)
		id := func(s string) []string { return []string{"X-Request-Id", s} }

		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_secret": {"secret-of-the-app"}}
		req := httptest.NewRequest("POST", "/oauth/token?code=TG-code-in-query", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Request-Id", "form")
		var granted struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		}
		a.Send(req).JSON(t, &granted)
		a.Do("POST", "/oauth/token", `{"grant_type":"authorization_code","client_id":789,"client_secret":"secret-in-json","code":"TG-code-in-json"}`, id("json")...)
		a.Do("GET", "/users/123/items/search", nil, append(append(id("bearer"), apptest.Bearer(tok.AccessToken)...), "X-Sandbox-Key", apptest.SandboxKey)...).OK(t, 200)
		big := `{"pad":"` + strings.Repeat("é", control.BodyBound) + `","access_token":"APP_USR-cut-off"}`
		a.Do("POST", "/no/such/path", big, id("big")...).OK(t, 404)
		a.Sandbox("PUT", "/rate_limits", `{"rules": [{"method": "GET", "path": "/sites/*", "per_minute": 1}]}`).OK(t, 200)
		a.Do("GET", "/sites/MLA", nil)
		a.Do("GET", "/sites/MLA", nil, id("limited")...).OK(t, 429)
		fid := fault(t, a, `{"method": "GET", "path": "/items/MLA1100", "status": 503}`)
		a.Do("GET", "/items/MLA1100", nil, id("faulted")...).OK(t, 503)

		get := func(id string) control.Entry {
			t.Helper()
			e, err := a.Deps.Controls.Request(t.Context(), id)
			if err != nil || e.Detail == nil {
				t.Fatalf("entry %s: %v %+v", id, err, e)
			}
			return e
		}
		header := func(m control.Message, name string) string {
			for _, h := range m.Headers {
				if strings.EqualFold(h.Name, name) {
					return h.Value
				}
			}
			return "(none)"
		}
		f := get("form")
		if want := "grant_type=refresh_token&refresh_token=***&client_secret=***"; !sameForm(f.Detail.Request.Body, want) {
			t.Errorf("form body kept %q, want %q", f.Detail.Request.Body, want)
		}
		if f.Query != "code=***" {
			t.Errorf("query kept %q", f.Query)
		}
		if f.Status == 200 && !strings.Contains(f.Detail.Response.Body, `"access_token":"***"`) {
			t.Errorf("answer kept %q", f.Detail.Response.Body)
		}
		j := get("json")
		if want := `{"grant_type":"authorization_code","client_id":789,"client_secret":"***","code":"***"}`; j.Detail.Request.Body != want {
			t.Errorf("JSON body kept %q, want %q", j.Detail.Request.Body, want)
		}
		b := get("bearer")
		if got := header(b.Detail.Request, "Authorization"); got != "Bearer ***" {
			t.Errorf("Authorization kept %q", got)
		}
		if got := header(b.Detail.Request, "X-Sandbox-Key"); got != "***" {
			t.Errorf("X-Sandbox-Key kept %q", got)
		}
		if !strings.Contains(b.Detail.Response.Body, `"results"`) || header(b.Detail.Response, "Content-Type") != "application/json" {
			t.Errorf("answer kept: %+v", b.Detail.Response)
		}
		g := get("big")
		if !g.Detail.Request.Truncated || g.Detail.Request.Size != len(big) || len(g.Detail.Request.Body) > control.BodyBound ||
			strings.Contains(g.Detail.Request.Body, "APP_USR-cut-off") || !strings.HasSuffix(g.Detail.Request.Body, "é") {
			t.Errorf("a long body: truncated %v, size %d, kept %d bytes ending %q", g.Detail.Request.Truncated, g.Detail.Request.Size,
				len(g.Detail.Request.Body), g.Detail.Request.Body[max(0, len(g.Detail.Request.Body)-10):])
		}
		if l := get("limited").Detail.RateLimit; l == nil || l.Path != "/sites/*" || l.PerMinute != 1 {
			t.Errorf("the limit of a refusal: %+v", l)
		}
		if fe := get("faulted"); fe.FaultID == nil || *fe.FaultID != fid || !strings.Contains(fe.Detail.Response.Body, "service_unavailable") {
			t.Errorf("a faulted entry: %+v", fe)
		}
		if _, err := a.Deps.Controls.Request(t.Context(), "no-such-request"); err != control.ErrEntryNotFound {
			t.Errorf("an unknown id: %v", err)
		}
		if list := journal(t, a, ""); strings.Contains(string(a.Sandbox("GET", "/requests", nil).Body), `"detail"`) || len(list) == 0 {
			t.Errorf("the list shows details")
		}

		stored, err := a.Deps.ControlsRedis.LRange(t.Context(), "feria:control:journal", 0, -1).Result()
		if err != nil || len(stored) < 7 {
			t.Fatalf("stored journal: %d entries, %v", len(stored), err)
		}
		secrets := []string{tok.AccessToken, tok.RefreshToken, granted.AccessToken, granted.RefreshToken, "secret-of-the-app",
			"secret-in-json", "TG-code-in-json", "TG-code-in-query", "APP_USR-cut-off", apptest.SandboxKey}
		for _, raw := range stored {
			for _, s := range secrets {
				if s != "" && strings.Contains(raw, s) {
					t.Errorf("a stored entry holds %q: %.300s", s, raw)
				}
			}
		}
	})
}

// sameForm compares two form bodies whatever their parameters' order.
func sameForm(got, want string) bool {
	g, err1 := url.ParseQuery(got)
	w, err2 := url.ParseQuery(want)
	return err1 == nil && err2 == nil && g.Encode() == w.Encode()
}
