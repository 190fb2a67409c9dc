package app

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi/contactsapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/adapters/redisstore/contactsredis"
	"github.com/feria/feria/adapters/sqlstore/contactsdb"
	"github.com/feria/feria/core/contacts/contactssvc"
	"github.com/feria/feria/ports/contactsport"
)

// Contact statistics: counters in Redis (or the embedded miniredis), the
// questions inbox and item owners in the database.
func init() {
	register(Module{
		Name: "contacts",
		Routes: func(app *fiber.App, d *Deps) error {
			contactsapi.Routes(app, contactsService(d), d.Auth)
			return nil
		},
		Sandbox: func(d *Deps) []sandboxapi.Collection {
			return []sandboxapi.Collection{contactsapi.Events(contactsService(d))}
		},
		Reset: func(ctx context.Context, d *Deps) error { return contactsService(d).Reset(ctx) },
	})
}

// contactsService builds the module's service; it holds no state of its
// own, so each caller may build one.
func contactsService(d *Deps) contactsport.Service {
	store := contactsdb.New(d.DB)
	return contactssvc.New(contactsredis.New(d.Redis, contactsredis.DefaultPrefix), store, store, d.Tx, d.Clock)
}
