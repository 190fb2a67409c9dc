package app

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi/accountapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
)

func init() {
	register(Module{
		Name:    "account",
		Routes:  func(app *fiber.App, d *Deps) error { accountapi.Routes(app, d.Accounts); return nil },
		Sandbox: func(d *Deps) []sandboxapi.Collection { return []sandboxapi.Collection{accountapi.Users(d.Accounts)} },
	})
}
