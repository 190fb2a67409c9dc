package account_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/account"
)

// RFC 7636 Appendix B's example.
const (
	rfcVerifier  = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	rfcChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
)

func TestVerifyPKCE(t *testing.T) {
	for _, c := range []struct {
		challenge, method, verifier string
		ok                          bool
	}{
		{rfcChallenge, account.MethodS256, rfcVerifier, true},
		{rfcChallenge, account.MethodS256, rfcVerifier + "x", false},
		{rfcChallenge, account.MethodS256, rfcChallenge, false},
		{rfcVerifier, account.MethodPlain, rfcVerifier, true},
		{rfcVerifier, account.MethodPlain, strings.ToUpper(rfcVerifier), false},
	} {
		if got := account.VerifyPKCE(c.challenge, c.method, c.verifier); got != c.ok {
			t.Errorf("%s %s %s: %t", c.method, c.challenge, c.verifier, got)
		}
	}
}

func TestCheckRequest(t *testing.T) {
	ok := account.AuthRequest{ResponseType: "code", ClientID: "1", RedirectURI: "https://a/cb"}
	for _, c := range []struct {
		name string
		edit func(*account.AuthRequest)
		err  error
	}{
		{"plain request", func(*account.AuthRequest) {}, nil},
		{"S256", func(r *account.AuthRequest) { r.CodeChallenge, r.CodeChallengeMethod = rfcChallenge, "S256" }, nil},
		{"challenge without method is plain", func(r *account.AuthRequest) { r.CodeChallenge = rfcVerifier }, nil},
		{"every scope", func(r *account.AuthRequest) { r.Scope = "offline_access read  write" }, nil},
		{"no response type", func(r *account.AuthRequest) { r.ResponseType = "" }, account.ErrInvalidRequest},
		{"token", func(r *account.AuthRequest) { r.ResponseType = "token" }, account.ErrResponseType},
		{"scope", func(r *account.AuthRequest) { r.Scope = "read delete" }, account.ErrInvalidScope},
		{"method without challenge", func(r *account.AuthRequest) { r.CodeChallengeMethod = "S256" }, account.ErrInvalidRequest},
		{"unknown method", func(r *account.AuthRequest) { r.CodeChallenge, r.CodeChallengeMethod = rfcChallenge, "s256" }, account.ErrInvalidRequest},
		{"42 characters", func(r *account.AuthRequest) { r.CodeChallenge = rfcChallenge[:42] }, account.ErrInvalidRequest},
		{"129 characters", func(r *account.AuthRequest) { r.CodeChallenge = strings.Repeat("a", 129) }, account.ErrInvalidRequest},
		{"a character outside the set", func(r *account.AuthRequest) { r.CodeChallenge = rfcChallenge[:42] + "+" }, account.ErrInvalidRequest},
	} {
		r := ok
		c.edit(&r)
		if err := account.CheckRequest(r); c.err == nil && err != nil || c.err != nil && !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	if m := (account.AuthRequest{CodeChallenge: "x"}).Method(); m != account.MethodPlain {
		t.Errorf("default method %q", m)
	}
}

func TestCheckRedirect(t *testing.T) {
	reg := []string{"https://app.example/cb", "http://localhost:3000/cb"}
	for uri, ok := range map[string]bool{
		"https://app.example/cb": true, "http://localhost:3000/cb": true,
		"https://app.example/cb/": false, "https://APP.example/cb": false, "https://app.example/cb?x=1": false, "": false,
	} {
		err := account.CheckRedirect(uri, reg)
		if ok != (err == nil) || (err != nil && account.Redirectable(err)) {
			t.Errorf("%q: %v", uri, err)
		}
	}
}

func TestTokenFormats(t *testing.T) {
	at := time.Date(2026, 3, 9, 7, 45, 0, 0, time.FixedZone("ART", -3*3600))
	if v := account.NewAccessToken(789, 123, at); !regexp.MustCompile(`^APP_USR-789-030910-[0-9a-f]{64}-123$`).MatchString(v) {
		t.Errorf("access token %q", v)
	}
	if v := account.NewAccessToken(0, 5, at); !regexp.MustCompile(`^APP_USR-0-030910-[0-9a-f]{64}-5$`).MatchString(v) {
		t.Errorf("access token without application %q", v)
	}
	if v := account.NewRefreshToken(123); !regexp.MustCompile(`^TG-[0-9a-f]{64}-123$`).MatchString(v) {
		t.Errorf("refresh token %q", v)
	}
	if a, b := account.NewCode(1), account.NewCode(1); a == b || !strings.HasPrefix(a, "TG-") || !strings.HasSuffix(a, "-1") {
		t.Errorf("codes %q %q", a, b)
	}
}
