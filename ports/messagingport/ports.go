// Package messagingport declares the ports of the messaging module: the
// reading of a pack's after-sale conversation (Service) and its storage
// (Messages).
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

// Service is what HTTP calls. It acts for the caller in ctx and takes the
// pack id as it came in the path.
type Service interface {
	// Messages pages through the pack's after-sale conversation with the
	// seller sellerID (0: the pack's seller), for its seller and buyer.
	Messages(ctx context.Context, packID string, sellerID int64, page paging.Request) (Conversation, error)
}

// Conversation is one page of a pack's after-sale conversation.
type Conversation struct {
	PackID   int64
	SiteID   string
	SellerID int64
	Messages []messaging.Message
	Page     paging.Page
}
