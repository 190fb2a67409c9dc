// Package jobqueue puts feria's deferred work on asynq: the relay that moves
// outbox messages into the queue, and the client the sandbox uses to purge it.
package jobqueue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/ports/sandboxport"
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
		_, err := r.client.EnqueueContext(ctx, task, asynq.TaskID(m.ID), asynq.Queue(r.queueOf(m.Type)),
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

// Queued is every job asynq holds, as the sandbox reset sees it.
type Queued struct{ insp *asynq.Inspector }

var _ sandboxport.Resetter = Queued{}

// NewQueued returns the jobs insp reads.
func NewQueued(insp *asynq.Inspector) Queued { return Queued{insp: insp} }

// Reset removes every queued, scheduled, retrying, failed and completed job
// of every queue; jobs running right now finish.
func (q Queued) Reset(context.Context) error {
	insp := q.insp
	queues, err := insp.Queues()
	if err != nil {
		return fmt.Errorf("jobqueue: purge: %w", redisstore.Translate(err))
	}
	for _, q := range queues {
		for _, del := range []func(string) (int, error){insp.DeleteAllPendingTasks, insp.DeleteAllScheduledTasks,
			insp.DeleteAllRetryTasks, insp.DeleteAllArchivedTasks, insp.DeleteAllCompletedTasks} {
			if _, err := del(q); err != nil {
				return fmt.Errorf("jobqueue: purge %s: %w", q, redisstore.Translate(err))
			}
		}
	}
	return nil
}
