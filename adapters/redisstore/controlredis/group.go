package controlredis

import (
	"context"
	"sync"
)

// group sends the operations of concurrent callers in one round trip (a
// group commit): a caller joins the batch being filled; the first while
// none is in flight sends it at once, the others wait, and when a flush
// ends the batch filled meanwhile is sent by one of its own callers. A
// caller's operation is sent after it joined, and it returns once its
// batch is answered: a journal entry is written before the answer leaves,
// and a version read is as fresh as a GET of its own would be, while under
// load one round trip (one GET, one LPUSH of many entries) serves many
// requests.
type group[T, R any] struct {
	flush func(ctx context.Context, items []T) (R, error)

	mu   sync.Mutex
	busy bool         // a flush is in flight
	next *batch[T, R] // the batch being filled
}

type batch[T, R any] struct {
	items []T
	res   R
	err   error
	done  chan struct{} // closed once answered
	lead  chan struct{} // one of its callers is told to send it
}

// do adds item to the batch being filled and returns that batch's answer.
// The flush runs without the caller's cancellation: a batch is many
// callers' (the client's own timeouts bound it).
func (g *group[T, R]) do(ctx context.Context, item T) (R, error) {
	g.mu.Lock()
	b := g.next
	if b == nil {
		b = &batch[T, R]{done: make(chan struct{}), lead: make(chan struct{}, 1)}
		g.next = b
	}
	b.items = append(b.items, item)
	if g.busy {
		g.mu.Unlock()
		select {
		case <-b.done:
			return b.res, b.err
		case <-b.lead:
		}
		g.mu.Lock()
	}
	g.busy, g.next = true, nil
	g.mu.Unlock()
	b.res, b.err = g.flush(context.WithoutCancel(ctx), b.items)
	close(b.done)
	g.mu.Lock()
	if g.next != nil {
		g.next.lead <- struct{}{}
	} else {
		g.busy = false
	}
	g.mu.Unlock()
	return b.res, b.err
}
