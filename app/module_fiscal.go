package app

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi/fiscalapi"
	"github.com/feria/feria/adapters/mailer/logmail"
	"github.com/feria/feria/adapters/mailer/smtpmail"
	"github.com/feria/feria/adapters/sqlstore/fiscaldb"
	"github.com/feria/feria/adapters/sqlstore/outboxdb"
	"github.com/feria/feria/core/fiscal/fiscalsvc"
	"github.com/feria/feria/ports/notifyport"
	"github.com/feria/feria/workers"
	"github.com/feria/feria/workers/fiscalworker"
)

// The fiscal module: fiscal documents, billing messages, buyer notifications.
func init() {
	register(Module{
		Name: "fiscal",
		Routes: func(app *fiber.App, d *Deps) error {
			svc, err := fiscalService(d)
			if err != nil {
				return err
			}
			fiscalapi.Routes(app, d.Auth, svc)
			return nil
		},
		Jobs: func(s *workers.Server, d *Deps) error {
			svc, err := fiscalService(d)
			if err != nil {
				return err
			}
			fiscalworker.Register(s.Handle, svc)
			return nil
		},
	})
}

// fiscalService wires the module's use cases; they keep no state, so the
// API and the workers each build their own.
func fiscalService(d *Deps) (*fiscalsvc.Service, error) {
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
		Messages:      fiscaldb.NewMessages(d.DB),
		Notifications: fiscaldb.NewNotifications(d.DB),
		Mailer:        mailer,
		Outbox:        outboxdb.New(d.DB),
		Accounts:      d.Accounts,
		Tx:            d.Tx,
		Clock:         d.Clock,
		Kick:          d.Relay.Kick,
	}), nil
}
