package accountapi_test

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

const (
	cb       = "https://app.example/cb"
	verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	// app is an application of seller 123 (site MLA) with one redirect URI.
	app = `{"name":"my <integration>","owner_id":123,"client_secret":"s3cret","callback_url":"http://127.0.0.1:9999/n","redirect_uris":["` + cb + `"]}`
)

func s256(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// oauthErr is the OAuth error shape: the marketplace's OAuth server
// answers an empty cause.
func oauthErr(code, description string) string {
	return fmt.Sprintf(`{"error_description":%q,"error":%q,"status":400,"cause":[]}`, description, code)
}

// The documented descriptions of the OAuth errors (docs/messages.md).
const (
	invalidGrant   = "Error validating grant. Your authorization code or refresh token may be expired or it was already used"
	invalidClient  = "invalid client_id and/or client_secret provided."
	invalidRequest = "the request is missing a required parameter, includes an unsupported parameter or parameter value, there is some duplicated value or is otherwise malformed."
	invalidScope   = "the requested scope is invalid, unknown or malformed. The values allowed for parameter scope are: “offline_access”, “write”, “read”."
	grantType      = "the values allowed for grant_type are “authorization_code” or “refresh_token”."
)

var (
	codeRE    = regexp.MustCompile(`^TG-[0-9a-f]{64}-(\d+)$`)
	accessRE  = regexp.MustCompile(`^APP_USR-789-112012-[0-9a-f]{64}-(\d+)$`)
	refreshRE = codeRE
)

type flow struct {
	t *testing.T
	a *apptest.App
}

func (f flow) authorize(query string) apptest.Response {
	f.t.Helper()
	return f.a.Do("GET", "/authorization?"+query, nil)
}

// approve runs the request as user and returns the code of the redirect.
func (f flow) approve(query string, user int) string {
	f.t.Helper()
	r := f.authorize(query+fmt.Sprintf("&user_id=%d", user)).HasStatus(f.t, 302)
	loc, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		f.t.Fatalf("approve: %d %v %s", r.Status, r.Header, r.Body)
	}
	code := loc.Query().Get("code")
	if m := codeRE.FindStringSubmatch(code); m == nil || m[1] != fmt.Sprint(user) {
		f.t.Fatalf("code %q", code)
	}
	return code
}

func (f flow) token(form url.Values) apptest.Response {
	f.t.Helper()
	req := httptest.NewRequest("POST", "/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return f.a.Send(req)
}

// grant checks an answer of the token endpoint exactly: its generated
// tokens have the marketplace's form, the rest is fixed.
func (f flow) grant(r apptest.Response, user int) (access, refresh string) {
	f.t.Helper()
	var g struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	r.JSON(f.t, &g)
	if m := accessRE.FindStringSubmatch(g.AccessToken); m == nil || m[1] != fmt.Sprint(user) {
		f.t.Fatalf("access token %q: %d %s", g.AccessToken, r.Status, r.Body)
	}
	if m := refreshRE.FindStringSubmatch(g.RefreshToken); m == nil || m[1] != fmt.Sprint(user) {
		f.t.Fatalf("refresh token %q", g.RefreshToken)
	}
	r.Is(f.t, 200, fmt.Sprintf(`{"access_token":%q,"token_type":"bearer","expires_in":21600,"scope":"offline_access read write","user_id":%d,"refresh_token":%q}`,
		g.AccessToken, user, g.RefreshToken))
	return g.AccessToken, g.RefreshToken
}

func TestAuthorizationCodeFlow(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		f := flow{t, a}
		a.Sandbox("PUT", "/applications/789", app).Is(t, 200, `{"id":789,"name":"my <integration>","owner_id":123,"client_secret":"s3cret",
			"callback_url":"http://127.0.0.1:9999/n","topics":[],"users":[],"ack_timeout_ms":500,"retry_delays_ms":null,"redirect_uris":["`+cb+`"]}`)
		q := "response_type=code&client_id=789&redirect_uri=" + url.QueryEscape(cb) + "&state=st%22ate&code_challenge=" + s256(verifier) + "&code_challenge_method=S256"

		// The approval page lists the users of the owner's site.
		r := f.authorize(q)
		if r.Status != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" || string(r.Body) != `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Authorize my &lt;integration&gt;</title>
<style>body{font-family:sans-serif;max-width:36em;margin:3em auto}label{display:block;margin:.3em 0}</style></head>
<body>
<h1>Authorize my &lt;integration&gt;</h1>
<p>Application 789 asks to access your account (sandbox users of site MLA).</p>
<form method="get" action="/authorization">
<input type="hidden" name="response_type" value="code">
<input type="hidden" name="client_id" value="789">
<input type="hidden" name="redirect_uri" value="https://app.example/cb">
<input type="hidden" name="state" value="st&#34;ate">
<input type="hidden" name="code_challenge" value="E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM">
<input type="hidden" name="code_challenge_method" value="S256">
<fieldset><legend>Act as</legend>
<label><input type="radio" name="user_id" value="123" checked> SELLER (123, normal)</label>
<label><input type="radio" name="user_id" value="124"> OTHER (124, normal)</label>
<label><input type="radio" name="user_id" value="456"> BUYER (456, normal)</label>
</fieldset>
<p><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></p>
</form>
<p>Scripts: add <code>&amp;user_id=&lt;id&gt;</code> to this page's URL to approve as that user.</p>
</body>
</html>
` {
			t.Fatalf("page: %d %v\n%s", r.Status, r.Header, r.Body)
		}

		// Approving redirects with the code and the state, and grants the
		// application (the page's form sends decision=allow).
		code := f.approve(q+"&decision=allow", 456)
		r = f.authorize(q + "&user_id=124")
		if r.Header.Get("Location") == "" || !strings.HasSuffix(r.Header.Get("Location"), "&state=st%22ate") {
			t.Errorf("state: %v", r.Header)
		}
		a.Sandbox("GET", "/applications/789", nil).Is(t, 200, `{"id":789,"name":"my <integration>","owner_id":123,"client_secret":"s3cret",
			"callback_url":"http://127.0.0.1:9999/n","topics":[],"users":[456,124],"ack_timeout_ms":500,"retry_delays_ms":null,"redirect_uris":["`+cb+`"]}`)

		ex := url.Values{"grant_type": {"authorization_code"}, "client_id": {"789"}, "client_secret": {"s3cret"},
			"code": {code}, "redirect_uri": {cb}, "code_verifier": {verifier}}
		with := func(k, v string) url.Values { return apptest.With(ex, k, v) }
		// Refused exchanges, each exactly; none uses the code up.
		for _, c := range []struct {
			name string
			form url.Values
			want string
		}{
			{"no verifier", with("code_verifier", ""), oauthErr("invalid_request", invalidRequest)},
			{"wrong verifier", with("code_verifier", verifier+"x"), oauthErr("invalid_grant", invalidGrant)},
			{"another redirect_uri", with("redirect_uri", cb+"/"), oauthErr("invalid_grant", invalidGrant)},
			{"wrong secret", with("client_secret", "nope"), oauthErr("invalid_client", invalidClient)},
			{"unknown client", with("client_id", "790"), oauthErr("invalid_client", invalidClient)},
			{"no code", with("code", ""), oauthErr("invalid_request", invalidRequest)},
			{"unknown code", with("code", "TG-0-456"), oauthErr("invalid_grant", invalidGrant)},
			{"bad scope", with("scope", "read admin"), oauthErr("invalid_scope", invalidScope)},
			{"no grant type", with("grant_type", ""), oauthErr("invalid_request", invalidRequest)},
			{"password grant", with("grant_type", "password"), oauthErr("unsupported_grant_type", grantType)},
		} {
			t.Run(c.name, func(t *testing.T) { f.token(c.form).Is(t, 400, c.want) })
		}
		access, refresh := f.grant(f.token(ex), 456)
		// A code works once.
		f.token(ex).Is(t, 400, oauthErr("invalid_grant", invalidGrant))
		// The access token acts for the user; the refresh token works with
		// the application's client.
		a.Do("GET", "/questions/search?item=MLA1100", nil, apptest.Bearer(access)...).HasStatus(t, 403)
		rf := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {"789"}, "client_secret": {"bad"}}
		f.token(rf).Is(t, 400, oauthErr("invalid_client", invalidClient))
		rf.Set("client_secret", "s3cret")
		f.grant(f.token(rf), 456)
		f.token(rf).Is(t, 400, oauthErr("invalid_grant", invalidGrant))
		rf.Del("refresh_token")
		f.token(rf).Is(t, 400, oauthErr("invalid_request", invalidRequest))

		// The parameters may come as a JSON body or in the query string.
		code = f.approve(q, 123)
		js := fmt.Sprintf(`{"grant_type":"authorization_code","client_id":789,"client_secret":"s3cret","code":%q,"redirect_uri":%q,"code_verifier":%q}`, code, cb, verifier)
		f.grant(a.Do("POST", "/oauth/token", js), 123)
		code = f.approve(q, 123)
		f.grant(a.Do("POST", "/oauth/token?"+with("code", code).Encode(), nil), 123)
		a.Do("POST", "/oauth/token", `[1]`).Is(t, 400, oauthErr("invalid_request", invalidRequest))

		// A code expires ten minutes after its issue.
		code = f.approve(q, 123)
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:10:00Z"}).OK(t, 200)
		f.token(with("code", code)).Is(t, 400, oauthErr("invalid_grant", invalidGrant))
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).OK(t, 200)

		// Without PKCE, no verifier; the plain method compares it as is.
		code = f.approve("response_type=code&client_id=789&redirect_uri="+url.QueryEscape(cb), 124)
		f.token(with("code", code)).Is(t, 400, oauthErr("invalid_grant", invalidGrant))
		noVerifier := with("code", code)
		noVerifier.Del("code_verifier")
		f.grant(f.token(noVerifier), 124)
		code = f.approve("response_type=code&client_id=789&redirect_uri="+url.QueryEscape(cb)+"&code_challenge="+verifier, 124)
		f.grant(f.token(with("code", code)), 124)
	})
}

func TestAuthorizationErrors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		f := flow{t, a}
		a.Sandbox("PUT", "/applications/789", app).OK(t, 200)
		ok := "client_id=789&redirect_uri=" + url.QueryEscape(cb) + "&state=s1"
		// About the client or the redirect_uri: answered here.
		for _, c := range []struct {
			query, want string
		}{
			{"response_type=code&redirect_uri=" + url.QueryEscape(cb), oauthErr("invalid_client", invalidClient)},
			{"response_type=code&client_id=abc&redirect_uri=" + url.QueryEscape(cb), oauthErr("invalid_client", invalidClient)},
			{"response_type=code&client_id=790&redirect_uri=" + url.QueryEscape(cb), oauthErr("invalid_client", invalidClient)},
			{"response_type=code&client_id=789", oauthErr("invalid_request", invalidRequest)},
			{"response_type=code&client_id=789&redirect_uri=" + url.QueryEscape(cb+"?x=1"), oauthErr("invalid_request", invalidRequest)},
			{"response_type=code&" + ok + "&user_id=abc", oauthErr("invalid_request", invalidRequest)},
			{"response_type=code&" + ok + "&user_id=999", oauthErr("invalid_request", invalidRequest)},
		} {
			f.authorize(c.query).Is(t, 400, c.want)
		}
		// The others go back to the application.
		for _, c := range []struct {
			query, location string
		}{
			{"response_type=token&" + ok, cb + "?error=unsupported_response_type&error_description=response_type+must+be+code&state=s1"},
			{ok, cb + "?error=invalid_request&error_description=" + url.QueryEscape(invalidRequest) + "&state=s1"},
			{"response_type=code&scope=admin&" + ok, cb + "?error=invalid_scope&error_description=" + url.QueryEscape(invalidScope) + "&state=s1"},
			{"response_type=code&code_challenge=short&" + ok + "&user_id=123", cb + "?error=invalid_request&error_description=" + url.QueryEscape(invalidRequest) + "&state=s1"},
			{"response_type=code&code_challenge=" + verifier + "&code_challenge_method=S512&" + ok, cb + "?error=invalid_request&error_description=" + url.QueryEscape(invalidRequest) + "&state=s1"},
			{"response_type=code&" + ok + "&decision=deny&user_id=123", cb + "?error=access_denied&error_description=the+user+denied+the+application+access&state=s1"},
			{"response_type=code&client_id=789&redirect_uri=" + url.QueryEscape(cb) + "&decision=deny", cb + "?error=access_denied&error_description=the+user+denied+the+application+access"},
		} {
			r := f.authorize(c.query)
			r.HasStatus(t, 302)
			if r.Header.Get("Location") != c.location || len(r.Body) != 0 {
				t.Errorf("%s: %d %q %s\nwant %s", c.query, r.Status, r.Header.Get("Location"), r.Body, c.location)
			}
		}
		// Nothing was granted by refused requests.
		a.Sandbox("GET", "/applications/789", nil).Is(t, 200, `{"id":789,"name":"my <integration>","owner_id":123,"client_secret":"s3cret",
			"callback_url":"http://127.0.0.1:9999/n","topics":[],"users":[],"ack_timeout_ms":500,"retry_delays_ms":null,"redirect_uris":["`+cb+`"]}`)

		// redirect_uris are checked when the application is put.
		for _, c := range []struct{ uris, field, msg string }{
			{`["ftp://x/cb"]`, "redirect_uris[0]", `redirect_uris[0] must be an http or https URL, got "ftp://x/cb"`},
			{`["https://app.example/cb#frag"]`, "redirect_uris[0]", `redirect_uris[0] must not have a fragment, got "https://app.example/cb#frag"`},
			{`["https://a/1","https://a/2","https://a/3","https://a/4","https://a/5","https://a/6","https://a/7","https://a/8","https://a/9","https://a/10","https://a/11"]`,
				"redirect_uris", "redirect_uris may name at most 10 URIs, got 11"},
		} {
			a.Sandbox("PUT", "/applications/791", strings.Replace(app, `["`+cb+`"]`, c.uris, 1)).Is(t, 400, apptest.Err(400, "bad_request", c.msg, c.field, c.msg))
		}
	})
}
