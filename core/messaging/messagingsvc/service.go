// Package messagingsvc holds the use cases of the messaging module: reading
// a pack's after-sale conversation. Messages are written by the modules that
// send them (the fiscal module's billing-data request).
package messagingsvc

import (
	"context"
	"errors"
	"fmt"

	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/messagingport"
)

// Service implements messagingport.Service.
type Service struct {
	messages messagingport.Messages
	packs    fiscalport.Packs
}

var _ messagingport.Service = (*Service)(nil)

// New returns the service; packs tells who the seller and buyer of a pack are.
func New(messages messagingport.Messages, packs fiscalport.Packs) *Service {
	return &Service{messages: messages, packs: packs}
}

// Messages pages through a pack's conversation, for its seller and buyer.
func (s *Service) Messages(ctx context.Context, packID string, page paging.Request) ([]messaging.Message, paging.Page, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return nil, paging.Page{}, fiscal.ErrTokenMissing
	}
	id, err := fiscal.ParsePackID(packID)
	if err != nil {
		return nil, paging.Page{}, err
	}
	p, err := s.packs.Pack(ctx, id)
	if errors.Is(err, fiscalport.ErrPackNotFound) {
		return nil, paging.Page{}, kernel.E(kernel.NotExist, "not_found", fmt.Sprintf("pack %d not found", id))
	}
	if err != nil {
		return nil, paging.Page{}, err
	}
	if p.RoleOf(caller.UserID) == fiscal.Stranger {
		return nil, paging.Page{}, kernel.E(kernel.Permission, "forbidden", "caller is neither the seller nor the buyer of the pack")
	}
	msgs, total, err := s.messages.ByPack(ctx, id, page)
	if err != nil {
		return nil, paging.Page{}, err
	}
	return msgs, page.Of(total), nil
}
