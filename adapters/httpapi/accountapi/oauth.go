package accountapi

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/accountport"
)

// oauthError is the body of a refused OAuth request, as the marketplace's
// OAuth server answers it.
type oauthError struct {
	ErrorDescription string         `json:"error_description"`
	Error            string         `json:"error"`
	Status           int            `json:"status"`
	Cause            []kernel.Cause `json:"cause"`
}

// renderOAuth answers a domain error of the OAuth routes in the OAuth
// shape, with the error's status; any other error (a backend down) goes to
// the app's error handler.
func renderOAuth(c *fiber.Ctx, err error) error {
	var e *kernel.Error
	if !errors.As(err, &e) || e.Kind == kernel.Internal || e.Kind == kernel.Unavailable {
		return err
	}
	status, _ := httpapi.DefaultErrorBody(e)
	// The marketplace's OAuth server names no cause: the error and its
	// description are the whole answer.
	return c.Status(status).JSON(oauthError{ErrorDescription: e.Message, Error: e.Code, Status: status, Cause: []kernel.Cause{}})
}

// Routes serves the OAuth routes of the marketplace: the authorization
// page (GET /authorization) and the token endpoint (POST /oauth/token,
// grant_type authorization_code or refresh_token).
func Routes(app fiber.Router, svc accountport.Service) {
	app.Get("/authorization", authorize(svc))
	app.Post("/oauth/token", token(svc))
}

// tokenParams reads the token endpoint's parameters from where clients put
// them: the form body (the documented way), the query string (older SDKs)
// or a JSON body.
type tokenParams struct {
	c    *fiber.Ctx
	json map[string]any
}

func newTokenParams(c *fiber.Ctx) (tokenParams, error) {
	p := tokenParams{c: c}
	if strings.HasPrefix(strings.ToLower(c.Get(fiber.HeaderContentType)), fiber.MIMEApplicationJSON) && len(c.Body()) > 0 {
		if err := json.Unmarshal(c.Body(), &p.json); err != nil {
			return p, account.ErrInvalidRequest.WithCause("body", "the JSON body is not an object")
		}
	}
	return p, nil
}

func (p tokenParams) get(name string) string {
	if v := p.c.FormValue(name); v != "" {
		return strings.Clone(v)
	}
	switch v := p.json[name].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

func token(svc accountport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := newTokenParams(c)
		if err != nil {
			return renderOAuth(c, err)
		}
		var g account.Grant
		switch grant := p.get("grant_type"); grant {
		case "authorization_code":
			g, err = svc.ExchangeCode(c.UserContext(), account.Exchange{ClientID: p.get("client_id"), ClientSecret: p.get("client_secret"),
				Code: p.get("code"), RedirectURI: p.get("redirect_uri"), CodeVerifier: p.get("code_verifier"), Scope: p.get("scope")})
		case "refresh_token":
			if err = account.CheckScope(p.get("scope")); err == nil {
				g, err = svc.Refresh(c.UserContext(), p.get("refresh_token"), p.get("client_id"), p.get("client_secret"))
			}
		case "":
			err = account.ErrInvalidRequest.WithCause("grant_type", "grant_type is required")
		default:
			err = account.ErrGrantType.WithCause("grant_type", "grant_type "+strconv.Quote(grant)+" is not supported")
		}
		if err != nil {
			return renderOAuth(c, err)
		}
		return c.JSON(g)
	}
}

// authRequest reads an authorization request from the query string.
func authRequest(c *fiber.Ctx) account.AuthRequest {
	q := func(name string) string { return httpapi.Query(c, name) }
	return account.AuthRequest{ResponseType: q("response_type"), ClientID: q("client_id"), RedirectURI: q("redirect_uri"),
		State: q("state"), Scope: q("scope"), CodeChallenge: q("code_challenge"), CodeChallengeMethod: q("code_challenge_method")}
}

// back is the redirect_uri with params added to its query, and the state
// when the request had one.
func back(r account.AuthRequest, params url.Values) string {
	u, err := url.Parse(r.RedirectURI)
	if err != nil { // a registered redirect URI always parses
		return r.RedirectURI
	}
	q := u.Query()
	for k, v := range params {
		q[k] = v
	}
	if r.State != "" {
		q.Set("state", r.State)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// authorize serves GET /authorization. Without user_id it shows the
// approval page: the sandbox users of the application owner's site to act
// as. With user_id (the page's form, or a script) that user approves, and
// the browser goes back to redirect_uri?code=...&state=...; decision=deny
// goes back with error=access_denied. Errors about the client or the
// redirect_uri are answered here (400, OAuth shape); the others go back
// to the redirect_uri as error and error_description (RFC 6749 §4.1.2.1).
func authorize(svc accountport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		r := authRequest(c)
		fail := func(err error) error {
			var e *kernel.Error
			if account.Redirectable(err) && errors.As(err, &e) && e.Kind != kernel.Internal && e.Kind != kernel.Unavailable {
				return c.Redirect(back(r, url.Values{"error": {e.Code}, "error_description": {e.Message}}), fiber.StatusFound)
			}
			return renderOAuth(c, err)
		}
		if c.Query("decision") == "deny" {
			if _, err := svc.Consent(c.UserContext(), r); err != nil {
				return fail(err)
			}
			return fail(account.ErrAccessDenied)
		}
		raw := c.Query("user_id")
		if raw == "" {
			consent, err := svc.Consent(c.UserContext(), r)
			if err != nil {
				return fail(err)
			}
			c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
			c.Set("Cache-Control", "no-store")
			return consentPage.Execute(c.Response().BodyWriter(), pageData{Consent: consent, Request: r, Base: httpapi.Base(c)})
		}
		userID, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || userID <= 0 {
			return renderOAuth(c, account.ErrNoRedirect.WithCause("user_id", "user_id must be a positive integer"))
		}
		code, err := svc.Approve(c.UserContext(), r, userID)
		if err != nil {
			return fail(err)
		}
		return c.Redirect(back(r, url.Values{"code": {code}}), fiber.StatusFound)
	}
}

type pageData struct {
	// Base leads the page's own URL: a world's base path, or nothing.
	Base string
	account.Consent
	Request account.AuthRequest
}

// consentPage is the approval page: a form that sends the same request
// back with the chosen user_id and the decision.
var consentPage = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Authorize {{.AppName}}</title>
<style>body{font-family:sans-serif;max-width:36em;margin:3em auto}label{display:block;margin:.3em 0}</style></head>
<body>
<h1>Authorize {{.AppName}}</h1>
<p>Application {{.AppID}} asks to access your account (sandbox users of site {{.SiteID}}).</p>
<form method="get" action="{{.Base}}/authorization">
<input type="hidden" name="response_type" value="{{.Request.ResponseType}}">
<input type="hidden" name="client_id" value="{{.Request.ClientID}}">
<input type="hidden" name="redirect_uri" value="{{.Request.RedirectURI}}">
{{with .Request.State}}<input type="hidden" name="state" value="{{.}}">
{{end}}{{with .Request.Scope}}<input type="hidden" name="scope" value="{{.}}">
{{end}}{{with .Request.CodeChallenge}}<input type="hidden" name="code_challenge" value="{{.}}">
{{end}}{{with .Request.CodeChallengeMethod}}<input type="hidden" name="code_challenge_method" value="{{.}}">
{{end}}<fieldset><legend>Act as</legend>
{{range $i, $u := .Users}}<label><input type="radio" name="user_id" value="{{$u.ID}}"{{if eq $i 0}} checked{{end}}> {{$u.Nickname}} ({{$u.ID}}, {{$u.UserType}})</label>
{{else}}<p>The site has no sandbox users: create one with PUT /sandbox/users/{user_id}.</p>
{{end}}</fieldset>
<p><button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></p>
</form>
<p>Scripts: add <code>&amp;user_id=&lt;id&gt;</code> to this page's URL to approve as that user.</p>
</body>
</html>
`))
