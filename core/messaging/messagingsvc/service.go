// Package messagingsvc holds the use cases of the messaging module: reading
// a pack's after-sale conversation, marking it read, sending a message of
// its seller or buyer, and the files they attach. Other modules write the
// messages they send themselves (the fiscal module's billing-data request).
package messagingsvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/messagingport"
	"github.com/feria/feria/ports/webhooksport"
)

// Deps is what the service needs.
type Deps struct {
	Messages    messagingport.Messages
	Attachments messagingport.Attachments
	// Packs tells who the seller and buyer of a pack are.
	Packs fiscalport.Packs
	// Files keeps the attachments' files.
	Files blobport.Store
	// Changes hears of every message sent (the messages topic).
	Changes webhooksport.Changes
	Tx      kernel.Tx
	Clock   kernel.Clock
}

// Service implements messagingport.Service.
type Service struct {
	messages    messagingport.Messages
	attachments messagingport.Attachments
	packs       fiscalport.Packs
	files       blobport.Store
	changes     webhooksport.Changes
	tx          kernel.Tx
	clock       kernel.Clock
}

var _ messagingport.Service = (*Service)(nil)

// New returns the service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{messages: d.Messages, attachments: d.Attachments, packs: d.Packs, files: d.Files,
		changes: d.Changes, tx: d.Tx, clock: d.Clock}
}

// Messages pages through a pack's conversation, for its seller and buyer.
// A pack has one conversation, with its seller: another seller's is not
// found.
func (s *Service) Messages(ctx context.Context, packID string, sellerID int64, page paging.Request, markRead bool) (messagingport.Conversation, error) {
	p, caller, err := s.pack(ctx, packID, sellerID)
	if err != nil {
		return messagingport.Conversation{}, err
	}
	if markRead {
		if err := s.messages.MarkRead(ctx, p.ID, caller.UserID, s.clock.Now()); err != nil {
			return messagingport.Conversation{}, err
		}
	}
	msgs, total, err := s.messages.ByPack(ctx, p.ID, page)
	if err != nil {
		return messagingport.Conversation{}, err
	}
	return messagingport.Conversation{PackID: p.ID, SiteID: p.SiteID, SellerID: p.SellerID, Messages: msgs, Page: page.Of(total)}, nil
}

// pack resolves a conversation's pack for the caller, one of its parties.
// A pack has one conversation, with its seller: another seller's is not
// found.
func (s *Service) pack(ctx context.Context, packID string, sellerID int64) (fiscal.Pack, kernel.Caller, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return fiscal.Pack{}, caller, account.ErrTokenNotGranted
	}
	id, err := fiscal.ParsePackID(packID)
	if err != nil {
		return fiscal.Pack{}, caller, err
	}
	p, err := s.packs.Pack(ctx, id)
	if errors.Is(err, fiscalport.ErrPackNotFound) {
		return fiscal.Pack{}, caller, kernel.E(kernel.NotExist, "not_found", fmt.Sprintf("pack %d not found", id))
	}
	if err != nil {
		return fiscal.Pack{}, caller, err
	}
	if p.RoleOf(caller.UserID) == fiscal.Stranger {
		return fiscal.Pack{}, caller, kernel.E(kernel.Permission, "forbidden", "caller is neither the seller nor the buyer of the pack")
	}
	if sellerID != 0 && sellerID != p.SellerID {
		return fiscal.Pack{}, caller, kernel.E(kernel.NotExist, "not_found", fmt.Sprintf("pack %d has no conversation with seller %d", id, sellerID))
	}
	return p, caller, nil
}

// Send stores a message of one party of the pack to the other, with the
// files the sender uploaded for it, and tells the messages topic, in one
// transaction. The checks run in the order a client fixes them: who may
// write, who the message is from and to, its text, its files.
func (s *Service) Send(ctx context.Context, in messagingport.Send) (messagingport.Conversation, error) {
	p, caller, err := s.pack(ctx, in.PackID, in.SellerID)
	if err != nil {
		return messagingport.Conversation{}, err
	}
	if in.FromUserID != caller.UserID {
		return messagingport.Conversation{}, messaging.ErrSenderNotCaller.
			WithCause("from.user_id", fmt.Sprintf("from.user_id is %d; the caller is %d", in.FromUserID, caller.UserID))
	}
	other := p.BuyerID
	if caller.UserID == p.BuyerID {
		other = p.SellerID
	}
	if in.ToUserID != other {
		return messagingport.Conversation{}, messaging.ErrRecipientNotCounter.Withf("to.user_id must be the other party of the pack: %d", other).
			WithCause("to.user_id", fmt.Sprintf("to.user_id is %d", in.ToUserID))
	}
	if err := messaging.CheckText(in.Text, messaging.MaxMessageText); err != nil {
		return messagingport.Conversation{}, err
	}
	if len(in.Attachments) > messaging.MaxMessageAttachments {
		return messagingport.Conversation{}, messaging.ErrTooManyAttachments.
			WithCause("attachments", fmt.Sprintf("%d attachments sent", len(in.Attachments)))
	}
	now := s.clock.Now()
	m := messaging.Message{ID: strings.ReplaceAll(kernel.NewUUID(), "-", ""), PackID: p.ID, FromUserID: caller.UserID, ToUserID: other,
		Text: in.Text, Kind: messaging.KindPostSale, DateCreated: now}
	seen := map[string]bool{}
	for _, id := range in.Attachments {
		a, err := s.attachments.Attachment(ctx, id)
		switch {
		case errors.Is(err, messagingport.ErrNotFound) || err == nil && a.UserID != caller.UserID:
			return messagingport.Conversation{}, messaging.ErrAttachmentUnusable.Withf("attachment %s not found", id).
				WithCause("attachments", "an attachment is sent by the user who uploaded it")
		case err != nil:
			return messagingport.Conversation{}, err
		case a.MessageID != "" || seen[id]:
			return messagingport.Conversation{}, messaging.ErrAttachmentUnusable.Withf("attachment %s was sent already", id).
				WithCause("attachments", "an attachment is sent once")
		}
		seen[id] = true
		a.MessageID = m.ID
		m.Attachments = append(m.Attachments, a)
	}
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if err := s.messages.Add(ctx, m); err != nil {
			return err
		}
		if len(in.Attachments) > 0 {
			n, err := s.attachments.Attach(ctx, m.ID, caller.UserID, in.Attachments)
			if err != nil {
				return err
			}
			if n != len(in.Attachments) {
				// Another send took one of them since it was read.
				return messaging.ErrAttachmentUnusable.With("an attachment was sent already").
					WithCause("attachments", "an attachment is sent once")
			}
		}
		return s.changes.Changed(ctx, webhooks.Change{Topic: webhooks.TopicMessages, Resource: "/messages/" + m.ID, UserID: p.SellerID})
	})
	if err != nil {
		return messagingport.Conversation{}, err
	}
	return s.single(ctx, p, m)
}

// single is the conversation of pack p holding only m, with the id of the
// pack's first message.
func (s *Service) single(ctx context.Context, p fiscal.Pack, m messaging.Message) (messagingport.Conversation, error) {
	first, _, err := s.messages.ByPack(ctx, p.ID, paging.Request{Limit: 1})
	if err != nil {
		return messagingport.Conversation{}, err
	}
	conv := messagingport.Conversation{PackID: p.ID, SiteID: p.SiteID, SellerID: p.SellerID, Messages: []messaging.Message{m}}
	if len(first) == 1 {
		conv.FirstID = first[0].ID
	}
	return conv, nil
}

// Upload checks a file against the attachment rules and keeps it for the
// caller: the file first, then its row, so that a row always has its file
// (a file whose row failed is removed, or left unseen).
func (s *Service) Upload(ctx context.Context, filename string, data []byte) (messaging.Attachment, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return messaging.Attachment{}, account.ErrTokenNotGranted
	}
	ext, ctype, err := messaging.CheckAttachment(filename, data)
	if err != nil {
		return messaging.Attachment{}, err
	}
	a := messaging.Attachment{ID: fmt.Sprintf("%d_%s.%s", caller.UserID, kernel.NewUUID(), ext), UserID: caller.UserID,
		Filename: filename, ContentType: ctype, Size: int64(len(data)), DateCreated: s.clock.Now()}
	if err := s.files.Put(ctx, a.Key(), bytes.NewReader(data), a.Size, ctype); err != nil {
		return messaging.Attachment{}, err
	}
	if err := s.attachments.AddAttachment(ctx, a); err != nil {
		_ = s.files.Delete(context.WithoutCancel(ctx), a.Key())
		return messaging.Attachment{}, err
	}
	return a, nil
}

// Download opens an attachment for its uploader while no message carries
// it, then for that message's sender and recipient. An unknown attachment
// is 404 before anybody's permission is read.
func (s *Service) Download(ctx context.Context, id string) (messagingport.Download, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return messagingport.Download{}, account.ErrTokenNotGranted
	}
	a, err := s.attachments.Attachment(ctx, id)
	if errors.Is(err, messagingport.ErrNotFound) {
		return messagingport.Download{}, messaging.ErrAttachmentNotFound.Wrap(err)
	}
	if err != nil {
		return messagingport.Download{}, err
	}
	allowed := a.UserID == caller.UserID
	if a.MessageID != "" {
		m, err := s.messages.Message(ctx, a.MessageID)
		if err != nil {
			return messagingport.Download{}, err
		}
		allowed = caller.UserID == m.FromUserID || caller.UserID == m.ToUserID
	}
	if !allowed {
		return messagingport.Download{}, messaging.ErrNotYourAttachment
	}
	obj, err := s.files.Get(ctx, a.Key())
	if errors.Is(err, blobport.ErrNotFound) {
		return messagingport.Download{}, messaging.ErrAttachmentFileGone.Wrap(err)
	}
	if err != nil {
		return messagingport.Download{}, err
	}
	return messagingport.Download{ReadCloser: obj.ReadCloser, Attachment: a}, nil
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
	return s.single(ctx, p, m)
}

// pruneBatch is how many unsent attachments one pass of Prune lists.
const pruneBatch = 500

// Prune implements outboxport.Pruner for the retention job: it removes the
// attachments no message carried before before, each row first (unless a
// send takes it meanwhile), then its file. A file whose delete fails is
// left unseen: no row names it.
func (s *Service) Prune(ctx context.Context, before time.Time) (int, error) {
	n := 0
	for {
		old, err := s.attachments.Unsent(ctx, before, pruneBatch)
		if err != nil {
			return n, err
		}
		for _, a := range old {
			gone, err := s.attachments.DeleteUnsent(ctx, a.ID)
			if err != nil {
				return n, err
			}
			if gone {
				n++
				_ = s.files.Delete(ctx, a.Key())
			}
		}
		if len(old) < pruneBatch {
			return n, nil
		}
	}
}
