// Package redisstore connects feria to Redis, or to an in-process Redis
// (miniredis) in the embedded mode, so that counters and asynq run through
// the very same adapters either way.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/core/kernel"
)

// Open connects to the Redis at url (redis://host:port/db).
func Open(url string) (*redis.Client, *redis.Options, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, fmt.Errorf("redis: %w", err)
	}
	return redis.NewClient(opt), opt, nil
}

// ErrUnavailable is what callers see while Redis cannot be reached.
var ErrUnavailable = kernel.E(kernel.Unavailable, "service_unavailable", "counters are unavailable, retry later")

// Translate turns a connection failure into ErrUnavailable, so that the API
// answers a clear 503 while Redis is down and recovers when it returns.
func Translate(err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	var netErr net.Error
	// LOADING: a restarted Redis answers it while it reads its AOF or RDB
	// back; the data is on its way, so it is an outage, not a fault.
	if errors.As(err, &netErr) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, redis.ErrClosed) || errors.Is(err, redis.ErrPoolTimeout) || redis.IsLoadingError(err) {
		return ErrUnavailable.Wrap(err)
	}
	return err
}
