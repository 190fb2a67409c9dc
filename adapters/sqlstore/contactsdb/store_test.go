package contactsdb_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/contactsdb"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/contactsport"
	"github.com/feria/feria/test/testenv"
)

// Seed writes users and items rows the way the sandbox stores them; only the
// columns this module reads matter.
func Seed(t testing.TB, db bun.IDB, users []int64, items map[string]int64) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	for _, u := range users {
		_, err := db.NewRaw(`INSERT INTO users (id, nickname, site_id, user_type, tags, messaging_allowed, date_created)
			VALUES (?, ?, 'MLA', 'normal', '[]', TRUE, ?)`, u, "U", now).Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := db.NewRaw(`INSERT INTO categories (id, site_id, name, domain_id, shipping_preferences, accepted_shipping_methods, date_created, last_modified)
		VALUES ('MLA1747', 'MLA', 'C', 'MLA-X', '{}', '[]', ?, ?)`, now, now).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for id, seller := range items {
		_, err := db.NewRaw(`INSERT INTO items (id, site_id, seller_id, title, category_id, domain_id, status, price, currency_id,
			available_quantity, listing_type_id, condition, attributes, tags, shipping, extra, date_created, last_updated)
			VALUES (?, 'MLA', ?, 'T', 'MLA1747', 'MLA-X', 'active', 1, 'ARS', 1, 'gold_special', 'new', '[]', '[]', '{}', '{}', ?, ?)`,
			id, seller, now, now).Exec(ctx)
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestStore(t *testing.T) {
	for name, open := range testenv.Databases() {
		t.Run(name, func(t *testing.T) {
			db := open(t)
			ctx := context.Background()
			Seed(t, db, []int64{7, 9}, map[string]int64{"MLA1": 7, "MLA2": 7})
			s := contactsdb.New(db)

			got, err := s.Sellers(ctx, []string{"MLA1", "MLA2", "MLA404"})
			if err != nil || len(got) != 2 || got["MLA1"] != 7 || got["MLA2"] != 7 {
				t.Fatalf("Sellers = %v, %v", got, err)
			}
			if got, err := s.Sellers(ctx, nil); err != nil || len(got) != 0 {
				t.Fatalf("Sellers(nil) = %v, %v", got, err)
			}
			for id, want := range map[int64]bool{7: true, 9: true, 404: false} {
				if ok, err := s.UserExists(ctx, id); err != nil || ok != want {
					t.Fatalf("UserExists(%d) = %v, %v", id, ok, err)
				}
			}

			at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
			var ids []int64
			for i, text := range []string{"uno", "dos", "tres"} {
				q, err := s.Add(ctx, contacts.AskedQuestion{ItemID: "MLA1", SellerID: 7, FromID: 9, Text: text,
					Status: contacts.Unanswered, DateCreated: at.Add(time.Duration(i) * time.Minute)})
				if err != nil || q.ID == 0 || q.Text != text {
					t.Fatalf("Add = %+v, %v", q, err)
				}
				ids = append(ids, q.ID)
			}
			if _, err := s.Add(ctx, contacts.AskedQuestion{ItemID: "MLA2", SellerID: 7, FromID: 9, Text: "otro",
				Status: contacts.Unanswered, DateCreated: at}); err != nil {
				t.Fatal(err)
			}
			qs, total, err := s.Search(ctx, contacts.QuestionFilter{SellerID: 7, ItemID: "MLA1"}, paging.Request{Limit: 2})
			if err != nil || total != 3 || len(qs) != 2 || qs[0].ID != ids[2] || qs[1].ID != ids[1] ||
				!qs[0].DateCreated.Equal(at.Add(2*time.Minute)) || qs[0].FromID != 9 || qs[0].Status != "UNANSWERED" {
				t.Fatalf("Search = %+v, %d, %v", qs, total, err)
			}
			qs, total, _ = s.Search(ctx, contacts.QuestionFilter{SellerID: 7, ItemID: "MLA1"}, paging.Request{Limit: 2, Offset: 2})
			if total != 3 || len(qs) != 1 || qs[0].ID != ids[0] {
				t.Fatalf("page 2 = %+v, %d", qs, total)
			}
			qs, total, _ = s.Search(ctx, contacts.QuestionFilter{SellerID: 7, ItemID: "MLA1"}, paging.Request{Limit: 0})
			if total != 3 || len(qs) != 0 {
				t.Fatalf("limit 0 = %+v, %d", qs, total)
			}
			if qs, total, _ = s.Search(ctx, contacts.QuestionFilter{SellerID: 8, ItemID: "MLA1"}, paging.Default()); total != 0 || len(qs) != 0 {
				t.Fatalf("another seller's inbox = %+v, %d", qs, total)
			}
			if q, err := s.Question(ctx, ids[1]); err != nil || q.ID != ids[1] || q.Text != "dos" || q.SellerID != 7 || q.FromID != 9 ||
				!q.DateCreated.Equal(at.Add(time.Minute)) {
				t.Fatalf("Question = %+v, %v", q, err)
			}
			if _, err := s.Question(ctx, 4242); !errors.Is(err, contactsport.ErrNotFound) {
				t.Fatalf("unknown question: %v", err)
			}

			// Inside a transaction that rolls back, the question is gone.
			tx := sqlstore.Tx{DB: db}
			_ = tx.RunInTx(ctx, func(ctx context.Context) error {
				if _, err := s.Add(ctx, contacts.AskedQuestion{ItemID: "MLA1", SellerID: 7, FromID: 9, Text: "x",
					Status: contacts.Unanswered, DateCreated: at}); err != nil {
					t.Fatal(err)
				}
				return context.Canceled
			})
			if _, total, _ := s.Search(ctx, contacts.QuestionFilter{SellerID: 7, ItemID: "MLA1"}, paging.Default()); total != 3 {
				t.Fatalf("rolled-back question kept: total %d", total)
			}
		})
	}
}
