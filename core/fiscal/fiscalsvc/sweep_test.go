package fiscalsvc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/ports/fiscalport/fiscalporttest"
)

// The janitor removes the files no document names that are older than the
// bound, and nothing else: an uploaded document's file, a young orphan (an
// upload still running) and files of other modules stay.
func TestSweepOrphans(t *testing.T) {
	docs := fiscalporttest.NewMemory()
	svc, blobs, _, ctx := setup(docs)
	if _, err := svc.Upload(ctx, "7", []fiscal.File{{Name: "a.pdf", Data: pdf}}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, k := range []string{"fiscal/7/old-orphan", "fiscal/8/young-orphan", "labels/1/other"} {
		if err := blobs.Put(ctx, k, strings.NewReader("x"), 1, ""); err != nil {
			t.Fatal(err)
		}
	}
	blobs.Age("fiscal/7/old-orphan", now.Add(-2*time.Hour))
	blobs.Age("labels/1/other", now.Add(-2*time.Hour))
	stored, _ := docs.ByPack(ctx, 7)
	blobs.Age(stored[0].Key, now.Add(-2*time.Hour))

	n, err := svc.SweepOrphans(context.Background(), now.Add(-time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("SweepOrphans = %d, %v; want the one old orphan", n, err)
	}
	if _, err := blobs.Get(ctx, "fiscal/7/old-orphan"); err == nil {
		t.Fatal("the old orphan is still there")
	}
	for _, k := range []string{stored[0].Key, "fiscal/8/young-orphan", "labels/1/other"} {
		if _, err := blobs.Get(ctx, k); err != nil {
			t.Errorf("%s was removed: %v", k, err)
		}
	}
	// Storage down: the sweep fails (and is retried), removing nothing.
	blobs.SetDown(true)
	if _, err := svc.SweepOrphans(context.Background(), now); err == nil {
		t.Fatal("a sweep with the storage down succeeded")
	}
}
