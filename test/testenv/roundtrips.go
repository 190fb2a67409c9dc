package testenv

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RoundTrips is a go-redis hook that counts what a client sends: single
// commands and pipelines (each one round trip whatever its length), leaving
// out the handshake of a newly opened connection. Tests use it to prove a
// use case costs one round trip. Add it with client.AddHook.
type RoundTrips struct {
	Single, Pipelines, Pipelined atomic.Int64
}

func (*RoundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *RoundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !handshake(cmd) {
			r.Single.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (r *RoundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && !handshake(cmds[0]) {
			r.Pipelines.Add(1)
			r.Pipelined.Add(int64(len(cmds)))
		}
		return next(ctx, cmds)
	}
}

// Total is the number of round trips.
func (r *RoundTrips) Total() int64 { return r.Single.Load() + r.Pipelines.Load() }

// Reset starts counting again.
func (r *RoundTrips) Reset() {
	r.Single.Store(0)
	r.Pipelines.Store(0)
	r.Pipelined.Store(0)
}

// handshake tells the commands go-redis sends once when it opens a
// connection of its pool (HELLO, SELECT, CLIENT SETINFO): they are not the
// caller's.
func handshake(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "hello", "select", "client", "auth":
		return true
	}
	return false
}
