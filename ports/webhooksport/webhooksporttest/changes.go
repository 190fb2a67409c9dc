package webhooksporttest

import (
	"context"
	"sync"

	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/webhooksport"
)

// Changes is a fake webhooksport.Changes for the use-case tests of the
// modules that tell it: it keeps every change it is told.
type Changes struct {
	mu   sync.Mutex
	told []webhooks.Change
}

var _ webhooksport.Changes = (*Changes)(nil)

// Changed records c.
func (c *Changes) Changed(_ context.Context, ch webhooks.Change) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.told = append(c.told, ch)
	return nil
}

// Told returns the changes told so far, in order.
func (c *Changes) Told() []webhooks.Change {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]webhooks.Change(nil), c.told...)
}
