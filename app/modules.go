package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/hibiken/asynq"

	"github.com/feria/feria/adapters/callback/httpcallback"
	"github.com/feria/feria/adapters/httpapi/accountapi"
	"github.com/feria/feria/adapters/httpapi/adminapi"
	"github.com/feria/feria/adapters/httpapi/appsapi"
	"github.com/feria/feria/adapters/httpapi/brandsapi"
	"github.com/feria/feria/adapters/httpapi/catalogapi"
	"github.com/feria/feria/adapters/httpapi/compatapi"
	"github.com/feria/feria/adapters/httpapi/contactsapi"
	"github.com/feria/feria/adapters/httpapi/controlapi"
	"github.com/feria/feria/adapters/httpapi/fiscalapi"
	"github.com/feria/feria/adapters/httpapi/flexapi"
	"github.com/feria/feria/adapters/httpapi/messagingapi"
	"github.com/feria/feria/adapters/httpapi/notifyapi"
	"github.com/feria/feria/adapters/httpapi/salesapi"
	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/adapters/httpapi/shippingapi"
	"github.com/feria/feria/adapters/httpapi/visitsapi"
	"github.com/feria/feria/adapters/httpapi/webhooksapi"
	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/adapters/mailer/logmail"
	"github.com/feria/feria/adapters/mailer/smtpmail"
	"github.com/feria/feria/adapters/redisstore/contactsredis"
	"github.com/feria/feria/adapters/sqlstore/appsdb"
	"github.com/feria/feria/adapters/sqlstore/brandsdb"
	"github.com/feria/feria/adapters/sqlstore/catalogdb"
	"github.com/feria/feria/adapters/sqlstore/compatdb"
	"github.com/feria/feria/adapters/sqlstore/contactsdb"
	"github.com/feria/feria/adapters/sqlstore/fiscaldb"
	"github.com/feria/feria/adapters/sqlstore/flexdb"
	"github.com/feria/feria/adapters/sqlstore/messagingdb"
	"github.com/feria/feria/adapters/sqlstore/notifydb"
	"github.com/feria/feria/adapters/sqlstore/outboxdb"
	"github.com/feria/feria/adapters/sqlstore/salesdb"
	"github.com/feria/feria/adapters/sqlstore/shippingdb"
	"github.com/feria/feria/adapters/sqlstore/webhooksdb"
	"github.com/feria/feria/core/apps/appssvc"
	"github.com/feria/feria/core/brands/brandssvc"
	"github.com/feria/feria/core/catalog/catalogsvc"
	"github.com/feria/feria/core/compat/compatsvc"
	"github.com/feria/feria/core/contacts/contactssvc"
	"github.com/feria/feria/core/fiscal/fiscalsvc"
	"github.com/feria/feria/core/flex/flexsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/messaging/messagingsvc"
	"github.com/feria/feria/core/notify/notifysvc"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/core/sales/salessvc"
	"github.com/feria/feria/core/shipping/shippingsvc"
	"github.com/feria/feria/core/visits/visitssvc"
	"github.com/feria/feria/core/webhooks/webhookssvc"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/notifyport"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/ports/salesport"
	"github.com/feria/feria/ports/sandboxport"
	"github.com/feria/feria/ports/webhooksport"
	"github.com/feria/feria/workers/compatworker"
	"github.com/feria/feria/workers/fiscalworker"
	"github.com/feria/feria/workers/retentionworker"
	"github.com/feria/feria/workers/tasks"
	"github.com/feria/feria/workers/webhooksworker"
)

// visitsCountersPrefix leads every key of the visits' counters.
const visitsCountersPrefix = "feria:visits:"

// Module is one row of the module map: what one area of feria adds to the
// process. Every field may be left out.
type Module struct {
	Name string
	// Routes mounts the module's public routes (package adapters/httpapi/<m>api).
	Routes func(r fiber.Router)
	// RoutesFirst mounts Routes before every other row's: a static path of
	// the module lies where another row's parameter would take it
	// (GET /items/visits under GET /items/:item_id).
	RoutesFirst bool
	// Collections are its sandbox collections, in fixtures order.
	Collections []sandboxapi.Collection
	// SandboxRoutes mounts routes under /sandbox that are not collections.
	SandboxRoutes func(r fiber.Router)
	// Jobs registers its job handlers (package workers/<m>worker).
	Jobs func(handle func(taskType string, h asynq.Handler))
	// Queues puts task types on a queue other than tasks.QueueDefault.
	Queues map[string]string
	// OrderObserver is told of every stored order, in the storing
	// transaction.
	OrderObserver salesport.OrderObserver
	// Reset empties what the module keeps outside the database on DELETE
	// /sandbox (the database, files and queues are emptied for every module).
	Reset sandboxport.Resetter
	// Periodic are task types the worker processes enqueue on a schedule,
	// by cron spec ("@every 1h").
	Periodic map[string]string
}

// modules is the module map: the whole system in one list, in the order
// docs/sandbox.md applies fixtures (users, categories, domains, products, items,
// orders, brands, flex subscriptions, shipments, contact events, visit events, shipping
// rates, applications), then the modules without collections. The use cases
// are built first, in the order they depend on each other; they keep no
// state, so the API and the workers of one process share them.
func modules(d *Deps) ([]Module, error) {
	// Stored orders fan out to every row's OrderObserver (compat's
	// snapshots), filled in below once the rows exist.
	observers := &orderObservers{}
	// Tokens may belong to applications, which check their users: the
	// account module learns them once both exist.
	apps := appssvc.New(appssvc.Deps{Store: appsdb.New(d.DB), Users: d.Accounts})
	d.applications.Applications = apps
	// The notifications to applications: every write path below that
	// changes a resource of a topic tells hooks in its transaction.
	hooks := webhookssvc.New(webhookssvc.Deps{Store: webhooksdb.New(d.DB), Apps: apps, Outbox: outboxdb.New(d.DB),
		Sender: httpcallback.New(d.Config.CallbackAllowPrivate), Tx: d.Tx, Clock: d.Clock, Wall: kernel.SystemClock})
	d.Registry.MustRegister(webhooksapi.NewCollector(hooks))
	brands := brandssvc.New(brandssvc.Deps{Store: brandsdb.New(d.DB), Users: d.Accounts, Clock: d.Clock})
	catalog := catalogsvc.New(catalogsvc.Deps{Store: catalogdb.New(d.DB), Users: d.Accounts, OfficialStores: brands,
		Changes: hooks, Tx: d.Tx, Clock: d.Clock})
	sales := salessvc.New(salessvc.Deps{Orders: salesdb.New(d.DB), Notes: salesdb.NewNotes(d.DB), Users: d.Accounts, Items: catalog,
		Observers: []salesport.OrderObserver{observers}, Changes: hooks, Tx: d.Tx, Clock: d.Clock})
	flex := flexsvc.New(flexsvc.Deps{Store: flexdb.New(d.DB), Users: d.Accounts, Orders: sales, Catalog: catalog,
		Changes: hooks, Items: catalog, Tx: d.Tx, Clock: d.Clock})
	counters := contactsredis.New(d.Redis, d.keys(contactsredis.DefaultPrefix))
	// Counters of the layout before the year hashes get their months; a
	// Redis that cannot be reached now is migrated at a later start (its
	// old months read short until then), and the process starts anyway,
	// as it does while Redis is down. A world never held the old layout.
	if d.World == "" {
		if err := counters.Migrate(context.Background()); err != nil {
			d.Log.Warn("contacts: the counters' month buckets are not migrated yet", slog.Any("err", err))
		}
	}
	contactsStore := contactsdb.New(d.DB)
	// Visits count on the contacts' engine, under keys of their own.
	visitCounters := contactsredis.New(d.Redis, d.keys(visitsCountersPrefix))
	visitsSvc := visitssvc.New(visitssvc.Deps{Counters: visitCounters, Owners: contactsStore, Clock: d.Clock})
	contacts := contactssvc.New(contactssvc.Deps{Counters: counters, Owners: contactsStore, Questions: contactsStore,
		Changes: hooks, Tx: d.Tx, Clock: d.Clock})
	shipping := shippingsvc.New(shippingsvc.Deps{Rates: shippingdb.New(d.DB), Catalog: catalog, Users: d.Accounts})
	compat := compatsvc.New(compatsvc.Deps{Store: compatdb.New(d.DB), Tx: d.Tx, Outbox: outboxdb.New(d.DB), Notes: noteRules,
		Items: catalog, Clock: d.Clock})
	fiscal, err := fiscalService(d, hooks)
	if err != nil {
		return nil, err
	}
	messages := messagingdb.New(d.DB)
	conversations := messagingsvc.New(messagingsvc.Deps{Messages: messages, Attachments: messages, Packs: fiscaldb.New(d.DB),
		Files: d.Blobs, Changes: hooks, Tx: d.Tx, Clock: d.Clock})
	feed := notifysvc.New(notifysvc.Deps{Notifications: notifydb.New(d.DB)})

	rows := []Module{
		{
			Name:          "account",
			Routes:        func(r fiber.Router) { accountapi.Routes(r, d.Accounts) },
			Collections:   accountapi.Collections(d.Accounts),
			SandboxRoutes: func(r fiber.Router) { accountapi.SandboxRoutes(r, d.Accounts) },
		},
		{
			Name:        "catalog",
			Routes:      func(r fiber.Router) { catalogapi.Routes(r, catalog, d.Auth) },
			Collections: catalogapi.Collections(catalog),
		},
		{
			Name:        "sales",
			Routes:      func(r fiber.Router) { salesapi.Routes(r, sales, d.Auth) },
			Collections: salesapi.Collections(sales),
		},
		{
			Name:        "brands",
			Routes:      func(r fiber.Router) { brandsapi.Routes(r, brands, d.Auth) },
			Collections: brandsapi.Collections(brands),
		},
		{
			Name:        "flex",
			Routes:      func(r fiber.Router) { flexapi.Routes(r, flex, d.Auth) },
			Collections: flexapi.Collections(flex),
		},
		{
			Name:        "contacts",
			Routes:      func(r fiber.Router) { contactsapi.Routes(r, contacts, d.Auth) },
			Collections: contactsapi.Collections(contacts),
			Reset:       counters,
		},
		{
			Name:        "visits",
			Routes:      func(r fiber.Router) { visitsapi.Routes(r, visitsSvc, d.Auth) },
			RoutesFirst: true,
			Collections: visitsapi.Collections(visitsSvc),
			Reset:       visitCounters,
		},
		{
			Name:        "shipping",
			Routes:      func(r fiber.Router) { shippingapi.Routes(r, shipping) },
			Collections: shippingapi.Collections(shipping),
		},
		// Applications are the last key of docs/sandbox.md's fixtures order (they
		// name users): keep this row after every other row with collections.
		{Name: "apps", Collections: appsapi.Collections(apps)},
		{
			Name:          "compat",
			Routes:        func(r fiber.Router) { compatapi.Routes(r, compat, d.Auth) },
			Jobs:          func(handle func(string, asynq.Handler)) { compatworker.Register(handle, compat) },
			Queues:        map[string]string{compatport.TaskCopy: tasks.QueueBulk},
			OrderObserver: compat,
		},
		{
			Name:   "fiscal",
			Routes: func(r fiber.Router) { fiscalapi.Routes(r, fiscal, d.Auth) },
			Jobs:   func(handle func(string, asynq.Handler)) { fiscalworker.Register(handle, fiscal) },
			// The janitor of files no document names (uploads cut short by an outage).
			Periodic: map[string]string{fiscalport.TaskSweepOrphans: "@every 1h"},
		},
		{Name: "messaging", Routes: func(r fiber.Router) { messagingapi.Routes(r, conversations, d.Auth) }},
		{Name: "notify", Routes: func(r fiber.Router) { notifyapi.Routes(r, feed, d.Auth) }},
		{
			Name:          "webhooks",
			Routes:        func(r fiber.Router) { webhooksapi.Routes(r, hooks, d.Auth) },
			SandboxRoutes: func(r fiber.Router) { webhooksapi.SandboxRoutes(r, hooks) },
			Jobs:          func(handle func(string, asynq.Handler)) { webhooksworker.Register(handle, hooks) },
			Queues:        map[string]string{webhooksport.TaskDeliver: tasks.QueueWebhooks},
		},
		{Name: "admin", Routes: func(r fiber.Router) { adminRoutes(r, d) }},
		{
			// Storage that does not grow forever: rows kept only for a while
			// (RETENTION_*) are removed every hour, by the service clock.
			Name: "retention",
			Jobs: func(handle func(string, asynq.Handler)) {
				retentionworker.Register(handle, retentionworker.Pruner{Clock: d.Clock, Log: d.Log, Stores: []retentionworker.Store{
					{Name: "outbox", Keep: d.Config.RetentionOutbox, Pruner: outboxdb.New(d.DB)},
					{Name: "copy jobs", Keep: d.Config.RetentionOutbox, Pruner: compatdb.New(d.DB)},
					{Name: "notifications", Keep: d.Config.RetentionNotifications, Pruner: webhooksdb.New(d.DB)},
					{Name: "unsent message attachments", Keep: messaging.UnsentKeep, Pruner: conversations},
				}})
			},
			Periodic: map[string]string{outboxport.TaskPrune: "@every 1h"},
		},
		{
			// The sandbox's test controls; their middlewares are mounted
			// by NewHTTP around every module's routes.
			Name:          "controls",
			SandboxRoutes: func(r fiber.Router) { controlapi.SandboxRoutes(r, d.Controls) },
			Reset:         d.Controls,
		},
	}
	for _, m := range rows {
		if m.OrderObserver != nil {
			*observers = append(*observers, m.OrderObserver)
		}
	}
	return rows, nil
}

// orderObservers tells every observer of the module map, in row order.
type orderObservers []salesport.OrderObserver

func (o *orderObservers) OrderStored(ctx context.Context, order sales.Order, first bool) error {
	for _, ob := range *o {
		if err := ob.OrderStored(ctx, order, first); err != nil {
			return err
		}
	}
	return nil
}

// noteRules moderates compatibility notes with the messaging rules every
// text of the marketplace follows (core/messaging).
var noteRules = compatport.NoteCheckFunc(func(_ context.Context, _ string, note string) error {
	return messaging.Check(note)
})

// fiscalService wires the fiscal use cases with the configured mailer.
func fiscalService(d *Deps, changes webhooksport.Changes) (*fiscalsvc.Service, error) {
	var mailer notifyport.Mailer = logmail.New(d.Log)
	if d.Config.SMTPURL != "" {
		m, err := smtpmail.New(d.Config.SMTPURL)
		if err != nil {
			return nil, err
		}
		mailer = m
	}
	return fiscalsvc.New(fiscalsvc.Deps{
		Documents:     fiscaldb.New(d.DB),
		Packs:         fiscaldb.New(d.DB),
		Files:         d.Blobs,
		Messages:      messagingdb.New(d.DB),
		Notifications: notifydb.New(d.DB),
		Mailer:        mailer,
		Outbox:        outboxdb.New(d.DB),
		Accounts:      d.Accounts,
		Tx:            d.Tx,
		Clock:         d.Clock,
		Kick:          d.Relay.Kick,
		Changes:       changes,
	}), nil
}

// adminRoutes serves the operators' dashboard of the job queues (asynqmon
// at /admin/jobs, basic auth admin:ADMIN_KEY; off without ADMIN_KEY).
func adminRoutes(r fiber.Router, d *Deps) {
	// asynq learns a queue's name from its first task; recording feria's
	// queues now lets the dashboard show them on a fresh install. A failure
	// only hides empty queues: logged, not fatal.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := jobqueue.RegisterQueues(ctx, d.Redis, tasks.Names()...); err != nil {
		d.Log.Warn("job queues not registered; the dashboard lists them after their first job", slog.Any("err", err))
	}
	adminapi.Routes(r, d.Config.AdminKey, d.AsynqRedis)
}
