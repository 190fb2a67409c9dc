package accountsvc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/account/accountsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/accountport/accountporttest"
)

type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// setup builds the service on a store holding user 1, with no application.
func setup(t *testing.T) (*accountsvc.Service, *clock) {
	t.Helper()
	return setupWith(t, apps{})
}

// setupWith is setup with the applications tokens may belong to.
func setupWith(t *testing.T, applications accountport.Applications) (*accountsvc.Service, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	svc := accountsvc.New(accountsvc.Deps{Store: accountporttest.NewMemory(), Tx: kerneltest.Tx{}, Clock: clk, Applications: applications})
	if _, err := svc.PutUser(context.Background(), account.User{ID: 1, Nickname: "S", SiteID: "MLA", UserType: "normal"}); err != nil {
		t.Fatal(err)
	}
	return svc, clk
}

func TestTokenLifecycle(t *testing.T) {
	ctx := context.Background()
	svc, clk := setup(t)
	g, err := svc.IssueToken(ctx, account.Issue{UserID: 1, Value: "APP_USR-fixed", Lifetime: 10 * time.Second})
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
	g, _ = svc.IssueToken(ctx, account.Issue{UserID: 1})
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
	if _, err := svc.IssueToken(ctx, account.Issue{UserID: 99}); !errors.Is(err, account.ErrUserNotFound) {
		t.Fatalf("unknown user: %v", err)
	}
}

func TestRefreshWorksOnce(t *testing.T) {
	ctx := context.Background()
	svc, _ := setup(t)
	first, _ := svc.IssueToken(ctx, account.Issue{UserID: 1})
	second, err := svc.Refresh(ctx, first.RefreshToken, "", "")
	if err != nil || second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken {
		t.Fatalf("refresh: %+v %v", second, err)
	}
	if _, err := svc.Refresh(ctx, first.RefreshToken, "", ""); !errors.Is(err, account.ErrInvalidGrant) {
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

// apps is the applications the account module sees in these tests.
type apps map[int64]string

func (a apps) Client(_ context.Context, id int64) (account.Client, error) {
	secret, ok := a[id]
	if !ok {
		return account.Client{}, accountport.ErrNotFound
	}
	return account.Client{AppID: id, Secret: secret}, nil
}

func (a apps) Grant(context.Context, int64, int64) error { return nil }

func TestTokensOfAnApplication(t *testing.T) {
	ctx := context.Background()
	svc, _ := setup(t)
	if _, err := svc.IssueToken(ctx, account.Issue{UserID: 1, AppID: 789}); !errors.Is(err, account.ErrApplicationNotFound) {
		t.Fatalf("no applications known: %v", err)
	}
	svc, _ = setupWith(t, apps{789: "app-secret", 790: "other-secret"})
	if _, err := svc.IssueToken(ctx, account.Issue{UserID: 1, AppID: 7}); !errors.Is(err, account.ErrApplicationNotFound) {
		t.Fatalf("unknown application: %v", err)
	}
	g, err := svc.IssueToken(ctx, account.Issue{UserID: 1, AppID: 789})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := svc.Authenticate(ctx, g.AccessToken); err != nil || c != (kernel.Caller{UserID: 1, SiteID: "MLA", AppID: 789}) {
		t.Fatalf("caller of an application's token: %+v %v", c, err)
	}
	// Every wrong client is refused and leaves the refresh token usable.
	for _, c := range [][2]string{{"", ""}, {"789", ""}, {"789", "other-secret"}, {"790", "other-secret"}, {"790", "app-secret"}, {"0789", "app-secret"}} {
		if _, err := svc.Refresh(ctx, g.RefreshToken, c[0], c[1]); !errors.Is(err, account.ErrInvalidClient) {
			t.Errorf("client %q/%q: %v, want invalid_client", c[0], c[1], err)
		}
	}
	next, err := svc.Refresh(ctx, g.RefreshToken, "789", "app-secret")
	if err != nil {
		t.Fatalf("refresh with the application's client: %v", err)
	}
	if c, err := svc.Authenticate(ctx, next.AccessToken); err != nil || c.AppID != 789 {
		t.Fatalf("a refreshed token keeps the application: %+v %v", c, err)
	}
	if _, err := svc.Refresh(ctx, next.RefreshToken, "790", "other-secret"); !errors.Is(err, account.ErrInvalidClient) {
		t.Fatalf("the refreshed pair is the application's too: %v", err)
	}
	// A token without an application takes any client, or none.
	plain, _ := svc.IssueToken(ctx, account.Issue{UserID: 1})
	if _, err := svc.Refresh(ctx, plain.RefreshToken, "790", "wrong"); err != nil {
		t.Fatalf("token without application: %v", err)
	}
	// One refresh token per user and application: issuing a plain token
	// left the application's refresh token usable.
	if _, err := svc.Refresh(ctx, next.RefreshToken, "789", "app-secret"); err != nil {
		t.Fatalf("application's refresh token after a plain issue: %v", err)
	}
}
