package jobqueue

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore"
)

// queuesKey is the Redis set in which asynq records every queue it has put a
// task on; its inspector (and so the dashboard) lists queues from it alone.
const queuesKey = "asynq:queues"

// RegisterQueues records feria's queues where asynq keeps their names, so
// that the dashboard shows them on a fresh install, before the first job is
// enqueued. Adding a name already present changes nothing.
func RegisterQueues(ctx context.Context, rdb redis.UniversalClient, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	members := make([]any, len(names))
	for i, n := range names {
		members[i] = n
	}
	if err := rdb.SAdd(ctx, queuesKey, members...).Err(); err != nil {
		return fmt.Errorf("jobqueue: register queues: %w", redisstore.Translate(err))
	}
	return nil
}
