// Package jobqueue puts feria's deferred work on asynq: the relay that moves
// outbox messages into the queue, and the client the sandbox uses to purge it.
package jobqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/ports/sandboxport"
	"github.com/feria/feria/workers/tasks"
)

// Relay moves outbox messages to asynq, each with its message id as task id,
// so that a message relayed twice (a crash after enqueue, before the
// acknowledgement) is still queued only once.
type Relay struct {
	outbox   outboxport.Pending
	client   *asynq.Client
	clock    kernel.Clock
	log      *slog.Logger
	queueOf  func(taskType string) string
	interval time.Duration
	kick     chan struct{}
	world    string
}

// NewRelay returns a relay; queueOf picks the queue of a task type.
func NewRelay(outbox outboxport.Pending, client *asynq.Client, clock kernel.Clock, log *slog.Logger, queueOf func(string) string) *Relay {
	return &Relay{outbox: outbox, client: client, clock: clock, log: log, queueOf: queueOf,
		interval: 500 * time.Millisecond, kick: make(chan struct{}, 1)}
}

// Every sets how often the relay looks at the outbox when nothing kicks it
// (500 ms by default).
func (r *Relay) Every(d time.Duration) *Relay {
	r.interval = d
	return r
}

// Of makes the relay's tasks the jobs of world (its name leads their task
// ids, tasks.WorldTaskID), so that the workers run them in that world.
func (r *Relay) Of(world string) *Relay {
	r.world = world
	return r
}

// relayBatch is how many messages one pass of the relay reads.
const relayBatch = 100

// Kick asks the relay to look at the outbox now rather than at its next tick.
func (r *Relay) Kick() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Run relays until ctx ends.
func (r *Relay) Run(ctx context.Context) {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		n, err := r.Once(ctx)
		if err != nil && ctx.Err() == nil {
			r.log.Warn("outbox relay failed; will retry", slog.Any("err", err))
		} else if n > 0 {
			r.log.Debug("outbox relayed", slog.Int("messages", n))
		}
		// A full batch means more may wait: relay the next at once rather
		// than one batch per tick (100 messages per 500 ms at most).
		if err == nil && n == relayBatch && ctx.Err() == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-r.kick:
		}
	}
}

// Once relays one batch and returns how many messages it queued.
func (r *Relay) Once(ctx context.Context) (int, error) {
	msgs, err := r.outbox.Pending(ctx, relayBatch)
	if err != nil || len(msgs) == 0 {
		return 0, err
	}
	done := make([]string, 0, len(msgs))
	for _, m := range msgs {
		task := asynq.NewTask(m.Type, m.Payload)
		_, err := r.client.EnqueueContext(ctx, task, asynq.TaskID(tasks.WorldTaskID(r.world, m.ID)), asynq.Queue(tasks.WorldQueue(r.world, r.queueOf(m.Type))),
			asynq.MaxRetry(10), asynq.Retention(24*time.Hour))
		if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
			// Acknowledge what went through; the rest is tried again.
			if ackErr := r.outbox.MarkRelayed(ctx, done, r.clock.Now()); ackErr != nil {
				return 0, ackErr
			}
			return len(done), err
		}
		done = append(done, m.ID)
	}
	return len(done), r.outbox.MarkRelayed(ctx, done, r.clock.Now())
}

// Queued is the jobs of one world asynq holds, as the sandbox reset sees
// them: the queues are shared by every world, and a job says its world by
// its task id.
type Queued struct {
	insp  *asynq.Inspector
	world string
}

var _ sandboxport.Resetter = Queued{}

// NewQueued returns the default world's jobs insp reads.
func NewQueued(insp *asynq.Inspector) Queued { return Queued{insp: insp} }

// Of is the jobs of world instead.
func (q Queued) Of(world string) Queued {
	q.world = world
	return q
}

// listPage is how many jobs one read of a queue's state lists.
const listPage = 1000

// Reset removes the world's queued, scheduled, retrying, failed and
// completed jobs of every queue, and nobody else's; jobs running right now
// finish.
func (q Queued) Reset(context.Context) error {
	queues, err := q.insp.Queues()
	if err != nil {
		return fmt.Errorf("jobqueue: purge: %w", redisstore.Translate(err))
	}
	insp := q.insp
	for _, name := range queues {
		for _, list := range []func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error){insp.ListPendingTasks,
			insp.ListScheduledTasks, insp.ListRetryTasks, insp.ListArchivedTasks, insp.ListCompletedTasks} {
			if err := q.purge(name, list); err != nil {
				return fmt.Errorf("jobqueue: purge %s: %w", name, redisstore.Translate(err))
			}
		}
	}
	return nil
}

// purge removes the world's jobs of one state of queue: it reads them all
// first, since removing while paging would skip some.
func (q Queued) purge(queue string, list func(string, ...asynq.ListOption) ([]*asynq.TaskInfo, error)) error {
	var ids []string
	for page := 1; ; page++ {
		infos, err := list(queue, asynq.PageSize(listPage), asynq.Page(page))
		if err != nil {
			return err
		}
		for _, t := range infos {
			if tasks.WorldOf(t.ID) == q.world {
				ids = append(ids, t.ID)
			}
		}
		if len(infos) < listPage {
			break
		}
	}
	for _, id := range ids {
		// A job that ran or was removed meanwhile is not there to remove;
		// one that started meanwhile finishes, as running jobs do.
		err := q.insp.DeleteTask(queue, id)
		if err != nil && !errors.Is(err, asynq.ErrTaskNotFound) && !strings.Contains(err.Error(), "active state") {
			return err
		}
	}
	return nil
}
