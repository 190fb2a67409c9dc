package fiscaldb_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/fiscaldb"
	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/ports/fiscalport"
	"github.com/feria/feria/ports/fiscalport/fiscalporttest"
	"github.com/feria/feria/test/testenv"
)

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Run("Documents", func(t *testing.T) {
				fiscalporttest.TestDocuments(t, func(t testing.TB) fiscalport.Documents { return fiscaldb.New(open(t)) })
			})
			t.Run("Packs", func(t *testing.T) { testPacks(t, open(t)) })
			t.Run("RollbackLeavesNothing", func(t *testing.T) {
				db := open(t)
				s := fiscaldb.New(db)
				ctx := context.Background()
				boom := errors.New("boom")
				err := sqlstore.Tx{DB: db}.RunInTx(ctx, func(ctx context.Context) error {
					if err := s.Add(ctx, []fiscal.Document{{ID: "a", PackID: 1, SellerID: 1, FileType: fiscal.PDF, DateCreated: time.Now()}}); err != nil {
						return err
					}
					return boom
				})
				if !errors.Is(err, boom) {
					t.Fatal(err)
				}
				if got, _ := s.ByPack(ctx, 1); len(got) != 0 {
					t.Fatalf("rolled back rows visible: %+v", got)
				}
				if had, _ := s.EverHad(ctx, 1); had {
					t.Fatal("rolled back marker visible")
				}
			})
		})
	}
}

// testPacks writes the sales module's rows directly: the orders table belongs to
// another module, whose sandbox collection is the usual way in.
func testPacks(t *testing.T, db *bun.DB) {
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now().UTC()
	for _, id := range []int64{10, 20} {
		exec(`INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created) VALUES (?, ?, 'MLC', 'normal', '[]', TRUE, ?)`, id, "U", now)
	}
	exec(`INSERT INTO orders (id, site_id, seller_id, buyer_id, pack_id, pack, status, items, shipping, has_claim, date_created)
		VALUES (5, 'MLC', 10, 20, 700, 700, 'paid', '[]', '{"id": 1, "logistic_type": "fulfillment"}', FALSE, ?)`, now)
	exec(`INSERT INTO orders (id, site_id, seller_id, buyer_id, pack_id, pack, status, items, shipping, has_claim, date_created)
		VALUES (6, 'MLC', 10, 20, NULL, 6, 'paid', '[]', '{"id": 2, "logistic_type": "drop_off"}', FALSE, ?)`, now)
	s := fiscaldb.New(db)
	p, err := s.Pack(ctx, 700)
	if err != nil || p != (fiscal.Pack{ID: 700, SiteID: "MLC", SellerID: 10, BuyerID: 20, LogisticType: "fulfillment"}) {
		t.Fatalf("Pack(700) = %+v, %v", p, err)
	}
	if p, err := s.Pack(ctx, 6); err != nil || p.LogisticType != "drop_off" {
		t.Fatalf("Pack(6) = %+v, %v", p, err)
	}
	if _, err := s.Pack(ctx, 5); !errors.Is(err, fiscalport.ErrPackNotFound) {
		t.Fatalf("an order inside a pack is not a pack: %v", err)
	}

	// WithDocuments is Pack and ByPack in one read, in a transaction or
	// not (two driver paths on PostgreSQL).
	if _, _, err := s.WithDocuments(ctx, 5); !errors.Is(err, fiscalport.ErrPackNotFound) {
		t.Fatalf("WithDocuments(5): %v", err)
	}
	if p, docs, err := s.WithDocuments(ctx, 700); err != nil || p.LogisticType != "fulfillment" || docs == nil || len(docs) != 0 {
		t.Fatalf("WithDocuments(700) with no document = %+v, %+v, %v", p, docs, err)
	}
	at := time.Date(2026, 11, 20, 12, 0, 0, 123456000, time.UTC)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Add(ctx, []fiscal.Document{
		{ID: "b", PackID: 700, SellerID: 10, FileType: fiscal.XML, Filename: "f.xml", ContentType: "text/xml", Size: 9, Key: "fiscal/700/b", DateCreated: at},
		{ID: "a", PackID: 700, SellerID: 11, FileType: fiscal.PDF, Filename: "f.pdf", ContentType: "application/pdf", Size: 7, Key: "fiscal/700/a", DateCreated: at.Add(-time.Second)},
	}))
	must(s.Add(ctx, []fiscal.Document{{ID: "other", PackID: 6, SellerID: 10, FileType: fiscal.PDF, Key: "k", DateCreated: at}}))
	wantPack, _ := s.Pack(ctx, 700)
	wantDocs, err := s.ByPack(ctx, 700)
	must(err)
	check := func(ctx context.Context) {
		t.Helper()
		p, docs, err := s.WithDocuments(ctx, 700)
		if err != nil || p != wantPack || len(docs) != 2 || docs[0].ID != "a" {
			t.Fatalf("WithDocuments(700) = %+v, %+v, %v", p, docs, err)
		}
		for i := range docs {
			if docs[i] != wantDocs[i] {
				t.Fatalf("document %d = %+v, ByPack %+v", i, docs[i], wantDocs[i])
			}
		}
	}
	check(ctx)
	must(sqlstore.Tx{DB: db}.RunInTx(ctx, func(ctx context.Context) error { check(ctx); return nil }))
}
