// Package account holds the marketplace's users and the access tokens that
// authenticate them.
package account

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"
	"strconv"
	"time"

	"github.com/feria/feria/core/kernel"
)

// User is a marketplace account: a seller, a buyer or a brand.
type User struct {
	ID               int64     `json:"id"`
	Nickname         string    `json:"nickname"`
	SiteID           string    `json:"site_id"`
	UserType         string    `json:"user_type"`
	Reputation       *string   `json:"reputation"`
	Tags             []string  `json:"tags"`
	MessagingAllowed bool      `json:"messaging_allowed"`
	DateCreated      time.Time `json:"date_created"`
}

// User types and reputations the sandbox accepts.
var (
	UserTypes   = []string{"normal", "brand"}
	Reputations = []string{"green", "yellow", "orange", "red"}
)

// DefaultTokenLifetime is the lifetime of a token when none is asked for.
const DefaultTokenLifetime = 21600 * time.Second

// Token is an issued access token. The plain value is shown once, when issued;
// only its hash is stored.
type Token struct {
	Hash   string
	UserID int64
	// AppID is the application the token belongs to; 0: none.
	AppID     int64
	ExpiresAt time.Time
	RevokedAt *time.Time
}

// Issue is what a token is issued for.
type Issue struct {
	UserID int64
	// Value is the token's plain value; "" generates one.
	Value string
	// Lifetime 0 is DefaultTokenLifetime.
	Lifetime time.Duration
	// AppID binds the token to an application; 0: none.
	AppID int64
}

// Client is an application as the token endpoint knows it: its client_id
// is the application id.
type Client struct {
	AppID  int64
	Secret string
	// Name and OwnerID show on the approval page; RedirectURIs are the
	// only redirect_uri values an authorization request may name.
	Name         string
	OwnerID      int64
	RedirectURIs []string
}

// CheckClient applies the rule of docs/sandbox.md to a refresh: a token of an
// application is refreshed only with that application's client_id (its
// app_id) and client_secret; a token without an application takes any.
func CheckClient(tokenApp int64, clientID, clientSecret string, app Client) error {
	if tokenApp == 0 {
		return nil
	}
	idOK := app.AppID == tokenApp && clientID == strconv.FormatInt(tokenApp, 10)
	// The secret is compared in constant time whatever the id said, so the
	// answer's timing tells nothing about it.
	secretOK := subtle.ConstantTimeCompare([]byte(clientSecret), []byte(app.Secret)) == 1
	if !idOK || !secretOK {
		return ErrInvalidClient.WithCause("client_id", "the token belongs to another application: send its client_id and client_secret")
	}
	return nil
}

// Valid reports whether the token authenticates at now.
func (t Token) Valid(now time.Time) bool {
	return t.RevokedAt == nil && now.Before(t.ExpiresAt)
}

// Grant is what an issued token answers: the plain values, once.
type Grant struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	UserID       int64  `json:"user_id"`
	RefreshToken string `json:"refresh_token"`
}

// Scope is the scope every token of feria carries; scopes are not enforced.
const Scope = "offline_access read write"

// Hash is the stored form of a token value. A token is 32 random bytes, so an
// unsalted SHA-256 is enough: nobody can brute-force the preimage.
func Hash(value string) string {
	sum := sha256.Sum256([]byte(value))
	return hex.EncodeToString(sum[:])
}

// Errors of the module.
var (
	ErrTokenInvalid = kernel.E(kernel.Unauthenticated, "unauthorized", "invalid access token")
	ErrTokenMissing = kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
	// ErrTokenNotGranted is how the marketplace's fiscal-document routes
	// answer a request without a token (403, not ErrTokenMissing's 401);
	// the after-sale conversation and the buyer's feed, which those
	// routes write, answer it the same.
	ErrTokenNotGranted = kernel.E(kernel.Permission, "access_token_not_granted", "access_token was not sent")
	ErrUserNotFound    = kernel.E(kernel.NotExist, "not_found", "user not found")
	// ErrApplicationNotFound is a token asked for an unknown application.
	ErrApplicationNotFound = kernel.E(kernel.NotExist, "not_found", "application not found")
)

// ErrInvalidUser is the error of a user that breaks a rule; its causes name
// the fields.
var ErrInvalidUser = kernel.E(kernel.Invalid, "bad_request", "invalid user")

// Validate checks the fields of a user the sandbox is about to store.
func (u User) Validate() error {
	var p kernel.Problems
	if u.ID <= 0 {
		p.Add("user_id", "user_id must be a positive integer")
	}
	if _, ok := kernel.LookupSite(u.SiteID); !ok {
		p.Add("site_id", "site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC")
	}
	if !slices.Contains(UserTypes, u.UserType) {
		p.Add("user_type", "user_type must be normal or brand")
	}
	if u.Reputation != nil && !slices.Contains(Reputations, *u.Reputation) {
		p.Add("reputation", "reputation must be green, yellow, orange, red or null")
	}
	return p.Err(ErrInvalidUser)
}
