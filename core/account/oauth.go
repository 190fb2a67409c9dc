package account

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/feria/feria/core/kernel"
)

// The authorization code grant as the marketplace runs it: an application
// sends a user to GET /authorization, the user approves, the application
// exchanges the code at POST /oauth/token.

// CodeLifetime is how long an authorization code may be exchanged: the
// marketplace's codes "expire in minutes"; ten, as its guides state.
const CodeLifetime = 10 * time.Minute

// MaxConsentUsers bounds the users the approval page lists; scripts name
// any user with user_id.
const MaxConsentUsers = 100

// PKCE methods (RFC 7636 §4.2).
const (
	MethodS256  = "S256"
	MethodPlain = "plain"
)

// Scopes are the scope values the marketplace accepts.
var Scopes = []string{"offline_access", "read", "write"}

// AuthRequest is an authorization request as GET /authorization receives
// it.
type AuthRequest struct {
	ResponseType        string
	ClientID            string
	RedirectURI         string
	State               string
	Scope               string
	CodeChallenge       string
	CodeChallengeMethod string
}

// Consent is a checked authorization request: the application asking and
// the users the approval page offers.
type Consent struct {
	AppID   int64
	AppName string
	// SiteID is the site of the application's owner, whose users the
	// page lists.
	SiteID string
	Users  []User
}

// AuthCode is an issued authorization code; only its hash is stored.
type AuthCode struct {
	Hash        string
	AppID       int64
	UserID      int64
	RedirectURI string
	// Challenge "" means the request used no PKCE.
	Challenge string
	Method    string
	ExpiresAt time.Time
}

// Exchange is a token request of grant_type authorization_code.
type Exchange struct {
	ClientID     string
	ClientSecret string
	Code         string
	RedirectURI  string
	CodeVerifier string
	Scope        string
}

// OAuth errors. Their messages are the marketplace's descriptions of each
// error, word for word ("Error codes reference" of its authentication
// guide; invalid_grant is the body it shows); the causes say what was
// wrong with this request.
var (
	ErrInvalidGrant = kernel.E(kernel.Invalid, "invalid_grant",
		"Error validating grant. Your authorization code or refresh token may be expired or it was already used")
	ErrGrantType = kernel.E(kernel.Invalid, "unsupported_grant_type",
		"the values allowed for grant_type are “authorization_code” or “refresh_token”.")
	ErrInvalidClient = kernel.E(kernel.Invalid, "invalid_client",
		"invalid client_id and/or client_secret provided.")
	ErrInvalidRequest = kernel.E(kernel.Invalid, "invalid_request",
		"the request is missing a required parameter, includes an unsupported parameter or parameter value, there is some duplicated value or is otherwise malformed.")
	ErrInvalidScope = kernel.E(kernel.Invalid, "invalid_scope",
		"the requested scope is invalid, unknown or malformed. The values allowed for parameter scope are: “offline_access”, “write”, “read”.")
	// The marketplace documents no text for these two (RFC 6749 §4.1.2.1).
	ErrResponseType = kernel.E(kernel.Invalid, "unsupported_response_type", "response_type must be code")
	ErrAccessDenied = kernel.E(kernel.Permission, "access_denied", "the user denied the application access")
	// ErrNoRedirect and ErrNoClient are the errors of an authorization
	// request that are not sent to its redirect_uri, because the
	// redirect_uri or the client itself is in doubt (RFC 6749 §4.1.2.1).
	ErrNoRedirect = kernel.E(kernel.Invalid, "invalid_request", ErrInvalidRequest.Message)
	ErrNoClient   = kernel.E(kernel.Invalid, "invalid_client", ErrInvalidClient.Message)
)

// Redirectable reports whether an error of an authorization request goes
// back to the application at its redirect_uri.
func Redirectable(err error) bool {
	return !errors.Is(err, ErrNoRedirect) && !errors.Is(err, ErrNoClient)
}

// missing is ErrInvalidRequest naming a missing parameter.
func missing(param string) error {
	return ErrInvalidRequest.WithCause(param, param+" is required")
}

// CheckScope accepts an absent scope or space-separated values among
// Scopes; scopes are not enforced (every token carries Scope).
func CheckScope(scope string) error {
	for _, s := range strings.Fields(scope) {
		if !slices.Contains(Scopes, s) {
			return ErrInvalidScope.WithCause("scope", fmt.Sprintf("scope %q is not one of offline_access, read, write", s))
		}
	}
	return nil
}

// pkceChars are the characters of a code verifier or challenge (RFC 7636
// §4.1: unreserved URI characters).
func pkceChars(s string) bool {
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r)) {
			return false
		}
	}
	return true
}

// CheckRequest applies the rules of an authorization request that are
// answered at its redirect_uri, once the client and the redirect_uri are
// known good: response_type code, a scope the marketplace knows, and a
// well-formed PKCE challenge (method S256 or plain; plain when left out).
func CheckRequest(r AuthRequest) error {
	if r.ResponseType == "" {
		return missing("response_type")
	}
	if r.ResponseType != "code" {
		return ErrResponseType.WithCause("response_type", fmt.Sprintf("response_type must be code, got %q", r.ResponseType))
	}
	if err := CheckScope(r.Scope); err != nil {
		return err
	}
	if r.CodeChallenge == "" {
		if r.CodeChallengeMethod != "" {
			return ErrInvalidRequest.WithCause("code_challenge", "code_challenge_method was sent without code_challenge")
		}
		return nil
	}
	if m := r.CodeChallengeMethod; m != "" && m != MethodS256 && m != MethodPlain {
		return ErrInvalidRequest.WithCause("code_challenge_method", fmt.Sprintf("code_challenge_method must be S256 or plain, got %q", m))
	}
	if n := len(r.CodeChallenge); n < 43 || n > 128 || !pkceChars(r.CodeChallenge) {
		return ErrInvalidRequest.WithCause("code_challenge", "code_challenge must be 43 to 128 characters among A-Z a-z 0-9 - . _ ~")
	}
	return nil
}

// Method is the PKCE method of a request: plain when a challenge names
// none (RFC 7636 §4.3).
func (r AuthRequest) Method() string {
	if r.CodeChallenge != "" && r.CodeChallengeMethod == "" {
		return MethodPlain
	}
	return r.CodeChallengeMethod
}

// CheckRedirect is the marketplace's rule: the redirect_uri must be exactly
// one of the application's.
func CheckRedirect(uri string, registered []string) error {
	if uri == "" {
		return ErrNoRedirect.WithCause("redirect_uri", "redirect_uri is required")
	}
	if !slices.Contains(registered, uri) {
		return ErrNoRedirect.WithCause("redirect_uri", "redirect_uri must be exactly one of the application's redirect_uris")
	}
	return nil
}

// CheckExchange applies the token request's rules to the code it names,
// at now: the code is the client's, unexpired and unused (the store's
// take), asked with the same redirect_uri, and with the verifier of its
// PKCE challenge when it had one (then it is mandatory).
func CheckExchange(c AuthCode, appID int64, ex Exchange, now time.Time) error {
	if c.AppID != appID {
		return ErrInvalidGrant.WithCause("code", "the code was issued to another client")
	}
	if !now.Before(c.ExpiresAt) {
		return ErrInvalidGrant.WithCause("code", "the code expired")
	}
	if ex.RedirectURI != c.RedirectURI {
		return ErrInvalidGrant.WithCause("redirect_uri", "redirect_uri differs from the authorization request's")
	}
	if c.Challenge == "" {
		if ex.CodeVerifier != "" {
			return ErrInvalidGrant.WithCause("code_verifier", "the authorization request sent no code_challenge")
		}
		return nil
	}
	if ex.CodeVerifier == "" {
		return missing("code_verifier")
	}
	if !VerifyPKCE(c.Challenge, c.Method, ex.CodeVerifier) {
		return ErrInvalidGrant.WithCause("code_verifier", "code_verifier does not match the code_challenge")
	}
	return nil
}

// VerifyPKCE reports whether verifier answers the challenge (RFC 7636
// §4.6), comparing in constant time.
func VerifyPKCE(challenge, method, verifier string) bool {
	want := verifier
	if method == MethodS256 {
		sum := sha256.Sum256([]byte(verifier))
		want = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) == 1
}

// CheckExchangeRequest checks that a token request of grant_type
// authorization_code names every parameter it needs and a known scope.
func CheckExchangeRequest(ex Exchange) error {
	for _, p := range [][2]string{{"client_id", ex.ClientID}, {"client_secret", ex.ClientSecret}, {"code", ex.Code}, {"redirect_uri", ex.RedirectURI}} {
		if p[1] == "" {
			return missing(p[0])
		}
	}
	return CheckScope(ex.Scope)
}

// ClientOf checks a client's credentials against the application:
// client_id is the application id, the secret is compared in constant time.
func ClientOf(clientID, clientSecret string, app Client) error {
	idOK := clientID == strconv.FormatInt(app.AppID, 10)
	secretOK := subtle.ConstantTimeCompare([]byte(clientSecret), []byte(app.Secret)) == 1
	if !idOK || !secretOK {
		return ErrInvalidClient.WithCause("client_id", "client_id and client_secret are not those of an application")
	}
	return nil
}

// randomHex is 32 random bytes in hex: 256 bits, so that the unsalted
// SHA-256 stored is as safe as the value.
func randomHex() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}

// NewAccessToken is an access token value in the marketplace's form,
// APP_USR-<app>-<MMDDHH>-<hex>-<user_id>: the application (0: none), the
// issue time, the random part, and the user id last, which some clients
// read.
func NewAccessToken(appID, userID int64, now time.Time) string {
	return fmt.Sprintf("APP_USR-%d-%s-%s-%d", appID, now.UTC().Format("010215"), randomHex(), userID)
}

// NewRefreshToken is a refresh token value in the marketplace's form,
// TG-<hex>-<user_id>.
func NewRefreshToken(userID int64) string {
	return fmt.Sprintf("TG-%s-%d", randomHex(), userID)
}

// NewCode is an authorization code in the marketplace's form, like its
// refresh tokens: TG-<hex>-<user_id>.
func NewCode(userID int64) string { return NewRefreshToken(userID) }
