// Package accountapi serves the account routes: the sandbox's users and
// tokens, and the OAuth token endpoint integrations refresh their tokens at.
package accountapi

import (
	"context"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/accountport"
)

// userBody is the body of PUT /sandbox/users/{user_id}.
type userBody struct {
	Nickname         string   `json:"nickname"`
	SiteID           string   `json:"site_id"`
	UserType         *string  `json:"user_type"`
	Reputation       *string  `json:"reputation"`
	Tags             []string `json:"tags"`
	MessagingAllowed *bool    `json:"messaging_allowed"`
	AccessToken      *string  `json:"access_token"`
	ExpiresIn        *int64   `json:"expires_in"`
}

// userAnswer is the stored user plus the token the PUT issued.
type userAnswer struct {
	account.User
	AccessToken string `json:"access_token"`
	ExpiresIn   int64  `json:"expires_in"`
}

// Collections are the account module's sandbox collections: one, users.
func Collections(svc accountport.Service) []sandboxapi.Collection {
	return []sandboxapi.Collection{{
		Name: "users", Path: "users",
		Put: func(ctx context.Context, id string, body []byte) (any, error) {
			userID, err := UserID(id)
			if err != nil {
				return nil, err
			}
			var b userBody
			if err := httpapi.DecodeJSON(body, &b); err != nil {
				return nil, err
			}
			u := account.User{ID: userID, Nickname: b.Nickname, SiteID: b.SiteID, UserType: "normal",
				Reputation: b.Reputation, Tags: b.Tags, MessagingAllowed: true}
			if b.UserType != nil {
				u.UserType = *b.UserType
			}
			if b.MessagingAllowed != nil {
				u.MessagingAllowed = *b.MessagingAllowed
			}
			lifetime, err := lifetime(b.ExpiresIn)
			if err != nil {
				return nil, err
			}
			if u, err = svc.PutUser(ctx, u); err != nil {
				return nil, err
			}
			token := ""
			if b.AccessToken != nil {
				if *b.AccessToken == "" {
					return nil, errInvalid.With("access_token must not be empty").WithCause("access_token", "access_token must not be empty")
				}
				token = *b.AccessToken
			}
			g, err := svc.IssueToken(ctx, account.Issue{UserID: u.ID, Value: token, Lifetime: lifetime})
			if err != nil {
				return nil, err
			}
			return userAnswer{User: u, AccessToken: g.AccessToken, ExpiresIn: g.ExpiresIn}, nil
		},
		Get: func(ctx context.Context, id string) (any, error) {
			userID, err := UserID(id)
			if err != nil {
				return nil, err
			}
			return svc.User(ctx, userID)
		},
	}}
}

var errInvalid = kernel.E(kernel.Invalid, "bad_request", "invalid request")

// UserID parses a user id path segment: a positive integer.
func UserID(raw string) (int64, error) {
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, errInvalid.Withf("user_id must be a positive integer, got %q", raw).
			WithCause("user_id", "user_id must be a positive integer")
	}
	return id, nil
}

func lifetime(expiresIn *int64) (time.Duration, error) {
	if expiresIn == nil {
		return account.DefaultTokenLifetime, nil
	}
	if *expiresIn <= 0 || *expiresIn > 10*365*86400 {
		return 0, errInvalid.With("expires_in must be a positive number of seconds").
			WithCause("expires_in", "expires_in must be a positive number of seconds")
	}
	return time.Duration(*expiresIn) * time.Second, nil
}

// SandboxRoutes serves token issue and revocation under /sandbox.
func SandboxRoutes(r fiber.Router, svc accountport.Service) {
	r.Post("/users/:user_id/tokens", func(c *fiber.Ctx) error {
		userID, err := UserID(c.Params("user_id"))
		if err != nil {
			return err
		}
		var b struct {
			ExpiresIn *int64 `json:"expires_in"`
			// AppID binds the token to an application (unknown: 404).
			AppID *int64 `json:"app_id"`
		}
		if len(c.Body()) > 0 {
			if err := httpapi.DecodeJSON(c.Body(), &b); err != nil {
				return err
			}
		}
		life, err := lifetime(b.ExpiresIn)
		if err != nil {
			return err
		}
		in := account.Issue{UserID: userID, Lifetime: life}
		if b.AppID != nil {
			if *b.AppID <= 0 {
				return errInvalid.With("app_id must be a positive integer").WithCause("app_id", "app_id must be a positive integer")
			}
			in.AppID = *b.AppID
		}
		g, err := svc.IssueToken(c.UserContext(), in)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(g)
	})
	r.Delete("/tokens/:token", func(c *fiber.Ctx) error {
		if err := svc.RevokeToken(c.UserContext(), httpapi.Param(c, "token")); err != nil {
			if kernel.KindOf(err) == kernel.Unauthenticated {
				return kernel.E(kernel.NotExist, "not_found", "token not found")
			}
			return err
		}
		return c.SendStatus(fiber.StatusNoContent)
	})
}
