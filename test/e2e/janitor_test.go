package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/test/apptest"
)

// fiscalKeys lists the fiscal module's stored files.
func fiscalKeys(t *testing.T, blobs blobport.Store) []string {
	t.Helper()
	var keys []string
	if err := blobs.List(context.Background(), fiscalport.FilePrefix, func(in blobport.Info) error {
		keys = append(keys, in.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// Files stored by an upload whose rows were never written (storage or
// database gone mid-upload) must not stay for good.
// The periodic janitor (fiscal:sweep_orphans, every hour in the worker
// processes) removes files no document names once they are older than the
// grace period, on both storage back ends; the documents' files stay.
func TestOrphanJanitor(t *testing.T) {
	t.Parallel() // instances of its own: not before the tests that wait
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := apptest.New(t, be)
		loadFiscalWorld(t, a.Instance)
		if st, b := uploadPDF(t, a.Instance, 1001, "tok-101"); st != 201 {
			t.Fatalf("upload: %d %s", st, b)
		}
		blobs := a.Deps.Blobs
		kept := fiscalKeys(t, blobs)
		if len(kept) != 1 {
			t.Fatalf("files after one upload: %v", kept)
		}
		orphan := fiscalport.FilePrefix + "1001/orphan-of-a-failed-upload"
		if err := blobs.Put(context.Background(), orphan, strings.NewReader("%PDF-1.4"), 8, "application/pdf"); err != nil {
			t.Fatal(err)
		}
		sweep := func(grace int) {
			t.Helper()
			payload, _ := json.Marshal(fiscalport.Sweep{GraceSeconds: grace})
			if err := a.ProcessTask(context.Background(), asynq.NewTask(fiscalport.TaskSweepOrphans, payload)); err != nil {
				t.Fatalf("sweep: %v", err)
			}
		}
		sweep(3600) // the default grace: a file of a minute ago may be an upload still running
		if got := fiscalKeys(t, blobs); len(got) != 2 {
			t.Fatalf("a young orphan was swept: %v", got)
		}
		sweep(1)
		if got := fiscalKeys(t, blobs); len(got) == 2 {
			// Modification times have whole seconds on S3.
			waitSecond()
			sweep(1)
		}
		if got := fiscalKeys(t, blobs); len(got) != 1 || got[0] != kept[0] {
			t.Fatalf("after the sweep: %v; want only the document's file %s", got, kept[0])
		}
		r := a.Do("GET", "/packs/1001/fiscal_documents?access_token=tok-201", nil)
		r.HasStatus(t, 200)
		if !strings.Contains(string(r.Body), "factura.pdf") {
			t.Fatalf("the document after the sweep: %d %s", r.Status, r.Body)
		}
	})
}

func waitSecond() { <-time.After(1100 * time.Millisecond) }
