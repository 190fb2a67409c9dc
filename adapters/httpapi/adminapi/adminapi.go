// Package adminapi serves the operators' pages: the asynqmon dashboard of
// feria's job queues at /admin/jobs, behind HTTP basic auth.
package adminapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"

	"github.com/feria/feria/core/kernel"
)

// Root is where the dashboard is served.
const Root = "/admin/jobs"

// User is the basic-auth user name; the password is the admin key.
const User = "admin"

// errAuth is the answer to a missing or wrong password.
var errAuth = kernel.E(kernel.Unauthenticated, "unauthorized", "admin credentials required")

// Routes mounts the dashboard, every path of it (pages, assets and its
// /api/...) behind basic auth. An empty key leaves it unmounted: 404.
func Routes(app fiber.Router, adminKey string, redis asynq.RedisConnOpt) {
	if adminKey == "" {
		return
	}
	mon := asynqmon.New(asynqmon.Options{RootPath: Root, RedisConnOpt: redis})
	h := adaptor.HTTPHandler(mon)
	guard := BasicAuth(User, adminKey)
	app.All(Root, guard, h)
	app.All(Root+"/*", guard, h)
}

// BasicAuth admits requests carrying user and password. Both sides are
// hashed first so that the comparison takes the same time whatever the
// lengths.
func BasicAuth(user, password string) fiber.Handler {
	want := sha256.Sum256([]byte(user + ":" + password))
	return func(c *fiber.Ctx) error {
		h := c.Get(fiber.HeaderAuthorization)
		ok := false
		if len(h) > 6 && strings.EqualFold(h[:6], "basic ") {
			if raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(h[6:])); err == nil {
				got := sha256.Sum256(raw)
				ok = subtle.ConstantTimeCompare(got[:], want[:]) == 1
			}
		}
		if !ok {
			c.Set(fiber.HeaderWWWAuthenticate, `Basic realm="feria jobs", charset="UTF-8"`)
			return errAuth
		}
		return c.Next()
	}
}
