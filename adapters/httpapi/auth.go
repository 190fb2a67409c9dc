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
// or not valid: the spec answers 403 on compatibilities and fiscal documents.
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
		caller, err := a.Tokens.Authenticate(c.UserContext(), token)
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
