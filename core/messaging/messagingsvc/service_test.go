package messagingsvc_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/messaging/messagingsvc"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/blobport/blobporttest"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/messagingport"
	"github.com/feria/feria/ports/messagingport/messagingporttest"
	"github.com/feria/feria/ports/webhooksport/webhooksporttest"
)

// packs knows pack 7: seller 10, buyer 20.
type packs struct{}

func (packs) Pack(_ context.Context, id int64) (fiscal.Pack, error) {
	if id != 7 {
		return fiscal.Pack{}, fiscalport.ErrPackNotFound
	}
	return fiscal.Pack{ID: 7, SiteID: "MLA", SellerID: 10, BuyerID: 20}, nil
}

func (p packs) WithDocuments(ctx context.Context, id int64) (fiscal.Pack, []fiscal.Document, error) {
	pk, err := p.Pack(ctx, id)
	return pk, nil, err
}

type world struct {
	svc     *messagingsvc.Service
	store   *messagingporttest.Memory
	files   *blobporttest.Memory
	changes *webhooksporttest.Changes
}

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func newWorld() world {
	w := world{store: messagingporttest.NewMemory(), files: &blobporttest.Memory{}, changes: &webhooksporttest.Changes{}}
	w.svc = messagingsvc.New(messagingsvc.Deps{Messages: w.store, Attachments: w.store, Packs: packs{}, Files: w.files,
		Changes: w.changes, Tx: kerneltest.Tx{}, Clock: &kerneltest.Clock{At: t0}})
	return w
}

func as(user int64) context.Context {
	return kernel.WithCaller(context.Background(), kernel.Caller{UserID: user, SiteID: "MLA"})
}

// A send stores the message with its file, tells the messages topic for
// the pack's seller, and the file is then the recipient's to read too.
func TestSendWithAFile(t *testing.T) {
	w := newWorld()
	a, err := w.svc.Upload(as(20), "foto.png", []byte("\x89PNG\r\n\x1a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Download(as(10), a.ID); !errors.Is(err, messaging.ErrNotYourAttachment) {
		t.Fatalf("the seller reads the buyer's unsent file: %v", err)
	}
	conv, err := w.svc.Send(as(20), messagingport.Send{PackID: "7", FromUserID: 20, ToUserID: 10, Text: "Llegó roto", Attachments: []string{a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	m := conv.Messages[0]
	if m.FromUserID != 20 || m.ToUserID != 10 || m.Kind != messaging.KindPostSale || len(m.Attachments) != 1 || conv.FirstID != m.ID {
		t.Fatalf("sent: %+v", conv)
	}
	if told := w.changes.Told(); len(told) != 1 || told[0] != (webhooks.Change{Topic: webhooks.TopicMessages, Resource: "/messages/" + m.ID, UserID: 10}) {
		t.Fatalf("told: %+v", told)
	}
	d, err := w.svc.Download(as(10), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(d)
	d.Close()
	if string(b) != "\x89PNG\r\n\x1a\n" || d.Attachment.MessageID != m.ID {
		t.Fatalf("download: %q %+v", b, d.Attachment)
	}
	// The recipient's read dates it; the sender's does not.
	if _, err := w.svc.Messages(as(20), "7", 10, paging.Default(), true); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.store.Message(context.Background(), m.ID); got.DateRead != nil {
		t.Fatalf("read by its sender: %+v", got)
	}
	if conv, err := w.svc.Messages(as(10), "7", 10, paging.Default(), true); err != nil || conv.Messages[0].DateRead == nil || !conv.Messages[0].DateRead.Equal(t0) {
		t.Fatalf("read by its recipient: %+v %v", conv, err)
	}
}

// A storage outage refuses the upload (503) and keeps nothing.
func TestUploadStorageDown(t *testing.T) {
	w := newWorld()
	w.files.SetDown(true)
	if _, err := w.svc.Upload(as(10), "nota.txt", []byte("hola")); !errors.Is(err, blobport.ErrUnavailable) {
		t.Fatalf("upload with the storage down: %v", err)
	}
	if w.files.Len() != 0 {
		t.Fatal("a file was kept")
	}
}

// The retention job removes the files nobody sent, once old enough, row
// and file; a sent file stays.
func TestPruneUnsent(t *testing.T) {
	w := newWorld()
	sent, err := w.svc.Upload(as(10), "a.txt", []byte("enviado"))
	if err != nil {
		t.Fatal(err)
	}
	unsent, err := w.svc.Upload(as(10), "b.txt", []byte("olvidado"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Send(as(10), messagingport.Send{PackID: "7", FromUserID: 10, ToUserID: 20, Text: "hola", Attachments: []string{sent.ID}}); err != nil {
		t.Fatal(err)
	}
	if n, err := w.svc.Prune(context.Background(), t0); err != nil || n != 0 {
		t.Fatalf("Prune before the uploads = %d %v", n, err)
	}
	if n, err := w.svc.Prune(context.Background(), t0.Add(messaging.UnsentKeep)); err != nil || n != 1 {
		t.Fatalf("Prune = %d %v", n, err)
	}
	if _, err := w.svc.Download(as(10), unsent.ID); !errors.Is(err, messaging.ErrAttachmentNotFound) {
		t.Fatalf("a pruned attachment: %v", err)
	}
	if w.files.Len() != 1 {
		t.Fatalf("%d files kept, want the sent one", w.files.Len())
	}
	if d, err := w.svc.Download(as(20), sent.ID); err != nil {
		t.Fatalf("the sent file: %v", err)
	} else {
		d.Close()
	}
}
