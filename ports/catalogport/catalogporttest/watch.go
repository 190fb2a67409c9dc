package catalogporttest

import (
	"context"
	"sync"

	"github.com/feria/feria/ports/catalogport"
)

// ItemWatch is a fake catalogport.ItemWatch for the use-case tests of the
// modules that tell it: it keeps the id of every item it is told of.
type ItemWatch struct {
	mu      sync.Mutex
	touched []string
}

var _ catalogport.ItemWatch = (*ItemWatch)(nil)

// ItemTouched records itemID.
func (w *ItemWatch) ItemTouched(_ context.Context, itemID string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.touched = append(w.touched, itemID)
	return nil
}

// Touched returns the ids told so far, in order.
func (w *ItemWatch) Touched() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.touched...)
}
