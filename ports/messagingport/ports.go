// Package messagingport declares the ports of the messaging module: the
// reading of a pack's after-sale conversation (Service) and its storage
// (Messages).
package messagingport

import (
	"context"
	"errors"

	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
)

// Messages stores the messages of packs' after-sale conversations.
type Messages interface {
	// Add stores a message in the caller's transaction.
	Add(ctx context.Context, m messaging.Message) error
	// Message returns a message, or ErrNotFound.
	Message(ctx context.Context, id string) (messaging.Message, error)
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
	// Message is GET /messages/{id}, for the message's sender and
	// recipient: its pack's conversation holding that one message.
	Message(ctx context.Context, id string) (Conversation, error)
}

// Conversation is one page of a pack's after-sale conversation.
type Conversation struct {
	PackID   int64
	SiteID   string
	SellerID int64
	Messages []messaging.Message
	Page     paging.Page
	// FirstID is the id of the conversation's first message when the
	// answer holds a message picked by id (its page says nothing of it).
	FirstID string
}

// ErrNotFound is returned by stores for a missing message.
var ErrNotFound = errors.New("not found")
