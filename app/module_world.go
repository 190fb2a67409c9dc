package app

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/adapters/httpapi/worldapi"
	"github.com/feria/feria/adapters/sqlstore/brandsdb"
	"github.com/feria/feria/adapters/sqlstore/catalogdb"
	"github.com/feria/feria/adapters/sqlstore/flexdb"
	"github.com/feria/feria/adapters/sqlstore/salesdb"
	"github.com/feria/feria/core/brands/brandssvc"
	"github.com/feria/feria/core/catalog/catalogsvc"
	"github.com/feria/feria/core/flex/flexsvc"
	"github.com/feria/feria/core/sales/salessvc"
	"github.com/feria/feria/ports/catalogport"
	"github.com/feria/feria/ports/salesport"
)

// brandssvc tells the catalog which official stores a seller may name.
var _ catalogport.OfficialStores = (*brandssvc.Service)(nil)

// The world: catalog, items, orders, brands, flex subscriptions and
// shipments, as the sandbox creates them and the item reads show them.
func init() {
	register(Module{
		Name: "world",
		Routes: func(app *fiber.App, d *Deps) error {
			worldapi.Routes(app, World(d), d.Auth)
			return nil
		},
		Sandbox: func(d *Deps) []sandboxapi.Collection { return worldapi.Collections(World(d)) },
	})
}

// World builds the world's services on d. They hold no state of their own,
// so every module that needs them may build them again. The orders service
// tells every registered order observer (app/hooks.go).
func World(d *Deps) worldapi.Services {
	brands := brandssvc.New(brandsdb.New(d.DB), d.Accounts, d.Clock)
	catalog := catalogsvc.New(catalogdb.New(d.DB), d.Accounts, d.Clock).WithOfficialStores(brands)
	var observers []salesport.OrderObserver
	for _, ob := range orderObservers {
		observers = append(observers, ob(d))
	}
	sales := salessvc.New(salesdb.New(d.DB), d.Accounts, catalog, d.Tx, d.Clock, observers...)
	return worldapi.Services{
		Catalog: catalog,
		Sales:   sales,
		Brands:  brands,
		Flex:    flexsvc.New(flexdb.New(d.DB), d.Accounts, sales, d.Clock),
	}
}
