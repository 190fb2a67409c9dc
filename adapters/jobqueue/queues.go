package jobqueue

import (
	"context"
	"fmt"
	"time"

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

// ReleaseLeases hands back the jobs of the named queues that a worker was
// running: their leases are made to have lapsed a minute before now, so
// that asynq's recoverer, which looks as a worker server starts, retries
// them (after the retry delay) instead of waiting a minute past their
// lease. Only for a Redis whose every worker is known to be gone: the
// embedded one, at the start of the one process that uses it (a previous
// run that was killed left them running). It returns how many it released.
func ReleaseLeases(ctx context.Context, rdb redis.UniversalClient, now time.Time, names ...string) (int, error) {
	lapsed := float64(now.Add(-time.Minute).Unix())
	n := 0
	for _, name := range names {
		key := "asynq:{" + name + "}:lease" // asynq's lease set: job id → when its lease ends
		ids, err := rdb.ZRange(ctx, key, 0, -1).Result()
		if err != nil {
			return n, fmt.Errorf("jobqueue: release leases: %w", redisstore.Translate(err))
		}
		for _, id := range ids {
			if err := rdb.ZAddXX(ctx, key, redis.Z{Score: lapsed, Member: id}).Err(); err != nil {
				return n, fmt.Errorf("jobqueue: release leases: %w", redisstore.Translate(err))
			}
			n++
		}
	}
	return n, nil
}
