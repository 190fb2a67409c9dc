package accountsvc_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/account/accountsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/accountport/accountporttest"
)

// clients is the applications of the OAuth tests; Grant records approvals.
type clients struct {
	known   map[int64]account.Client
	granted [][2]int64
}

func (c *clients) Client(_ context.Context, id int64) (account.Client, error) {
	a, ok := c.known[id]
	if !ok {
		return account.Client{}, accountport.ErrNotFound
	}
	return a, nil
}

func (c *clients) Grant(_ context.Context, app, user int64) error {
	c.granted = append(c.granted, [2]int64{app, user})
	return nil
}

const cb = "https://app.example/cb"

func oauthSetup(t *testing.T) (*accountsvc.Service, *clients, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	cs := &clients{known: map[int64]account.Client{789: {AppID: 789, Secret: "s3cret", Name: "my-integration", OwnerID: 1, RedirectURIs: []string{cb}}}}
	svc := accountsvc.New(accountsvc.Deps{Store: accountporttest.NewMemory(), Tx: kerneltest.Tx{}, Clock: clk, Applications: cs})
	for _, u := range []account.User{{ID: 1, SiteID: "MLA", UserType: "normal"}, {ID: 2, SiteID: "MLA", UserType: "normal"}, {ID: 3, SiteID: "MLB", UserType: "normal"}} {
		if _, err := svc.PutUser(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	return svc, cs, clk
}

func challenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

func TestAuthorizationCodeFlow(t *testing.T) {
	ctx := context.Background()
	svc, cs, clk := oauthSetup(t)
	req := account.AuthRequest{ResponseType: "code", ClientID: "789", RedirectURI: cb, State: "xyz",
		CodeChallenge: challenge(verifier), CodeChallengeMethod: "S256"}
	consent, err := svc.Consent(ctx, req)
	if err != nil || consent.AppID != 789 || consent.AppName != "my-integration" || consent.SiteID != "MLA" || len(consent.Users) != 2 {
		t.Fatalf("consent: %+v %v", consent, err)
	}
	code, err := svc.Approve(ctx, req, 2)
	if err != nil || !regexp.MustCompile(`^TG-[0-9a-f]{64}-2$`).MatchString(code) {
		t.Fatalf("approve: %q %v", code, err)
	}
	if !slices.Equal(cs.granted, [][2]int64{{789, 2}}) {
		t.Errorf("grants %v", cs.granted)
	}
	ex := account.Exchange{ClientID: "789", ClientSecret: "s3cret", Code: code, RedirectURI: cb, CodeVerifier: verifier}
	// Refused exchanges leave the code usable.
	for _, c := range []struct {
		name string
		ex   func(account.Exchange) account.Exchange
		err  *kernel.Error
	}{
		{"no verifier", func(e account.Exchange) account.Exchange { e.CodeVerifier = ""; return e }, account.ErrInvalidRequest},
		{"wrong verifier", func(e account.Exchange) account.Exchange { e.CodeVerifier = verifier + "x"; return e }, account.ErrInvalidGrant},
		{"other redirect", func(e account.Exchange) account.Exchange { e.RedirectURI = cb + "/"; return e }, account.ErrInvalidGrant},
		{"wrong secret", func(e account.Exchange) account.Exchange { e.ClientSecret = "nope"; return e }, account.ErrInvalidClient},
		{"unknown client", func(e account.Exchange) account.Exchange { e.ClientID = "790"; return e }, account.ErrInvalidClient},
		{"non-numeric client", func(e account.Exchange) account.Exchange { e.ClientID = "app"; return e }, account.ErrInvalidClient},
		{"no secret", func(e account.Exchange) account.Exchange { e.ClientSecret = ""; return e }, account.ErrInvalidRequest},
		{"unknown code", func(e account.Exchange) account.Exchange { e.Code = "TG-x-2"; return e }, account.ErrInvalidGrant},
		{"bad scope", func(e account.Exchange) account.Exchange { e.Scope = "read admin"; return e }, account.ErrInvalidScope},
	} {
		if _, err := svc.ExchangeCode(ctx, c.ex(ex)); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	g, err := svc.ExchangeCode(ctx, ex)
	if err != nil || g.UserID != 2 || g.TokenType != "bearer" || g.Scope != account.Scope || g.ExpiresIn != 21600 ||
		!regexp.MustCompile(`^APP_USR-789-112012-[0-9a-f]{64}-2$`).MatchString(g.AccessToken) ||
		!regexp.MustCompile(`^TG-[0-9a-f]{64}-2$`).MatchString(g.RefreshToken) {
		t.Fatalf("exchange: %+v %v", g, err)
	}
	if c, err := svc.Authenticate(ctx, g.AccessToken); err != nil || c != (kernel.Caller{UserID: 2, SiteID: "MLA", AppID: 789}) {
		t.Fatalf("the token is the application's: %+v %v", c, err)
	}
	// A code works once.
	if _, err := svc.ExchangeCode(ctx, ex); !errors.Is(err, account.ErrInvalidGrant) {
		t.Errorf("second exchange: %v", err)
	}
	// The pair refreshes with the application's client only.
	if _, err := svc.Refresh(ctx, g.RefreshToken, "789", "nope"); !errors.Is(err, account.ErrInvalidClient) {
		t.Errorf("refresh with a wrong secret: %v", err)
	}
	if _, err := svc.Refresh(ctx, g.RefreshToken, "789", "s3cret"); err != nil {
		t.Errorf("refresh: %v", err)
	}

	// A code expires CodeLifetime after its issue.
	code, _ = svc.Approve(ctx, req, 1)
	clk.now = clk.now.Add(account.CodeLifetime)
	ex.Code = code
	if _, err := svc.ExchangeCode(ctx, ex); !errors.Is(err, account.ErrInvalidGrant) {
		t.Errorf("expired code: %v", err)
	}
	// Without PKCE no verifier is wanted, and none may be sent.
	plain := req
	plain.CodeChallenge, plain.CodeChallengeMethod = "", ""
	code, _ = svc.Approve(ctx, plain, 3)
	ex.Code = code
	if _, err := svc.ExchangeCode(ctx, ex); !errors.Is(err, account.ErrInvalidGrant) {
		t.Errorf("a verifier for a code without challenge: %v", err)
	}
	ex.CodeVerifier = ""
	if g, err := svc.ExchangeCode(ctx, ex); err != nil || g.UserID != 3 {
		t.Errorf("a code without PKCE: %+v %v", g, err)
	}
	// The plain method compares the verifier itself.
	pl := req
	pl.CodeChallenge, pl.CodeChallengeMethod = verifier, ""
	code, _ = svc.Approve(ctx, pl, 1)
	if _, err := svc.ExchangeCode(ctx, account.Exchange{ClientID: "789", ClientSecret: "s3cret", Code: code, RedirectURI: cb, CodeVerifier: verifier}); err != nil {
		t.Errorf("plain PKCE: %v", err)
	}
}

func TestAuthorizationRequestErrors(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := oauthSetup(t)
	ok := account.AuthRequest{ResponseType: "code", ClientID: "789", RedirectURI: cb}
	for _, c := range []struct {
		name     string
		r        func(account.AuthRequest) account.AuthRequest
		err      *kernel.Error
		redirect bool
	}{
		{"no client", func(r account.AuthRequest) account.AuthRequest { r.ClientID = ""; return r }, account.ErrNoClient, false},
		{"unknown client", func(r account.AuthRequest) account.AuthRequest { r.ClientID = "7"; return r }, account.ErrNoClient, false},
		{"another redirect", func(r account.AuthRequest) account.AuthRequest { r.RedirectURI = cb + "?x=1"; return r }, account.ErrNoRedirect, false},
		{"no redirect", func(r account.AuthRequest) account.AuthRequest { r.RedirectURI = ""; return r }, account.ErrNoRedirect, false},
		{"token response", func(r account.AuthRequest) account.AuthRequest { r.ResponseType = "token"; return r }, account.ErrResponseType, true},
		{"no response type", func(r account.AuthRequest) account.AuthRequest { r.ResponseType = ""; return r }, account.ErrInvalidRequest, true},
		{"bad scope", func(r account.AuthRequest) account.AuthRequest { r.Scope = "admin"; return r }, account.ErrInvalidScope, true},
		{"bad method", func(r account.AuthRequest) account.AuthRequest {
			r.CodeChallenge, r.CodeChallengeMethod = challenge(verifier), "S512"
			return r
		}, account.ErrInvalidRequest, true},
		{"short challenge", func(r account.AuthRequest) account.AuthRequest { r.CodeChallenge = "abc"; return r }, account.ErrInvalidRequest, true},
	} {
		_, err := svc.Consent(ctx, c.r(ok))
		if !errors.Is(err, c.err) || account.Redirectable(err) != c.redirect {
			t.Errorf("%s: %v, want %v (redirect %t)", c.name, err, c.err, c.redirect)
		}
	}
	if _, err := svc.Approve(ctx, ok, 99); !errors.Is(err, account.ErrNoRedirect) || account.Redirectable(err) {
		t.Errorf("unknown user: %v", err)
	}
}
