package fiscalsvc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/fiscal/fiscalsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/ports/accountport/accountporttest"
	"github.com/feria/feria/ports/blobport/blobporttest"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/fiscalport/fiscalporttest"
	"github.com/feria/feria/ports/messagingport/messagingporttest"
	"github.com/feria/feria/ports/outboxport/outboxporttest"
	"github.com/feria/feria/ports/webhooksport/webhooksporttest"
)

// packs serves the packs of a map, with their documents from docs.
type packs struct {
	m    map[int64]fiscal.Pack
	docs fiscalport.Documents
}

func (p packs) Pack(_ context.Context, id int64) (fiscal.Pack, error) {
	if x, ok := p.m[id]; ok {
		return x, nil
	}
	return fiscal.Pack{}, fiscalport.ErrPackNotFound
}

func (p packs) WithDocuments(ctx context.Context, id int64) (fiscal.Pack, []fiscal.Document, error) {
	x, err := p.Pack(ctx, id)
	if err != nil {
		return x, nil, err
	}
	docs, err := p.docs.ByPack(ctx, id)
	return x, docs, err
}

// racing hides the documents a concurrent upload stored, so that the rules
// pass and the store's unique index has the last word.
type racing struct{ *fiscalporttest.Memory }

func (racing) ByPack(context.Context, int64) ([]fiscal.Document, error) { return nil, nil }

var pdf = []byte("%PDF-1.4\n%%EOF\n")

// deps are the use cases' ports on docs and fakes: pack 7 (of seller 10
// and buyer 20), files, messages, the feed, a mailer, the outbox and
// nobody's accounts in memory.
func deps(docs fiscalport.Documents) fiscalsvc.Deps {
	return fiscalsvc.Deps{Documents: docs, Packs: packs{map[int64]fiscal.Pack{7: {ID: 7, SiteID: "MLA", SellerID: 10, BuyerID: 20}}, docs},
		Files: &blobporttest.Memory{}, Messages: messagingporttest.NewMemory(), Notifications: &feed{m: map[string]notify.Notification{}},
		Mailer: &mailer{}, Outbox: outboxporttest.NewMemory(), Accounts: accountporttest.NewUsers(), Tx: kerneltest.Tx{},
		Clock: &kerneltest.Clock{At: time.Unix(0, 0).UTC()}, Changes: &webhooksporttest.Changes{}}
}

func setup(docs fiscalport.Documents) (*fiscalsvc.Service, *blobporttest.Memory, *outboxporttest.Memory, context.Context) {
	blobs := &blobporttest.Memory{}
	out := outboxporttest.NewMemory()
	d := deps(docs)
	d.Files, d.Outbox = blobs, out
	return fiscalsvc.New(d), blobs, out, kernel.WithCaller(context.Background(), kernel.Caller{UserID: 10, SiteID: "MLA"})
}

func TestUploadStorageDown(t *testing.T) {
	docs := fiscalporttest.NewMemory()
	svc, blobs, out, ctx := setup(docs)
	blobs.SetDown(true)
	_, err := svc.Upload(ctx, "7", []fiscal.File{{Name: "a.pdf", Data: pdf}})
	if !errors.Is(err, fiscal.ErrStorage) || kernel.KindOf(err) != kernel.Unavailable {
		t.Fatalf("err %v", err)
	}
	if d, _ := docs.ByPack(ctx, 7); len(d) != 0 || len(out.Messages()) != 0 {
		t.Fatalf("left %v %v", d, out.Messages())
	}
	blobs.SetDown(false)
	ids, err := svc.Upload(ctx, "7", []fiscal.File{{Name: "a.pdf", Data: pdf}})
	if err != nil || len(ids) != 1 || blobs.Len() != 1 || len(out.Messages()) != 1 || out.Messages()[0].Type != fiscalport.TaskDocumentUploaded {
		t.Fatalf("after: %v %v blobs=%d out=%v", ids, err, blobs.Len(), out.Messages())
	}
}

func TestUploadLosesRace(t *testing.T) {
	docs := fiscalporttest.NewMemory()
	if err := docs.Add(context.Background(), []fiscal.Document{{ID: "x", PackID: 7, SellerID: 10, FileType: fiscal.PDF}}); err != nil {
		t.Fatal(err)
	}
	svc, blobs, out, ctx := setup(racing{docs})
	_, err := svc.Upload(ctx, "7", []fiscal.File{{Name: "a.pdf", Data: pdf}})
	if !errors.Is(err, fiscal.ErrTypePresent) {
		t.Fatalf("err %v", err)
	}
	if blobs.Len() != 0 || len(out.Messages()) != 0 {
		t.Fatalf("the loser's file or message was kept: blobs=%d out=%v", blobs.Len(), out.Messages())
	}
}

// full is a store that refuses the documents with another conflict than
// "a document of that type exists".
type full struct{ racing }

func (full) Add(context.Context, []fiscal.Document) error { return fiscal.ErrPackFull }

// Only the store's ErrConflict means "a concurrent upload took that type":
// another conflict (same Kind and Code) passes through unchanged.
func TestUploadOtherConflict(t *testing.T) {
	svc, blobs, _, ctx := setup(full{racing{fiscalporttest.NewMemory()}})
	_, err := svc.Upload(ctx, "7", []fiscal.File{{Name: "a.pdf", Data: pdf}})
	if !errors.Is(err, fiscal.ErrPackFull) || errors.Is(err, fiscal.ErrTypePresent) || kernel.MessageOf(err) != fiscal.ErrPackFull.Message {
		t.Fatalf("err %v, want the pack-full conflict as it came", err)
	}
	if blobs.Len() != 0 {
		t.Fatalf("the refused file was kept: %d", blobs.Len())
	}
}

// A delete removes the rows in one transaction, then the files: a file
// whose removal fails stays behind unseen (no row names it), and the
// delete still answers what it removed.
func TestDeleteRowsThenFiles(t *testing.T) {
	docs := fiscalporttest.NewMemory()
	svc, blobs, _, ctx := setup(docs)
	ids, err := svc.Upload(ctx, "7", []fiscal.File{{Name: "a.pdf", Data: pdf}})
	if err != nil || len(ids) != 1 {
		t.Fatalf("upload: %v %v", ids, err)
	}
	blobs.SetDown(true)
	gone, err := svc.Delete(ctx, "7")
	blobs.SetDown(false)
	if err != nil || len(gone) != 1 || gone[0] != ids[0] {
		t.Fatalf("delete with the file storage down: %v %v, want %v", gone, err, ids)
	}
	if d, _ := docs.ByPack(ctx, 7); len(d) != 0 {
		t.Errorf("rows left: %v", d)
	}
	if blobs.Len() != 1 {
		t.Errorf("%d files, want the one whose removal failed", blobs.Len())
	}
	// With the storage up, the file goes with its row.
	if _, err := svc.Upload(ctx, "7", []fiscal.File{{Name: "a.pdf", Data: pdf}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Delete(ctx, "7"); err != nil || blobs.Len() != 1 {
		t.Errorf("delete: %v, %d files, want only the earlier one left", err, blobs.Len())
	}
}
