package httpapi

import (
	"context"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/core/kernel"
)

// Authenticator resolves an access token to its caller.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (kernel.Caller, error)
}

// Auth builds the authentication middleware of the routes.
type Auth struct{ Tokens Authenticator }

// AuthErrors overrides what a route group answers when the token is missing
// or not valid: the contract answers 403 on compatibilities and fiscal documents.
type AuthErrors struct {
	Missing error
	Invalid error
}

// Token returns the access token of the request from either carrier:
// "Authorization: Bearer <token>" or the access_token query parameter.
func Token(c *fiber.Ctx) string {
	if h := c.Get(fiber.HeaderAuthorization); h != "" {
		if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
			return strings.TrimSpace(h[7:])
		}
	}
	return strings.Clone(c.Query("access_token"))
}

// Required rejects requests without a valid token and puts the caller in the
// request's context (kernel.CallerFrom).
func (a Auth) Required(override ...AuthErrors) fiber.Handler {
	var o AuthErrors
	if len(override) > 0 {
		o = override[0]
	}
	return func(c *fiber.Ctx) error {
		token := Token(c)
		if token == "" {
			if o.Missing != nil {
				return o.Missing
			}
			return kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
		}
		caller, err := a.authenticate(c, token)
		if err != nil {
			if o.Invalid != nil && kernel.KindOf(err) == kernel.Unauthenticated {
				return o.Invalid
			}
			return err
		}
		c.SetUserContext(kernel.WithCaller(c.UserContext(), caller))
		return c.Next()
	}
}

const authKey = "httpapi.auth"

type authResult struct {
	caller kernel.Caller
	err    error
}

// authenticate resolves the request's token once per request: the
// sandbox's rate limits and journal ask who the caller is, and the route's
// own middleware must not pay for the lookup again.
func (a Auth) authenticate(c *fiber.Ctx, token string) (kernel.Caller, error) {
	if r, ok := c.Locals(authKey).(*authResult); ok {
		return r.caller, r.err
	}
	caller, err := a.Tokens.Authenticate(c.UserContext(), token)
	c.Locals(authKey, &authResult{caller: caller, err: err})
	return caller, err
}

// CallerOf returns the caller of the request's token, or nil when it
// carries none or one that is not valid (or cannot be checked now).
func (a Auth) CallerOf(c *fiber.Ctx) *kernel.Caller {
	token := Token(c)
	if token == "" {
		return nil
	}
	caller, err := a.authenticate(c, token)
	if err != nil {
		return nil
	}
	return &caller
}

// Optional authenticates when a token is sent and lets the request through
// without one; a token that is sent but not valid is still rejected.
func (a Auth) Optional() fiber.Handler {
	return func(c *fiber.Ctx) error {
		if Token(c) == "" {
			return c.Next()
		}
		return a.Required()(c)
	}
}

// Caller returns the authenticated caller of the request.
func Caller(c *fiber.Ctx) (kernel.Caller, error) {
	caller, ok := kernel.CallerFrom(c.UserContext())
	if !ok {
		return caller, errors.New("httpapi: route has no authentication middleware")
	}
	return caller, nil
}
