// Package fiscalsvc holds the use cases of fiscal documents: upload, list,
// download, delete, the billing-data request to the buyer, and the job that
// tells the buyer (feed and e-mail).
package fiscalsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/messagingport"
	"github.com/feria/feria/ports/notifyport"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/ports/webhooksport"
)

// Deps are the ports the use cases use.
type Deps struct {
	Documents     fiscalport.Documents
	Packs         fiscalport.Packs
	Files         blobport.Store
	Messages      messagingport.Messages
	Notifications notifyport.Notifications
	Mailer        notifyport.Mailer
	Outbox        outboxport.Outbox
	Accounts      accountport.Service
	Tx            kernel.Tx
	Clock         kernel.Clock
	// Changes are the notifications to applications, told of every
	// billing message (topic messages, for the seller) in its transaction.
	Changes webhooksport.Changes
	// Kick is called after a commit that wrote outbox messages, so that
	// they are relayed now rather than at the relay's next tick. Nil: they
	// wait for the tick.
	Kick func() `wire:"optional"`
}

// Service implements fiscalport.Service and fiscalport.Jobs.
type Service struct{ d Deps }

var (
	_ fiscalport.Service = (*Service)(nil)
	_ fiscalport.Jobs    = (*Service)(nil)
)

// New returns the service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	if d.Kick == nil {
		d.Kick = func() {}
	}
	return &Service{d: d}
}

// pack resolves the path's pack id and checks the caller's access.
func (s *Service) pack(ctx context.Context, raw string, act fiscal.Action) (fiscal.Pack, kernel.Caller, fiscal.Role, error) {
	return s.resolve(ctx, raw, act, nil)
}

// packWithDocs is pack that also reads every document of the pack, in the
// same read.
func (s *Service) packWithDocs(ctx context.Context, raw string, act fiscal.Action) (fiscal.Pack, []fiscal.Document, kernel.Caller, fiscal.Role, error) {
	var docs []fiscal.Document
	p, caller, role, err := s.resolve(ctx, raw, act, &docs)
	return p, docs, caller, role, err
}

// resolve is pack, reading the pack's documents into docs when docs is
// not nil.
func (s *Service) resolve(ctx context.Context, raw string, act fiscal.Action, docs *[]fiscal.Document) (fiscal.Pack, kernel.Caller, fiscal.Role, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return fiscal.Pack{}, caller, 0, account.ErrTokenNotGranted
	}
	id, err := fiscal.ParsePackID(raw)
	if err != nil {
		return fiscal.Pack{}, caller, 0, err
	}
	// The API is closed to Brazilian callers whatever the pack.
	if fiscal.UnavailableSites[caller.SiteID] {
		return fiscal.Pack{}, caller, 0, fiscal.SiteUnavailable(caller.SiteID)
	}
	var p fiscal.Pack
	if docs != nil {
		p, *docs, err = s.d.Packs.WithDocuments(ctx, id)
	} else {
		p, err = s.d.Packs.Pack(ctx, id)
	}
	if errors.Is(err, fiscalport.ErrPackNotFound) {
		return p, caller, 0, fiscal.ErrNotAPack.WithCause("pack_id", fmt.Sprintf("no order is part of pack %d", id))
	}
	if err != nil {
		return p, caller, 0, err
	}
	role, err := fiscal.CheckAccess(p, caller, act)
	return p, caller, role, err
}

// Upload applies the rules, stores the files, then records them with the
// buyer's notice in one transaction. A document row exists only once its
// file is stored; a failed store leaves no row.
func (s *Service) Upload(ctx context.Context, packID string, files []fiscal.File) ([]string, error) {
	p, existing, caller, _, err := s.packWithDocs(ctx, packID, fiscal.ActUpload)
	if err != nil {
		return nil, err
	}
	checked, err := fiscal.CheckUpload(p.ID, caller.UserID, existing, files)
	if err != nil {
		return nil, err
	}
	now := s.d.Clock.Now()
	docs := make([]fiscal.Document, 0, len(checked))
	cleanup := func() {
		// Best effort, detached from a possibly cancelled request: a file
		// left behind is invisible (no row names it) and only costs space.
		for _, d := range docs {
			_ = s.d.Files.Delete(context.WithoutCancel(ctx), d.Key)
		}
	}
	for _, c := range checked {
		id := kernel.NewUUID()
		d := fiscal.Document{ID: id, PackID: p.ID, SellerID: caller.UserID, FileType: c.Type,
			Filename: c.Name, ContentType: c.Type.ContentType(), Size: int64(len(c.Data)),
			Key: fiscalport.FileKey(p.ID, id), DateCreated: now}
		if err := s.d.Files.Put(ctx, d.Key, bytes.NewReader(c.Data), d.Size, d.ContentType); err != nil {
			cleanup()
			return nil, fiscal.ErrStorage.Wrap(err)
		}
		docs = append(docs, d)
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.PublicID()
	}
	notice := fiscalport.Notice{ID: kernel.NewUUID(), Kind: notify.KindFiscalDocument, PackID: p.ID,
		BuyerID: p.BuyerID, SellerID: p.SellerID, DocumentIDs: ids}
	err = s.d.Tx.RunInTx(ctx, func(ctx context.Context) error {
		if err := s.d.Documents.Add(ctx, docs); err != nil {
			return err
		}
		return s.enqueue(ctx, fiscalport.TaskDocumentUploaded, notice, now)
	})
	if err != nil {
		cleanup()
		if errors.Is(err, fiscalport.ErrConflict) {
			// A concurrent upload won the race for that type: the rules,
			// applied again to what the pack now holds, say which.
			if existing, rerr := s.d.Documents.ByPack(ctx, p.ID); rerr == nil {
				if _, cerr := fiscal.CheckUpload(p.ID, caller.UserID, existing, files); cerr != nil {
					return nil, cerr
				}
			}
			return nil, fiscal.ErrTypePresent.Wrap(err)
		}
		return nil, err
	}
	s.d.Kick()
	return ids, nil
}

func (s *Service) enqueue(ctx context.Context, taskType string, n fiscalport.Notice, now time.Time) error {
	payload, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return s.d.Outbox.Add(ctx, outboxport.Message{ID: n.ID, Type: taskType, Payload: payload, CreatedAt: now})
}

// List returns what the caller may see; a pack that never held a document
// is 404, one whose documents were removed an empty list, one holding only
// documents of another seller 404 too.
func (s *Service) List(ctx context.Context, packID string) (int64, []fiscal.Document, error) {
	p, all, caller, role, err := s.packWithDocs(ctx, packID, fiscal.ActList)
	if err != nil {
		return 0, nil, err
	}
	visible := visibleTo(all, caller, role)
	if len(visible) == 0 && len(all) > 0 {
		// Documents of another seller of the pack (it changed hands):
		// the contract's "caller has no documents in the pack".
		return 0, nil, fiscal.NoCallerDocuments(p.ID, caller.UserID)
	}
	if len(visible) == 0 {
		had, err := s.d.Documents.EverHad(ctx, p.ID)
		if err != nil {
			return 0, nil, err
		}
		if !had {
			return 0, nil, fiscal.NoDocuments(p.ID)
		}
	}
	return p.ID, visible, nil
}

// visibleTo is the contract's listing rule: a seller sees the documents it
// loaded, a buyer all of the pack.
func visibleTo(all []fiscal.Document, caller kernel.Caller, role fiscal.Role) []fiscal.Document {
	if role == fiscal.Buyer {
		return all
	}
	out := []fiscal.Document{}
	for _, d := range all {
		if d.SellerID == caller.UserID {
			out = append(out, d)
		}
	}
	return out
}

// Download opens one document the caller may see.
func (s *Service) Download(ctx context.Context, packID, documentID string) (fiscalport.Download, error) {
	p, all, caller, role, err := s.packWithDocs(ctx, packID, fiscal.ActDownload)
	if errors.Is(err, fiscal.ErrForbidden) {
		return fiscalport.Download{}, fiscal.DocumentForbidden(caller.UserID, documentID)
	}
	if err != nil {
		return fiscalport.Download{}, err
	}
	want := fiscal.SplitPublicID(documentID)
	for _, d := range visibleTo(all, caller, role) {
		if d.ID != want || (documentID != want && documentID != d.PublicID()) {
			continue
		}
		obj, err := s.d.Files.Get(ctx, d.Key)
		if err != nil {
			return fiscalport.Download{}, fiscal.FileNotRetrieved(documentID).Wrap(err)
		}
		return fiscalport.Download{ReadCloser: obj.ReadCloser, Filename: d.Filename, ContentType: d.ContentType, Size: obj.Size}, nil
	}
	return fiscalport.Download{}, fiscal.DocumentNotFound(documentID).
		WithCause("fiscal_document_id", fmt.Sprintf("pack %d has no fiscal document %s the caller may see", p.ID, documentID))
}

// Delete removes the caller's documents: the rows in one transaction (so no
// one sees half of them), then the files. A file whose delete fails is left
// behind unseen.
func (s *Service) Delete(ctx context.Context, packID string) ([]string, error) {
	p, caller, _, err := s.pack(ctx, packID, fiscal.ActDelete)
	if err != nil {
		return nil, err
	}
	var removed []fiscal.Document
	err = s.d.Tx.RunInTx(ctx, func(ctx context.Context) error {
		var err error
		removed, err = s.d.Documents.DeleteBySeller(ctx, p.ID, caller.UserID)
		if err != nil || len(removed) > 0 {
			return err
		}
		// Nothing of the caller's, whether or not the pack holds another
		// seller's: the marketplace's one answer for a delete with nothing
		// to delete.
		return fiscal.NothingToDelete(p.ID)
	})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(removed))
	for i, d := range removed {
		ids[i] = d.PublicID()
		_ = s.d.Files.Delete(context.WithoutCancel(ctx), d.Key)
	}
	return ids, nil
}

// RequestBilling stores a message asking the buyer for billing data in the
// pack's conversation, and queues its delivery to the buyer.
func (s *Service) RequestBilling(ctx context.Context, packID, text string) (messaging.Message, error) {
	p, caller, _, err := s.pack(ctx, packID, fiscal.ActBilling)
	if err != nil {
		return messaging.Message{}, err
	}
	u, err := s.d.Accounts.User(ctx, caller.UserID)
	if err != nil {
		return messaging.Message{}, err
	}
	if !u.MessagingAllowed {
		return messaging.Message{}, messaging.ErrNoMessaging
	}
	if err := messaging.CheckText(text, messaging.MaxBillingText); err != nil {
		var e *kernel.Error
		if errors.Is(err, messaging.ErrRuleBroken) && errors.As(err, &e) {
			return messaging.Message{}, messaging.ErrBillingRuleBroken.WithCause(e.Causes[0].Code, e.Causes[0].Message)
		}
		return messaging.Message{}, err
	}
	now := s.d.Clock.Now()
	m := messaging.Message{ID: kernel.NewUUID(), PackID: p.ID, FromUserID: caller.UserID, ToUserID: p.BuyerID,
		Text: text, Kind: notify.KindBillingRequest, DateCreated: now}
	notice := fiscalport.Notice{ID: kernel.NewUUID(), Kind: notify.KindBillingRequest, PackID: p.ID,
		BuyerID: p.BuyerID, SellerID: p.SellerID, MessageID: m.ID, Text: text}
	err = s.d.Tx.RunInTx(ctx, func(ctx context.Context) error {
		if err := s.d.Messages.Add(ctx, m); err != nil {
			return err
		}
		if err := s.d.Changes.Changed(ctx, webhooks.Change{Topic: webhooks.TopicMessages, Resource: "/messages/" + m.ID, UserID: p.SellerID}); err != nil {
			return err
		}
		return s.enqueue(ctx, fiscalport.TaskBillingRequested, notice, now)
	})
	if err != nil {
		return messaging.Message{}, err
	}
	s.d.Kick()
	return m, nil
}

// NotifyBuyer stores the notice in the buyer's feed, then e-mails it unless
// it was mailed already. A crash after the mail left but before it was
// marked sends it again on retry (at least once, with the same Message-ID):
// losing an invoice notice is worse than a duplicate a mail client can fold.
func (s *Service) NotifyBuyer(ctx context.Context, n fiscalport.Notice) error {
	if n.ID == "" || n.BuyerID <= 0 || n.PackID <= 0 {
		return fmt.Errorf("fiscalsvc: notice lacks id, buyer or pack: %+v", n)
	}
	note := notify.Notification{ID: n.ID, UserID: n.BuyerID, Kind: n.Kind, PackID: n.PackID, DateCreated: s.d.Clock.Now()}
	switch n.Kind {
	case notify.KindFiscalDocument:
		note.Title = "Your invoice is available"
		note.Text = fmt.Sprintf("The seller uploaded the fiscal documents of your purchase (pack %d): %s.", n.PackID, strings.Join(n.DocumentIDs, ", "))
	case notify.KindBillingRequest:
		note.Title = "The seller needs your billing data"
		note.Text = n.Text
	default:
		return fmt.Errorf("fiscalsvc: unknown notice kind %q", n.Kind)
	}
	stored, _, err := s.d.Notifications.Add(ctx, note)
	if err != nil {
		return err
	}
	if stored.MailedAt != nil {
		return nil
	}
	if err := s.d.Mailer.Send(ctx, notify.MailOf(stored)); err != nil {
		return err
	}
	return s.d.Notifications.MarkMailed(ctx, stored.ID, s.d.Clock.Now())
}
