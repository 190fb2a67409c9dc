// Package outboxport declares the transactional outbox: work that must leave
// the process (e-mails, notifications, copies) is written as a message in the
// same transaction as the change that causes it, and relayed to the job queue
// afterwards. A crash between commit and enqueue loses nothing.
package outboxport

import (
	"context"
	"time"
)

// Message is one unit of deferred work. ID doubles as the job's task id, so a
// message relayed twice is still queued once.
type Message struct {
	ID        string
	Type      string
	Payload   []byte
	CreatedAt time.Time
}

// Outbox is what use cases write to, inside their transaction.
type Outbox interface {
	Add(ctx context.Context, m Message) error
}

// Pending is what the relay reads and acknowledges.
type Pending interface {
	Pending(ctx context.Context, limit int) ([]Message, error)
	MarkRelayed(ctx context.Context, ids []string, at time.Time) error
}

// Pruner removes what a store keeps only for a while: the rows finished
// before before (relayed messages, notifications delivered or missed); it
// answers how many went. The retention job (TaskPrune) calls every one.
type Pruner interface {
	Prune(ctx context.Context, before time.Time) (int, error)
}

// TaskPrune is the periodic job that removes, by the service clock, the rows
// kept only for a while (RETENTION_* settings).
const TaskPrune = "retention:prune"
