// Package accountport declares what the account module offers (Service) and
// what it needs from storage (Users, Tokens).
package accountport

import (
	"context"
	"errors"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/kernel"
)

// ErrNotFound is returned by stores for a missing row.
var ErrNotFound = errors.New("not found")

// Service is what HTTP, the sandbox and other modules call.
type Service interface {
	// Authenticate resolves an access token to its caller.
	Authenticate(ctx context.Context, token string) (kernel.Caller, error)
	User(ctx context.Context, id int64) (account.User, error)
	// Users returns the users among ids in one read, in any order; unknown
	// ids are left out.
	Users(ctx context.Context, ids []int64) ([]account.User, error)
	// PutUser validates and upserts a user (the sandbox's fixtures).
	PutUser(ctx context.Context, u account.User) (account.User, error)
	// IssueToken issues a token of the user, of an application when
	// in.AppID is set (which must exist).
	IssueToken(ctx context.Context, in account.Issue) (account.Grant, error)
	RevokeToken(ctx context.Context, value string) error
	// Refresh exchanges a refresh token for a new grant of the same
	// application; each refresh token works once. A token of an application
	// needs that application's client_id and client_secret
	// (account.CheckClient); refused, the refresh token stays usable.
	Refresh(ctx context.Context, refreshToken, clientID, clientSecret string) (account.Grant, error)
	// Consent checks an authorization request (GET /authorization) and
	// returns what its approval page shows. An error marked
	// account.ErrNoRedirect is not to be sent to the redirect_uri.
	Consent(ctx context.Context, r account.AuthRequest) (account.Consent, error)
	// Approve records that userID granted the application of the checked
	// request and returns a new authorization code of it.
	Approve(ctx context.Context, r account.AuthRequest, userID int64) (string, error)
	// ExchangeCode exchanges an authorization code for a grant of its
	// application (POST /oauth/token, grant_type authorization_code); a
	// code works once.
	ExchangeCode(ctx context.Context, ex account.Exchange) (account.Grant, error)
}

// Applications tells the account module the clients tokens may belong to
// (the apps module's applications).
type Applications interface {
	// Client returns the application's client, or ErrNotFound.
	Client(ctx context.Context, appID int64) (account.Client, error)
	// Grant records that userID granted the application (an approved
	// authorization); granting twice changes nothing.
	Grant(ctx context.Context, appID, userID int64) error
}

// Users stores users.
type Users interface {
	UpsertUser(ctx context.Context, u account.User) error
	User(ctx context.Context, id int64) (account.User, error)
	// Users returns the stored users among ids in one read, in any order.
	Users(ctx context.Context, ids []int64) ([]account.User, error)
	// SiteUsers lists up to limit users of a site, by id.
	SiteUsers(ctx context.Context, siteID string, limit int) ([]account.User, error)
}

// Codes stores hashed authorization codes.
type Codes interface {
	AddCode(ctx context.Context, c account.AuthCode) error
	// Code returns an unused code by hash, or ErrNotFound.
	Code(ctx context.Context, hash string) (account.AuthCode, error)
	// TakeCode marks a code used if it is unused and unexpired at now, in
	// one statement so that two exchanges cannot both take it; otherwise
	// ErrNotFound.
	TakeCode(ctx context.Context, hash string, now time.Time) error
}

// Tokens stores hashed access and refresh tokens.
type Tokens interface {
	AddToken(ctx context.Context, t account.Token) error
	// Token returns the token with that hash and the site of its user.
	Token(ctx context.Context, hash string) (account.Token, string, error)
	RevokeToken(ctx context.Context, hash string, at time.Time) error
	// SetRefresh makes hash the only valid refresh token of the user and
	// application (appID 0: tokens without one).
	SetRefresh(ctx context.Context, userID, appID int64, hash string) error
	// Refresh returns the user and application of a refresh token without
	// consuming it, or ErrNotFound.
	Refresh(ctx context.Context, hash string) (userID, appID int64, err error)
	// TakeRefresh consumes a refresh token and returns its user and
	// application; a second take of the same hash is ErrNotFound.
	TakeRefresh(ctx context.Context, hash string) (userID, appID int64, err error)
}
