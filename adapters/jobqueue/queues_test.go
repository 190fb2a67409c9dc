package jobqueue_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hibiken/asynq"

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
