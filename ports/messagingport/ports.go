// Package messagingport declares the storage of after-sale conversations.
package messagingport

import (
	"context"

	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
)

// Messages stores the messages of packs' after-sale conversations.
type Messages interface {
	// Add stores a message in the caller's transaction.
	Add(ctx context.Context, m messaging.Message) error
	// ByPack returns one page of a pack's messages, oldest first, and how
	// many there are.
	ByPack(ctx context.Context, packID int64, page paging.Request) ([]messaging.Message, int, error)
}
