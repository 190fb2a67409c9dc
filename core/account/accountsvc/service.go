// Package accountsvc implements the account use cases: authentication of
// access tokens, issuance, revocation and refresh.
package accountsvc

import (
	"context"
	"errors"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/accountport"
)

// Store is the storage the service needs.
type Store interface {
	accountport.Users
	accountport.Tokens
}

// Service implements accountport.Service.
type Service struct {
	store Store
	clock kernel.Clock
	apps  accountport.Applications
}

var _ accountport.Service = (*Service)(nil)

// New returns the account service.
func New(store Store, clock kernel.Clock) *Service {
	return &Service{store: store, clock: clock}
}

// WithApplications lets tokens belong to the applications apps knows; the
// apps module is built after this one (it checks users), hence a setter.
func (s *Service) WithApplications(apps accountport.Applications) *Service {
	s.apps = apps
	return s
}

// client returns an application's client; an unknown application (or no
// applications at all) is ErrApplicationNotFound.
func (s *Service) client(ctx context.Context, appID int64) (account.Client, error) {
	if s.apps == nil {
		return account.Client{}, account.ErrApplicationNotFound.Withf("application %d not found", appID)
	}
	c, err := s.apps.Client(ctx, appID)
	if errors.Is(err, accountport.ErrNotFound) {
		return c, account.ErrApplicationNotFound.Withf("application %d not found", appID).Wrap(err)
	}
	return c, err
}

// Authenticate resolves a token; unknown, expired and revoked tokens are all
// ErrTokenInvalid so that a probe learns nothing about which it was.
func (s *Service) Authenticate(ctx context.Context, value string) (kernel.Caller, error) {
	if value == "" {
		return kernel.Caller{}, account.ErrTokenMissing
	}
	t, site, err := s.store.Token(ctx, account.Hash(value))
	if errors.Is(err, accountport.ErrNotFound) {
		return kernel.Caller{}, account.ErrTokenInvalid
	}
	if err != nil {
		return kernel.Caller{}, err
	}
	if !t.Valid(s.clock.Now()) {
		return kernel.Caller{}, account.ErrTokenInvalid
	}
	return kernel.Caller{UserID: t.UserID, SiteID: site, AppID: t.AppID}, nil
}

// User returns one user.
func (s *Service) User(ctx context.Context, id int64) (account.User, error) {
	u, err := s.store.User(ctx, id)
	if errors.Is(err, accountport.ErrNotFound) {
		return u, account.ErrUserNotFound.Wrap(err)
	}
	return u, err
}

// Users returns the users among ids in one read; unknown ids are left out.
func (s *Service) Users(ctx context.Context, ids []int64) ([]account.User, error) {
	return s.store.Users(ctx, ids)
}

// PutUser validates and stores a user; an existing user keeps its creation
// date.
func (s *Service) PutUser(ctx context.Context, u account.User) (account.User, error) {
	if u.Tags == nil {
		u.Tags = []string{}
	}
	if err := u.Validate(); err != nil {
		return u, err
	}
	old, err := s.store.User(ctx, u.ID)
	switch {
	case err == nil:
		u.DateCreated = old.DateCreated
	case errors.Is(err, accountport.ErrNotFound):
		u.DateCreated = s.clock.Now()
	default:
		return u, err
	}
	return u, s.store.UpsertUser(ctx, u)
}

// IssueToken issues an access token and a refresh token for the user, of
// an application when in.AppID is set.
func (s *Service) IssueToken(ctx context.Context, in account.Issue) (account.Grant, error) {
	if _, err := s.User(ctx, in.UserID); err != nil {
		return account.Grant{}, err
	}
	if in.AppID != 0 {
		if _, err := s.client(ctx, in.AppID); err != nil {
			return account.Grant{}, err
		}
	}
	lifetime, value := in.Lifetime, in.Value
	if lifetime <= 0 {
		lifetime = account.DefaultTokenLifetime
	}
	if value == "" {
		value = account.NewTokenValue("APP_USR-")
	}
	refresh := account.NewTokenValue("TG-")
	t := account.Token{Hash: account.Hash(value), UserID: in.UserID, AppID: in.AppID, ExpiresAt: s.clock.Now().Add(lifetime)}
	if err := s.store.AddToken(ctx, t); err != nil {
		return account.Grant{}, err
	}
	if err := s.store.SetRefresh(ctx, in.UserID, in.AppID, account.Hash(refresh)); err != nil {
		return account.Grant{}, err
	}
	return account.Grant{
		AccessToken: value, TokenType: "bearer", ExpiresIn: int64(lifetime / time.Second),
		Scope: account.Scope, UserID: in.UserID, RefreshToken: refresh,
	}, nil
}

// RevokeToken makes a token invalid from now on.
func (s *Service) RevokeToken(ctx context.Context, value string) error {
	err := s.store.RevokeToken(ctx, account.Hash(value), s.clock.Now())
	if errors.Is(err, accountport.ErrNotFound) {
		return account.ErrTokenInvalid.With("token not found").Wrap(err)
	}
	return err
}

// Refresh consumes a refresh token and issues a new grant of the same
// application. The client is checked before the token is consumed, so a
// refused refresh leaves it usable.
func (s *Service) Refresh(ctx context.Context, refreshToken, clientID, clientSecret string) (account.Grant, error) {
	if refreshToken == "" {
		return account.Grant{}, account.ErrInvalidGrant.With("refresh_token is required")
	}
	unknown := account.ErrInvalidGrant.With("invalid_grant: the refresh token is unknown or was already used")
	hash := account.Hash(refreshToken)
	_, appID, err := s.store.Refresh(ctx, hash)
	if errors.Is(err, accountport.ErrNotFound) {
		return account.Grant{}, unknown.Wrap(err)
	}
	if err != nil {
		return account.Grant{}, err
	}
	if appID != 0 {
		c, err := s.client(ctx, appID)
		if kernel.KindOf(err) == kernel.NotExist {
			return account.Grant{}, account.ErrInvalidClient.Wrap(err)
		}
		if err != nil {
			return account.Grant{}, err
		}
		if err := account.CheckClient(appID, clientID, clientSecret, c); err != nil {
			return account.Grant{}, err
		}
	}
	userID, appID, err := s.store.TakeRefresh(ctx, hash)
	if errors.Is(err, accountport.ErrNotFound) {
		return account.Grant{}, unknown.Wrap(err)
	}
	if err != nil {
		return account.Grant{}, err
	}
	return s.IssueToken(ctx, account.Issue{UserID: userID, AppID: appID})
}
