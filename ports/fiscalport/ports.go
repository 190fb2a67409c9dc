// Package fiscalport declares the ports of the fiscal-documents module: what
// HTTP and the workers call (Service, Jobs) and what its use cases need from
// storage (Documents, Packs), plus the jobs' task types and payload.
package fiscalport

import (
	"context"
	"io"
	"strconv"
	"time"

	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/messaging"
)

// Service is what HTTP calls. Every method acts for the caller in ctx and
// takes the pack id as it came in the path, so that its validation is one
// rule of core.
type Service interface {
	// Upload stores the files and returns their public ids (<seller_id>_<uuid>).
	Upload(ctx context.Context, packID string, files []fiscal.File) ([]string, error)
	// List returns the documents the caller may see: a seller its own, a
	// buyer all of the pack.
	List(ctx context.Context, packID string) (int64, []fiscal.Document, error)
	// Download opens one document's file; the caller closes it.
	Download(ctx context.Context, packID, documentID string) (Download, error)
	// Delete removes the caller's documents of the pack and returns their
	// public ids.
	Delete(ctx context.Context, packID string) ([]string, error)
	// RequestBilling sends the buyer a message asking for billing data.
	RequestBilling(ctx context.Context, packID, text string) (messaging.Message, error)
}

// Download is an open document file.
type Download struct {
	io.ReadCloser
	Filename    string
	ContentType string
	Size        int64
}

// Jobs is what the workers call.
type Jobs interface {
	// NotifyBuyer stores the notice in the buyer's feed and e-mails it; a
	// retried notice neither stores nor (once mailed) mails it again.
	NotifyBuyer(ctx context.Context, n Notice) error
	// SweepOrphans removes the stored files under FilePrefix last written
	// before `before` that no document names (an upload whose rows were
	// never written, a delete whose file removal failed) and returns how
	// many it removed.
	SweepOrphans(ctx context.Context, before time.Time) (int, error)
}

// FilePrefix is where the module keeps its files.
const FilePrefix = "fiscal/"

// FileKey is where a document's file is stored: under its pack, beneath
// FilePrefix.
func FileKey(packID int64, documentID string) string {
	return FilePrefix + strconv.FormatInt(packID, 10) + "/" + documentID
}

// OrphanGrace is how old a file without a document must be before the
// janitor removes it: an upload stores its files before its rows, so a
// younger file may belong to an upload still running.
const OrphanGrace = time.Hour

// Sweep is the payload of TaskSweepOrphans: files older than GraceSeconds
// (OrphanGrace when 0) without a document go.
type Sweep struct {
	GraceSeconds int `json:"grace_seconds"`
}

// Task types of the module's jobs.
const (
	TaskDocumentUploaded = "fiscal:document_uploaded"
	TaskBillingRequested = "fiscal:billing_requested"
	// TaskSweepOrphans is the periodic janitor of files without a document.
	TaskSweepOrphans = "fiscal:sweep_orphans"
)

// Notice is the payload of both jobs: something the buyer of a pack is told.
// ID is the outbox message id, which is also the notification id.
type Notice struct {
	ID          string   `json:"id"`
	Kind        string   `json:"kind"`
	PackID      int64    `json:"pack_id"`
	BuyerID     int64    `json:"buyer_id"`
	SellerID    int64    `json:"seller_id"`
	DocumentIDs []string `json:"document_ids,omitempty"`
	MessageID   string   `json:"message_id,omitempty"`
	Text        string   `json:"text,omitempty"`
}

// Documents stores document metadata.
type Documents interface {
	// ByPack returns every document of the pack, oldest first.
	ByPack(ctx context.Context, packID int64) ([]fiscal.Document, error)
	// Add stores documents (in the caller's transaction); a pack that already
	// holds a document of one's type is ErrConflict, and nothing is added.
	Add(ctx context.Context, docs []fiscal.Document) error
	// DeleteBySeller removes the seller's documents of the pack and returns
	// them.
	DeleteBySeller(ctx context.Context, packID, sellerID int64) ([]fiscal.Document, error)
	// EverHad reports whether the pack ever held a document, so that a list
	// of a pack whose documents were removed is empty rather than missing.
	EverHad(ctx context.Context, packID int64) (bool, error)
	// Stored returns which of the file keys a stored document names.
	Stored(ctx context.Context, keys []string) (map[string]bool, error)
}

// Packs reads packs from the sales module's orders.
type Packs interface {
	// Pack returns the pack with that id; ErrPackNotFound when no order
	// belongs to it.
	Pack(ctx context.Context, id int64) (fiscal.Pack, error)
	// WithDocuments returns the pack, as Pack does, and every document of
	// it, as Documents.ByPack does, in one read: uploads, lists and
	// downloads need both (a hot path).
	WithDocuments(ctx context.Context, id int64) (fiscal.Pack, []fiscal.Document, error)
}

// Port sentinels.
var (
	ErrConflict     = kernel.E(kernel.Conflict, "conflict", "fiscalport: document of that type exists")
	ErrPackNotFound = kernel.E(kernel.NotExist, "not_found", "fiscalport: pack not found")
)
