package webhooksporttest

import (
	"context"
	"sync"
	"time"

	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/webhooksport"
)

// Sender is a fake webhooksport.Sender for use-case tests: Answer (set by
// the test) makes the exchange of each post, and every request is kept.
type Sender struct {
	mu     sync.Mutex
	Answer func(req webhooks.Request, timeout time.Duration) webhooks.Exchange
	posts  []webhooks.Request
}

var _ webhooksport.Sender = (*Sender)(nil)

// Post records the request and answers what Answer says (200 at once when
// Answer is nil).
func (s *Sender) Post(_ context.Context, req webhooks.Request, timeout time.Duration) webhooks.Exchange {
	s.mu.Lock()
	s.posts = append(s.posts, req)
	answer := s.Answer
	s.mu.Unlock()
	if answer == nil {
		return webhooks.Exchange{Status: 200, Duration: time.Millisecond}
	}
	return answer(req, timeout)
}

// Posts returns the requests posted so far.
func (s *Sender) Posts() []webhooks.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]webhooks.Request(nil), s.posts...)
}
