package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/adapters/sqlstore/outboxdb"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/test/testenv"
)

// The outbox relay on the real outbox store and Redis (two adapters, so
// the test lives here): a message relayed twice (a crash after the enqueue, before the
// acknowledgement) is queued once; the sandbox purge empties every queue.
func TestRelay(t *testing.T) {
	for name, newRedis := range testenv.Redises() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.SQLite(t)
			rdb := newRedis(t)
			opt := asynq.RedisClientOpt{Addr: rdb.Options().Addr, DB: rdb.Options().DB}
			client, insp := asynq.NewClient(opt), asynq.NewInspector(opt)
			defer client.Close()
			defer insp.Close()
			store := outboxdb.New(db)
			now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
			for i := range 3 {
				m := outboxport.Message{ID: fmt.Sprintf("m%d", i), Type: "test:job", Payload: []byte(`{}`), CreatedAt: now.Add(time.Duration(i) * time.Second)}
				if err := store.Add(ctx, m); err != nil {
					t.Fatal(err)
				}
				if err := store.Add(ctx, m); err != nil { // a retried use case
					t.Fatal(err)
				}
			}
			relay := jobqueue.NewRelay(store, client, kernel.ClockFunc(func() time.Time { return now }),
				slog.New(slog.NewTextHandler(io.Discard, nil)), func(string) string { return "default" })
			if n, err := relay.Once(ctx); err != nil || n != 3 {
				t.Fatalf("first relay: %d %v", n, err)
			}
			if n, err := relay.Once(ctx); err != nil || n != 0 {
				t.Fatalf("second relay: %d %v", n, err)
			}
			// Crash before the acknowledgement: the rows are pending again.
			if _, err := db.NewRaw("UPDATE outbox SET relayed_at = NULL").Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if n, err := relay.Once(ctx); err != nil || n != 3 {
				t.Fatalf("relay after crash: %d %v", n, err)
			}
			info, err := insp.GetQueueInfo("default")
			if err != nil || info.Pending != 3 {
				t.Fatalf("queue: %+v %v; want 3 pending", info, err)
			}
			if _, err := insp.GetTaskInfo("default", "m1"); err != nil {
				t.Fatalf("task m1 not queued under its message id: %v", err)
			}
			if err := jobqueue.NewQueued(insp).Reset(context.Background()); err != nil {
				t.Fatal(err)
			}
			if info, _ := insp.GetQueueInfo("default"); info.Pending != 0 {
				t.Fatalf("after purge: %d pending", info.Pending)
			}
		})
	}
}

// A relay that finds full batches relays the next at once, not one batch
// per tick: 250 messages are queued by its first pass, with a tick of an
// hour.
func TestRelayDrainsFullBatches(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, rdb := testenv.SQLite(t), testenv.Redis(t)
	opt := asynq.RedisClientOpt{Addr: rdb.Options().Addr, DB: rdb.Options().DB}
	client, insp := asynq.NewClient(opt), asynq.NewInspector(opt)
	defer client.Close()
	defer insp.Close()
	store := outboxdb.New(db)
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := range 250 {
		if err := store.Add(ctx, outboxport.Message{ID: fmt.Sprintf("m%03d", i), Type: "test:job", Payload: []byte(`{}`), CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	relay := jobqueue.NewRelay(store, client, kernel.ClockFunc(func() time.Time { return now }),
		slog.New(slog.NewTextHandler(io.Discard, nil)), func(string) string { return "default" }).Every(time.Hour)
	done := make(chan struct{})
	go func() { defer close(done); relay.Run(ctx) }()
	var info *asynq.QueueInfo
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if info, err = insp.GetQueueInfo("default"); err == nil && info.Pending == 250 {
			break
		}
	}
	cancel()
	<-done
	if err != nil || info.Pending != 250 {
		t.Fatalf("queued by the first pass: %+v %v, want 250", info, err)
	}
}
