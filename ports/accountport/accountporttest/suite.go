package accountporttest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/ports/accountport"
)

// Store is what the suite exercises.
type Store interface {
	accountport.Users
	accountport.Tokens
	accountport.Codes
}

// TestStore is the contract of the account stores.
func TestStore(t *testing.T, newStore func(t testing.TB) Store) {
	ctx := context.Background()
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	green := "green"
	seller := account.User{ID: 123, Nickname: "SELLER", SiteID: "MLA", UserType: "normal", Reputation: &green,
		Tags: []string{"normal"}, MessagingAllowed: true, DateCreated: at}

	t.Run("users", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.User(ctx, 123); !errors.Is(err, accountport.ErrNotFound) {
			t.Fatalf("missing user: %v", err)
		}
		if err := s.UpsertUser(ctx, seller); err != nil {
			t.Fatal(err)
		}
		got, err := s.User(ctx, 123)
		if err != nil || got.Nickname != "SELLER" || *got.Reputation != "green" || len(got.Tags) != 1 || !got.DateCreated.Equal(at) {
			t.Fatalf("got %+v, %v", got, err)
		}
		changed := seller
		changed.Nickname, changed.Reputation, changed.DateCreated = "RENAMED", nil, at.Add(time.Hour)
		if err := s.UpsertUser(ctx, changed); err != nil {
			t.Fatal(err)
		}
		got, _ = s.User(ctx, 123)
		if got.Nickname != "RENAMED" || got.Reputation != nil || !got.DateCreated.Equal(at) {
			t.Fatalf("upsert: %+v (creation date must be kept)", got)
		}
	})

	t.Run("several users in one read", func(t *testing.T) {
		s := newStore(t)
		for _, id := range []int64{123, 124, 125} {
			u := seller
			u.ID, u.Nickname = id, fmt.Sprint("U", id)
			if err := s.UpsertUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		for _, ids := range [][]int64{nil, {}, {999}} {
			if got, err := s.Users(ctx, ids); err != nil || got == nil || len(got) != 0 {
				t.Errorf("Users(%v) = %v %v, want none", ids, got, err)
			}
		}
		got, err := s.Users(ctx, []int64{125, 999, 123, 125})
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(got, func(a, b account.User) int { return cmp.Compare(a.ID, b.ID) })
		if len(got) != 2 || got[0].ID != 123 || got[0].Nickname != "U123" || *got[0].Reputation != "green" ||
			got[1].ID != 125 || !got[1].DateCreated.Equal(at) {
			t.Errorf("Users = %+v, want 123 and 125 once each", got)
		}
	})

	t.Run("tokens", func(t *testing.T) {
		s := newStore(t)
		if err := s.UpsertUser(ctx, seller); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Token(ctx, "nope"); !errors.Is(err, accountport.ErrNotFound) {
			t.Fatalf("missing token: %v", err)
		}
		tok := account.Token{Hash: account.Hash("v"), UserID: 123, ExpiresAt: at.Add(time.Hour)}
		if err := s.AddToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		got, site, err := s.Token(ctx, tok.Hash)
		if err != nil || got.UserID != 123 || site != "MLA" || !got.ExpiresAt.Equal(tok.ExpiresAt) || got.RevokedAt != nil {
			t.Fatalf("got %+v %q %v", got, site, err)
		}
		if err := s.RevokeToken(ctx, tok.Hash, at); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := s.Token(ctx, tok.Hash); got.RevokedAt == nil || got.Valid(at.Add(-time.Minute)) {
			t.Fatalf("revoked token: %+v", got)
		}
		if err := s.RevokeToken(ctx, "unknown", at); !errors.Is(err, accountport.ErrNotFound) {
			t.Fatalf("revoke unknown: %v", err)
		}
		// Adding the same value again renews it.
		if err := s.AddToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := s.Token(ctx, tok.Hash); got.RevokedAt != nil {
			t.Fatalf("re-added token still revoked")
		}
	})

	t.Run("refresh tokens work once, newest only", func(t *testing.T) {
		s := newStore(t)
		if err := s.UpsertUser(ctx, seller); err != nil {
			t.Fatal(err)
		}
		if err := s.SetRefresh(ctx, 123, 0, "r1"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetRefresh(ctx, 123, 0, "r2"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.TakeRefresh(ctx, "r1"); !errors.Is(err, accountport.ErrNotFound) {
			t.Fatalf("older refresh token: %v", err)
		}
		if _, _, err := s.Refresh(ctx, "r1"); !errors.Is(err, accountport.ErrNotFound) {
			t.Fatalf("older refresh token read: %v", err)
		}
		if user, app, err := s.Refresh(ctx, "r2"); err != nil || user != 123 || app != 0 {
			t.Fatalf("read: %d %d %v", user, app, err)
		}
		if user, app, err := s.TakeRefresh(ctx, "r2"); err != nil || user != 123 || app != 0 {
			t.Fatalf("take: %d %d %v", user, app, err)
		}
		if _, _, err := s.TakeRefresh(ctx, "r2"); !errors.Is(err, accountport.ErrNotFound) {
			t.Fatalf("second take: %v", err)
		}
		if _, _, err := s.Refresh(ctx, "r2"); !errors.Is(err, accountport.ErrNotFound) {
			t.Fatalf("read after take: %v", err)
		}
	})

	t.Run("one refresh token per user and application", func(t *testing.T) {
		s := newStore(t)
		if err := s.UpsertUser(ctx, seller); err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			app  int64
			hash string
		}{{0, "plain"}, {789, "app-789"}, {790, "app-790"}, {789, "app-789-newer"}} {
			if err := s.SetRefresh(ctx, 123, r.app, r.hash); err != nil {
				t.Fatal(err)
			}
		}
		for hash, app := range map[string]int64{"plain": 0, "app-790": 790, "app-789-newer": 789} {
			if user, got, err := s.Refresh(ctx, hash); err != nil || user != 123 || got != app {
				t.Errorf("refresh %s: user %d app %d %v, want app %d", hash, user, got, err, app)
			}
		}
		if _, _, err := s.Refresh(ctx, "app-789"); !errors.Is(err, accountport.ErrNotFound) {
			t.Errorf("replaced refresh token of app 789: %v", err)
		}
		if user, app, err := s.TakeRefresh(ctx, "app-790"); err != nil || user != 123 || app != 790 {
			t.Fatalf("take: %d %d %v", user, app, err)
		}
	})

	t.Run("a token keeps its application", func(t *testing.T) {
		s := newStore(t)
		if err := s.UpsertUser(ctx, seller); err != nil {
			t.Fatal(err)
		}
		for hash, app := range map[string]int64{account.Hash("plain"): 0, account.Hash("of-app"): 789} {
			if err := s.AddToken(ctx, account.Token{Hash: hash, UserID: 123, AppID: app, ExpiresAt: at.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
			if got, _, err := s.Token(ctx, hash); err != nil || got.AppID != app {
				t.Errorf("token of app %d: %+v %v", app, got, err)
			}
		}
	})

	t.Run("users of a site", func(t *testing.T) {
		s := newStore(t)
		for _, u := range []account.User{
			{ID: 7, Nickname: "C", SiteID: "MLA", UserType: "normal", Tags: []string{}, DateCreated: at},
			{ID: 5, Nickname: "A", SiteID: "MLA", UserType: "normal", Tags: []string{}, DateCreated: at},
			{ID: 6, Nickname: "B", SiteID: "MLB", UserType: "normal", Tags: []string{}, DateCreated: at},
			{ID: 9, Nickname: "D", SiteID: "MLA", UserType: "brand", Tags: []string{}, DateCreated: at},
		} {
			if err := s.UpsertUser(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(site string, limit int) []int64 {
			us, err := s.SiteUsers(ctx, site, limit)
			if err != nil {
				t.Fatal(err)
			}
			out := []int64{}
			for _, u := range us {
				out = append(out, u.ID)
			}
			return out
		}
		if got := ids("MLA", 10); !slices.Equal(got, []int64{5, 7, 9}) {
			t.Errorf("MLA users %v", got)
		}
		if got := ids("MLA", 2); !slices.Equal(got, []int64{5, 7}) {
			t.Errorf("two MLA users %v", got)
		}
		if got := ids("MLM", 10); len(got) != 0 {
			t.Errorf("MLM users %v", got)
		}
	})

	t.Run("authorization codes work once and expire", func(t *testing.T) {
		s := newStore(t)
		if err := s.UpsertUser(ctx, seller); err != nil {
			t.Fatal(err)
		}
		c := account.AuthCode{Hash: "h1", AppID: 789, UserID: 123, RedirectURI: "https://app.example/cb",
			Challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", Method: account.MethodS256, ExpiresAt: at.Add(account.CodeLifetime)}
		if err := s.AddCode(ctx, c); err != nil {
			t.Fatal(err)
		}
		got, err := s.Code(ctx, "h1")
		got.ExpiresAt = got.ExpiresAt.UTC()
		if err != nil || got != c {
			t.Fatalf("code: %+v %v", got, err)
		}
		if _, err := s.Code(ctx, "h2"); !errors.Is(err, accountport.ErrNotFound) {
			t.Errorf("unknown code: %v", err)
		}
		if err := s.TakeCode(ctx, "h1", at.Add(account.CodeLifetime)); !errors.Is(err, accountport.ErrNotFound) {
			t.Errorf("expired take: %v", err)
		}
		if err := s.TakeCode(ctx, "h1", at); err != nil {
			t.Fatalf("take: %v", err)
		}
		if err := s.TakeCode(ctx, "h1", at); !errors.Is(err, accountport.ErrNotFound) {
			t.Errorf("second take: %v", err)
		}
		if _, err := s.Code(ctx, "h1"); !errors.Is(err, accountport.ErrNotFound) {
			t.Errorf("a used code is still read: %v", err)
		}
		plain := account.AuthCode{Hash: "h3", AppID: 789, UserID: 123, RedirectURI: "https://app.example/cb", ExpiresAt: at.Add(time.Minute)}
		if err := s.AddCode(ctx, plain); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Code(ctx, "h3"); err != nil || got.Challenge != "" || got.Method != "" {
			t.Errorf("a code without PKCE: %+v %v", got, err)
		}
		// Two takes at once: one wins.
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.TakeCode(ctx, "h3", at) == nil {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Errorf("%d concurrent takes won", wins.Load())
		}
	})
}
