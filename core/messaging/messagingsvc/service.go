// Package messagingsvc holds the use cases of the messaging module: reading
// a pack's after-sale conversation. Messages are written by the modules that
// send them (the fiscal module's billing-data request).
package messagingsvc

import (
	"context"
	"errors"
	"fmt"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/messagingport"
)

// Deps is what the service needs. It only reads.
type Deps struct {
	Messages messagingport.Messages
	// Packs tells who the seller and buyer of a pack are.
	Packs fiscalport.Packs
}

// Service implements messagingport.Service.
type Service struct {
	messages messagingport.Messages
	packs    fiscalport.Packs
}

var _ messagingport.Service = (*Service)(nil)

// New returns the service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{messages: d.Messages, packs: d.Packs}
}

// Messages pages through a pack's conversation, for its seller and buyer.
// A pack has one conversation, with its seller: another seller's is not
// found.
func (s *Service) Messages(ctx context.Context, packID string, sellerID int64, page paging.Request) (messagingport.Conversation, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return messagingport.Conversation{}, account.ErrTokenNotGranted
	}
	id, err := fiscal.ParsePackID(packID)
	if err != nil {
		return messagingport.Conversation{}, err
	}
	p, err := s.packs.Pack(ctx, id)
	if errors.Is(err, fiscalport.ErrPackNotFound) {
		return messagingport.Conversation{}, kernel.E(kernel.NotExist, "not_found", fmt.Sprintf("pack %d not found", id))
	}
	if err != nil {
		return messagingport.Conversation{}, err
	}
	if p.RoleOf(caller.UserID) == fiscal.Stranger {
		return messagingport.Conversation{}, kernel.E(kernel.Permission, "forbidden", "caller is neither the seller nor the buyer of the pack")
	}
	if sellerID != 0 && sellerID != p.SellerID {
		return messagingport.Conversation{}, kernel.E(kernel.NotExist, "not_found", fmt.Sprintf("pack %d has no conversation with seller %d", id, sellerID))
	}
	msgs, total, err := s.messages.ByPack(ctx, id, page)
	if err != nil {
		return messagingport.Conversation{}, err
	}
	return messagingport.Conversation{PackID: id, SiteID: p.SiteID, SellerID: p.SellerID, Messages: msgs, Page: page.Of(total)}, nil
}

// Message returns a message to the users it concerns, its sender and its
// recipient (the pack's seller and buyer), in its pack's conversation; an
// unknown message is 404 before anybody's permission is read.
func (s *Service) Message(ctx context.Context, id string) (messagingport.Conversation, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return messagingport.Conversation{}, account.ErrTokenNotGranted
	}
	m, err := s.messages.Message(ctx, id)
	if errors.Is(err, messagingport.ErrNotFound) {
		return messagingport.Conversation{}, messaging.ErrMessageNotFound.Wrap(err)
	}
	if err != nil {
		return messagingport.Conversation{}, err
	}
	if caller.UserID != m.FromUserID && caller.UserID != m.ToUserID {
		return messagingport.Conversation{}, messaging.ErrNotYourMessage
	}
	p, err := s.packs.Pack(ctx, m.PackID)
	if err != nil {
		return messagingport.Conversation{}, err
	}
	first, _, err := s.messages.ByPack(ctx, m.PackID, paging.Request{Limit: 1})
	if err != nil {
		return messagingport.Conversation{}, err
	}
	conv := messagingport.Conversation{PackID: p.ID, SiteID: p.SiteID, SellerID: p.SellerID, Messages: []messaging.Message{m}}
	if len(first) == 1 {
		conv.FirstID = first[0].ID
	}
	return conv, nil
}
