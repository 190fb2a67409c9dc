package jobqueue_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/test/testenv"
)

// Registered queues are what asynq's inspector (the dashboard's source)
// lists, before any task; registering twice changes nothing.
func TestRegisterQueues(t *testing.T) {
	for name, newRedis := range testenv.Redises() {
		t.Run(name, func(t *testing.T) {
			rdb := newRedis(t)
			insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: rdb.Options().Addr, DB: rdb.Options().DB})
			defer insp.Close()
			for range 2 {
				if err := jobqueue.RegisterQueues(context.Background(), rdb, "default", "bulk"); err != nil {
					t.Fatal(err)
				}
			}
			got, err := insp.Queues()
			slices.Sort(got)
			if err != nil || !slices.Equal(got, []string{"bulk", "default"}) {
				t.Fatalf("queues %v %v", got, err)
			}
			if info, err := insp.GetQueueInfo("bulk"); err != nil || info.Size != 0 {
				t.Fatalf("bulk: %+v %v", info, err)
			}
		})
	}
}

// A job whose worker is gone (here: stuck for good, and cut off from Redis
// so that its heartbeats no longer extend the lease) runs again on the next
// worker server as it starts once its lease is released, instead of a
// minute after the lease would have lapsed.
func TestReleaseLeases(t *testing.T) {
	for name, newRedis := range testenv.Redises() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			rdb := newRedis(t)
			conn := asynq.RedisClientOpt{Addr: rdb.Options().Addr, DB: rdb.Options().DB}
			q := asynq.NewClient(conn)
			defer q.Close()
			if _, err := q.Enqueue(asynq.NewTask("test:stuck", nil), asynq.TaskID("stuck")); err != nil {
				t.Fatal(err)
			}
			stuck, again := make(chan struct{}), make(chan struct{})
			release := make(chan struct{})
			defer close(release)
			cutOff := testenv.NewProxy(t, conn.Addr)
			// No retries once cut: its shutdown then fails at once.
			goneRedis := redis.NewClient(&redis.Options{Addr: cutOff.Addr(), DB: conn.DB, MaxRetries: -1})
			defer goneRedis.Close()
			gone := asynq.NewServerFromRedisClient(goneRedis, asynq.Config{Concurrency: 1, LogLevel: asynq.FatalLevel, ShutdownTimeout: time.Millisecond})
			if err := gone.Start(asynq.HandlerFunc(func(context.Context, *asynq.Task) error {
				close(stuck)
				<-release
				return nil
			})); err != nil {
				t.Fatal(err)
			}
			defer gone.Shutdown()
			<-stuck
			// A worker alive would extend the lease at its next heartbeat
			// (every 5 s), after the release and before the next server
			// looks: the job would wait out the new lease.
			cutOff.Cut()
			if n, err := jobqueue.ReleaseLeases(ctx, rdb, time.Now(), "default", "bulk"); err != nil || n != 1 {
				t.Fatalf("released %d %v, want 1", n, err)
			}
			next := asynq.NewServer(conn, asynq.Config{Concurrency: 1, LogLevel: asynq.FatalLevel, DelayedTaskCheckInterval: 100 * time.Millisecond,
				RetryDelayFunc: func(int, error, *asynq.Task) time.Duration { return 0 }})
			if err := next.Start(asynq.HandlerFunc(func(context.Context, *asynq.Task) error {
				close(again)
				return nil
			})); err != nil {
				t.Fatal(err)
			}
			defer next.Shutdown()
			select {
			case <-again:
			case <-time.After(10 * time.Second):
				t.Fatal("the released job did not run again")
			}
		})
	}
}
