package app

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi/compatapi"
	"github.com/feria/feria/adapters/sqlstore/compatdb"
	"github.com/feria/feria/adapters/sqlstore/outboxdb"
	"github.com/feria/feria/core/compat/compatsvc"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/ports/salesport"
	"github.com/feria/feria/workers"
	"github.com/feria/feria/workers/compatworker"
	"github.com/feria/feria/workers/tasks"
)

// The compatibilities module (area B). It takes order snapshots as an order
// observer, and its copies run on the bulk queue.
func init() {
	register(Module{
		Name: "compat",
		Routes: func(app *fiber.App, d *Deps) error {
			compatapi.Routes(app, compatService(d), d.Auth)
			return nil
		},
		Jobs: func(s *workers.Server, d *Deps) error {
			compatworker.Register(s.Handle, compatService(d))
			return nil
		},
	})
	orderObservers = append(orderObservers, func(d *Deps) salesport.OrderObserver { return compatService(d) })
	bulkTasks[tasks.TypeCompatCopy] = true
}

// noteRules moderates notes with the messaging rules every text of the
// marketplace follows (core/messaging).
var noteRules = compatport.NoteCheckFunc(func(_ context.Context, _ string, note string) error {
	return messaging.Check(note)
})

// compatService wires the module's use cases; they keep no state.
func compatService(d *Deps) *compatsvc.Service {
	return compatsvc.New(compatdb.New(d.DB), d.Tx, outboxdb.New(d.DB), noteRules, d.Clock)
}

// CompatJobs returns the module's job port, so that tests can run a job by
// hand (twice, as a retried job after a worker crash is run).
func CompatJobs(d *Deps) compatport.Jobs { return compatService(d) }
