package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/adapters/sqlstore/outboxdb"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/test/testenv"
	"github.com/feria/feria/workers"
)

// A job's round trip on a Redis Cluster of three masters (started from this
// machine's redis-server): a message of the outbox goes through the
// instance's relay into asynq (the cluster client option asynqRedis picks),
// a worker server on the same option runs it once, a second enqueue of the
// same message id is refused as a duplicate, and the sandbox's purge of the
// queues works there too.
func TestJobRoundTripOnCluster(t *testing.T) {
	ctx := context.Background()
	rdb := testenv.RedisCluster(t)
	db := testenv.SQLite(t)
	in := testInstance(t, db, rdb)
	log := discard
	if _, ok := in.Deps.AsynqRedis.(asynq.RedisClusterClientOpt); !ok {
		t.Fatalf("asynq runs on a %T, want the cluster option", in.Deps.AsynqRedis)
	}

	const taskType = "test:cluster_ping"
	ran := make(chan string, 10)
	srv := workers.NewServer(in.Deps.AsynqRedis, workers.Config{Concurrency: 2, ShutdownTimeout: 5 * time.Second,
		DelayedCheck: 100 * time.Millisecond}, log, in.Deps.Jobs)
	srv.Handle(taskType, asynq.HandlerFunc(func(_ context.Context, task *asynq.Task) error {
		ran <- string(task.Payload())
		return nil
	}))
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(wctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("workers: %v", err)
		}
	}()

	msg := outboxport.Message{ID: "cluster-ping-1", Type: taskType, Payload: []byte("hello"), CreatedAt: time.Now()}
	if err := outboxdb.New(db).Add(ctx, msg); err != nil {
		t.Fatal(err)
	}
	if n, err := in.Deps.Relay.Once(ctx); err != nil || n != 1 {
		t.Fatalf("relay: %d %v, want 1 message", n, err)
	}
	select {
	case p := <-ran:
		if p != "hello" {
			t.Fatalf("payload %q", p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the job was not run within 20 s")
	}
	// The message id is the task id: queued again, it is refused.
	_, err := in.Deps.Queue.EnqueueContext(ctx, asynq.NewTask(taskType, []byte("again")), asynq.TaskID(msg.ID),
		asynq.Queue(in.Deps.queueOf(taskType)), asynq.Retention(time.Hour))
	if !errors.Is(err, asynq.ErrTaskIDConflict) {
		t.Fatalf("second enqueue of %s: %v, want a task id conflict", msg.ID, err)
	}
	select {
	case p := <-ran:
		t.Fatalf("the job ran twice (%q)", p)
	case <-time.After(500 * time.Millisecond):
	}
	if err := jobqueue.NewQueued(in.Deps.Inspect).Reset(ctx); err != nil {
		t.Fatalf("purge on the cluster: %v", err)
	}
}
