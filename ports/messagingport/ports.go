// Package messagingport declares the ports of the messaging module: the
// reading of a pack's after-sale conversation (Service) and its storage
// (Messages).
package messagingport

import (
	"context"
	"errors"
	"io"
	"time"

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
	// MarkRead sets the read date of the pack's messages to userID that
	// have none.
	MarkRead(ctx context.Context, packID, userID int64, at time.Time) error
}

// Attachments stores the attachments' rows (their files are in the file
// store). Message, Messages.Message and ByPack fill a message's
// Attachments from them.
type Attachments interface {
	// AddAttachment stores an attachment not yet sent.
	AddAttachment(ctx context.Context, a messaging.Attachment) error
	// Attachment returns an attachment, or ErrNotFound.
	Attachment(ctx context.Context, id string) (messaging.Attachment, error)
	// Attach gives the attachments ids that userID uploaded and no message
	// carries yet to message messageID, in the caller's transaction, and
	// says how many it gave: fewer than len(ids) when another send took
	// one first.
	Attach(ctx context.Context, messageID string, userID int64, ids []string) (int, error)
	// Unsent returns up to limit attachments that no message carries,
	// uploaded before before, oldest first.
	Unsent(ctx context.Context, before time.Time, limit int) ([]messaging.Attachment, error)
	// DeleteUnsent removes an attachment's row unless a message carries it
	// (a send took it since it was listed); it says whether it did.
	DeleteUnsent(ctx context.Context, id string) (bool, error)
}

// Service is what HTTP calls. It acts for the caller in ctx and takes the
// pack id as it came in the path.
type Service interface {
	// Messages pages through the pack's after-sale conversation with the
	// seller sellerID (0: the pack's seller), for its seller and buyer.
	// With markRead, the caller's unread messages of the pack are read
	// first, and the answer shows them read.
	Messages(ctx context.Context, packID string, sellerID int64, page paging.Request, markRead bool) (Conversation, error)
	// Send is POST /messages/packs/{pack_id}/sellers/{seller_id}: a message
	// of the pack's seller or buyer to the other, in the conversation that
	// it answers with that one message.
	Send(ctx context.Context, s Send) (Conversation, error)
	// Upload keeps a file for a message the caller will send.
	Upload(ctx context.Context, filename string, data []byte) (messaging.Attachment, error)
	// Download opens an attachment for its uploader before it is sent, and
	// for the sender and recipient of the message carrying it.
	Download(ctx context.Context, id string) (Download, error)
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

// Send is a message as POST /messages/packs/{pack_id}/sellers/{seller_id}
// takes it: the pack id as it came in the path.
type Send struct {
	PackID      string
	SellerID    int64
	FromUserID  int64
	ToUserID    int64
	Text        string
	Attachments []string
}

// Download is an open attachment; the caller closes it.
type Download struct {
	io.ReadCloser
	Attachment messaging.Attachment
}

// ErrNotFound is returned by stores for a missing message.
var ErrNotFound = errors.New("not found")
