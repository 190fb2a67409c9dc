// Package account holds the marketplace's users and the access tokens that
// authenticate them.
package account

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
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
	Hash      string
	UserID    int64
	ExpiresAt time.Time
	RevokedAt *time.Time
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

// NewTokenValue returns a fresh random token with the marketplace's prefix.
func NewTokenValue(prefix string) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// Errors of the module.
var (
	ErrTokenInvalid = kernel.E(kernel.Unauthenticated, "unauthorized", "invalid access token")
	ErrTokenMissing = kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
	ErrUserNotFound = kernel.E(kernel.NotExist, "not_found", "user not found")
	ErrInvalidGrant = kernel.E(kernel.Invalid, "invalid_grant", "invalid refresh token")
	ErrGrantType    = kernel.E(kernel.Invalid, "unsupported_grant_type", "grant_type must be refresh_token")
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
