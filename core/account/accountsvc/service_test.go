package accountsvc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/account/accountsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/accountport/accountporttest"
)

type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func setup(t *testing.T) (*accountsvc.Service, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	svc := accountsvc.New(accountporttest.NewMemory(), clk)
	if _, err := svc.PutUser(context.Background(), account.User{ID: 1, Nickname: "S", SiteID: "MLA", UserType: "normal"}); err != nil {
		t.Fatal(err)
	}
	return svc, clk
}

func TestTokenLifecycle(t *testing.T) {
	ctx := context.Background()
	svc, clk := setup(t)
	g, err := svc.IssueToken(ctx, 1, "APP_USR-fixed", 10*time.Second)
	if err != nil || g.AccessToken != "APP_USR-fixed" || g.ExpiresIn != 10 || g.TokenType != "bearer" || g.UserID != 1 {
		t.Fatalf("issue: %+v %v", g, err)
	}
	if c, err := svc.Authenticate(ctx, "APP_USR-fixed"); err != nil || c != (kernel.Caller{UserID: 1, SiteID: "MLA"}) {
		t.Fatalf("authenticate: %+v %v", c, err)
	}
	clk.now = clk.now.Add(10 * time.Second)
	if _, err := svc.Authenticate(ctx, "APP_USR-fixed"); !errors.Is(err, account.ErrTokenInvalid) {
		t.Fatalf("expired: %v", err)
	}
	g, _ = svc.IssueToken(ctx, 1, "", 0)
	if g.ExpiresIn != 21600 || len(g.AccessToken) < 40 {
		t.Fatalf("generated: %+v", g)
	}
	if err := svc.RevokeToken(ctx, g.AccessToken); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, g.AccessToken); !errors.Is(err, account.ErrTokenInvalid) {
		t.Fatalf("revoked: %v", err)
	}
	if _, err := svc.Authenticate(ctx, "unknown"); !errors.Is(err, account.ErrTokenInvalid) {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := svc.IssueToken(ctx, 99, "", 0); !errors.Is(err, account.ErrUserNotFound) {
		t.Fatalf("unknown user: %v", err)
	}
}

func TestRefreshWorksOnce(t *testing.T) {
	ctx := context.Background()
	svc, _ := setup(t)
	first, _ := svc.IssueToken(ctx, 1, "", 0)
	second, err := svc.Refresh(ctx, first.RefreshToken)
	if err != nil || second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Fatalf("refresh: %+v %v", second, err)
	}
	if _, err := svc.Refresh(ctx, first.RefreshToken); !errors.Is(err, account.ErrInvalidGrant) {
		t.Fatalf("reuse: %v", err)
	}
	if _, err := svc.Authenticate(ctx, second.AccessToken); err != nil {
		t.Fatalf("new token: %v", err)
	}
}

func TestPutUserValidates(t *testing.T) {
	svc, _ := setup(t)
	purple := "purple"
	_, err := svc.PutUser(context.Background(), account.User{ID: 2, SiteID: "XXX", UserType: "robot", Reputation: &purple})
	var e *kernel.Error
	if !errors.As(err, &e) || e.Kind != kernel.Invalid || len(e.Causes) != 3 {
		t.Fatalf("got %v", err)
	}
	for i, field := range []string{"site_id", "user_type", "reputation"} {
		if e.Causes[i].Code != field {
			t.Errorf("cause %d = %+v; want %s", i, e.Causes[i], field)
		}
	}
}
