// Package accountsvc implements the account use cases: authentication of
// access tokens, issuance, revocation and refresh.
package accountsvc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/accountport"
)

// Store is the storage the service needs.
type Store interface {
	accountport.Users
	accountport.Tokens
	accountport.Codes
}

// Deps is what the service needs.
type Deps struct {
	Store Store
	// Tx runs the changes that write several rows (an issue, an exchange, a
	// refresh, an approval) in one transaction: a failure leaves the code
	// or the refresh token usable and no half-issued grant behind.
	Tx    kernel.Tx
	Clock kernel.Clock
	// Applications are the clients tokens may belong to (the apps
	// module).
	Applications accountport.Applications
}

// Service implements accountport.Service.
type Service struct {
	store Store
	clock kernel.Clock
	apps  accountport.Applications
	tx    kernel.Tx
}

var _ accountport.Service = (*Service)(nil)

// New returns the account service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{store: d.Store, clock: d.Clock, apps: d.Applications, tx: d.Tx}
}

// client returns an application's client; an unknown application is
// ErrApplicationNotFound.
func (s *Service) client(ctx context.Context, appID int64) (account.Client, error) {
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
	return s.issue(ctx, in)
}

// issue stores a new access token and the newest refresh token of the
// user and application, in one transaction.
func (s *Service) issue(ctx context.Context, in account.Issue) (account.Grant, error) {
	now := s.clock.Now()
	lifetime, value := in.Lifetime, in.Value
	if lifetime <= 0 {
		lifetime = account.DefaultTokenLifetime
	}
	if value == "" {
		value = account.NewAccessToken(in.AppID, in.UserID, now)
	}
	refresh := account.NewRefreshToken(in.UserID)
	t := account.Token{Hash: account.Hash(value), UserID: in.UserID, AppID: in.AppID, ExpiresAt: now.Add(lifetime)}
	err := s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if err := s.store.AddToken(ctx, t); err != nil {
			return err
		}
		return s.store.SetRefresh(ctx, in.UserID, in.AppID, account.Hash(refresh))
	})
	if err != nil {
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
// refused refresh leaves it usable; the take and the new grant are one
// transaction, so a failure leaves it usable too.
func (s *Service) Refresh(ctx context.Context, refreshToken, clientID, clientSecret string) (account.Grant, error) {
	if refreshToken == "" {
		return account.Grant{}, account.ErrInvalidRequest.WithCause("refresh_token", "refresh_token is required")
	}
	unknown := account.ErrInvalidGrant.WithCause("refresh_token", "the refresh token is unknown, was replaced by a newer one or was already used")
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
	var g account.Grant
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		userID, appID, err := s.store.TakeRefresh(ctx, hash)
		if errors.Is(err, accountport.ErrNotFound) {
			return unknown.Wrap(err)
		}
		if err != nil {
			return err
		}
		g, err = s.issue(ctx, account.Issue{UserID: userID, AppID: appID})
		return err
	})
	return g, err
}

// authClient resolves the client of an authorization request: its
// client_id must name an application, and its redirect_uri be one of the
// application's exactly. Neither error goes to the redirect_uri.
func (s *Service) authClient(ctx context.Context, r account.AuthRequest) (account.Client, error) {
	if r.ClientID == "" {
		return account.Client{}, account.ErrNoClient.WithCause("client_id", "client_id is required")
	}
	id, err := strconv.ParseInt(r.ClientID, 10, 64)
	if err != nil || id <= 0 {
		return account.Client{}, account.ErrNoClient.WithCause("client_id", "client_id must be an application id")
	}
	c, err := s.client(ctx, id)
	if kernel.KindOf(err) == kernel.NotExist {
		return account.Client{}, account.ErrNoClient.WithCause("client_id", fmt.Sprintf("application %d does not exist", id))
	}
	if err != nil {
		return account.Client{}, err
	}
	return c, account.CheckRedirect(r.RedirectURI, c.RedirectURIs)
}

// Consent checks an authorization request and lists the users of the
// application owner's site, whom the approval page offers.
func (s *Service) Consent(ctx context.Context, r account.AuthRequest) (account.Consent, error) {
	c, err := s.authClient(ctx, r)
	if err != nil {
		return account.Consent{}, err
	}
	if err := account.CheckRequest(r); err != nil {
		return account.Consent{}, err
	}
	owner, err := s.User(ctx, c.OwnerID)
	if err != nil {
		return account.Consent{}, err
	}
	users, err := s.store.SiteUsers(ctx, owner.SiteID, account.MaxConsentUsers)
	if err != nil {
		return account.Consent{}, err
	}
	return account.Consent{AppID: c.AppID, AppName: c.Name, SiteID: owner.SiteID, Users: users}, nil
}

// Approve records userID's grant of the application and issues a code for
// the request, in one transaction.
func (s *Service) Approve(ctx context.Context, r account.AuthRequest, userID int64) (string, error) {
	c, err := s.authClient(ctx, r)
	if err != nil {
		return "", err
	}
	if err := account.CheckRequest(r); err != nil {
		return "", err
	}
	if _, err := s.User(ctx, userID); kernel.KindOf(err) == kernel.NotExist {
		return "", account.ErrNoRedirect.WithCause("user_id", fmt.Sprintf("user %d does not exist", userID))
	} else if err != nil {
		return "", err
	}
	code := account.NewCode(userID)
	ac := account.AuthCode{Hash: account.Hash(code), AppID: c.AppID, UserID: userID, RedirectURI: r.RedirectURI,
		Challenge: r.CodeChallenge, Method: r.Method(), ExpiresAt: s.clock.Now().Add(account.CodeLifetime)}
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if err := s.apps.Grant(ctx, c.AppID, userID); err != nil {
			return err
		}
		return s.store.AddCode(ctx, ac)
	})
	if err != nil {
		return "", err
	}
	return code, nil
}

// ExchangeCode checks the client, then the code against the request, and
// issues a grant of the application in the transaction that takes the
// code: of two exchanges of one code only one gets a grant, and a failure
// leaves the code usable.
func (s *Service) ExchangeCode(ctx context.Context, ex account.Exchange) (account.Grant, error) {
	if err := account.CheckExchangeRequest(ex); err != nil {
		return account.Grant{}, err
	}
	id, err := strconv.ParseInt(ex.ClientID, 10, 64)
	if err != nil || id <= 0 {
		return account.Grant{}, account.ErrInvalidClient.WithCause("client_id", "client_id must be an application id")
	}
	c, err := s.client(ctx, id)
	if kernel.KindOf(err) == kernel.NotExist {
		return account.Grant{}, account.ErrInvalidClient.WithCause("client_id", fmt.Sprintf("application %d does not exist", id))
	}
	if err != nil {
		return account.Grant{}, err
	}
	if err := account.ClientOf(ex.ClientID, ex.ClientSecret, c); err != nil {
		return account.Grant{}, err
	}
	unknown := account.ErrInvalidGrant.WithCause("code", "the code is unknown or was already used")
	hash := account.Hash(ex.Code)
	code, err := s.store.Code(ctx, hash)
	if errors.Is(err, accountport.ErrNotFound) {
		return account.Grant{}, unknown.Wrap(err)
	}
	if err != nil {
		return account.Grant{}, err
	}
	now := s.clock.Now()
	if err := account.CheckExchange(code, c.AppID, ex, now); err != nil {
		return account.Grant{}, err
	}
	var g account.Grant
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if err := s.store.TakeCode(ctx, hash, now); errors.Is(err, accountport.ErrNotFound) {
			return unknown.Wrap(err)
		} else if err != nil {
			return err
		}
		g, err = s.issue(ctx, account.Issue{UserID: code.UserID, AppID: code.AppID})
		return err
	})
	return g, err
}
