package webhookssvc

import (
	"context"
	"sync"
	"time"
)

// slots bounds the attempts in flight per application in this process, so
// that one application's slow callback cannot take every delivery worker.
type slots struct {
	mu    sync.Mutex
	size  int
	byApp map[int64]chan struct{}
}

func newSlots(size int) *slots { return &slots{size: size, byApp: map[int64]chan struct{}{}} }

// acquire takes one of the application's slots, waiting at most wait; ok
// false when none freed in time.
func (s *slots) acquire(ctx context.Context, app int64, wait time.Duration) (release func(), ok bool) {
	s.mu.Lock()
	ch, found := s.byApp[app]
	if !found {
		ch = make(chan struct{}, s.size)
		s.byApp[app] = ch
	}
	s.mu.Unlock()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, true
	case <-t.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}
