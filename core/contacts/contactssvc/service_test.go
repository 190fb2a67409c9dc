package contactssvc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/contacts/contactssvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/contactsport"
	"github.com/feria/feria/ports/contactsport/contactsporttest"
	"github.com/feria/feria/ports/webhooksport/webhooksporttest"
)

var now = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func newSvc() (*contactssvc.Service, *contactsporttest.Counters, *contactsporttest.Questions) {
	c := contactsporttest.NewCounters()
	q := &contactsporttest.Questions{}
	o := &contactsporttest.Owners{Items: map[string]int64{"MLA1": 7, "MLA2": 7, "MLA3": 8}, Users: map[int64]bool{7: true, 8: true, 9: true}}
	return contactssvc.New(contactssvc.Deps{Counters: c, Owners: o, Questions: q, Changes: &webhooksporttest.Changes{},
		Tx: kerneltest.Tx{}, Clock: &kerneltest.Clock{At: now}}), c, q
}

func in(id, item, typ, date string) contacts.EventInput {
	return contacts.EventInput{ID: id, ItemID: item, Type: typ, Date: date}
}

func TestIngestAndRead(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newSvc()
	r, err := s.Ingest(ctx, []contacts.EventInput{
		in("1", "MLA1", "question", "2026-11-20T10:15:00Z"),
		in("2", "MLA2", "question", "2026-11-20T10:16:00-03:00"),
		in("1", "MLA1", "question", "2026-11-20T10:15:00Z"),
		in("3", "MLA3", "question", "2026-11-19T23:00:00Z"),
	})
	if err != nil || r.Accepted != 3 || r.Duplicates != 1 {
		t.Fatalf("Ingest = %+v, %v", r, err)
	}
	q := contactsport.TotalQuery{Kind: contacts.Question, DateFrom: "2026-11-20T00:00:00Z", DateTo: "2026-11-21T00:00:00Z"}
	one, _ := s.ItemTotal(ctx, "MLA1", q)
	two, _ := s.ItemTotal(ctx, "MLA2", q)
	seller, err := s.UserTotal(ctx, "7", q)
	if err != nil || one.Total != 1 || two.Total != 1 || seller.Total != one.Total+two.Total {
		t.Fatalf("totals %d %d %d %v", one.Total, two.Total, seller.Total, err)
	}
	w, err := s.UserWindow(ctx, "7", contactsport.WindowQuery{Kind: contacts.Question, Last: "5", Unit: "hour", Ending: "2026-11-20T10:30:00-03:00"})
	if r := w.Results(); err != nil || w.Total != 2 || len(r) != 5 || r[0].Start != time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC) ||
		r[1].Total != 1 || r[4].Total != 1 {
		t.Fatalf("user window %+v %v", w, err)
	}
	ws, err := s.ItemWindows(ctx, []string{"MLA3", "MLA1"}, contactsport.WindowQuery{Kind: contacts.Question, Last: "2", Unit: "day", Order: "desc"})
	if err != nil || len(ws) != 2 || ws[0].Subject.Item != "MLA3" || ws[0].Results()[1].Total != 1 || ws[1].Results()[0].Total != 1 {
		t.Fatalf("item windows %+v %v", ws, err)
	}
}

func TestIngestRefusesWholeBatch(t *testing.T) {
	ctx := context.Background()
	s, c, _ := newSvc()
	_, err := s.Ingest(ctx, []contacts.EventInput{in("1", "MLA1", "question", "2026-11-20"), in("2", "MLA404", "question", "2026-11-20")})
	if kernel.KindOf(err) != kernel.NotExist || kernel.MessageOf(err) != "item MLA404 not found" {
		t.Fatalf("unknown item: %v", err)
	}
	_, err = s.Ingest(ctx, []contacts.EventInput{in("1", "MLA1", "question", "2026-11-20"), in("2", "MLA1", "chat", "2026-11-20")})
	if kernel.KindOf(err) != kernel.Invalid {
		t.Fatalf("bad type: %v", err)
	}
	if _, err := c.Event(ctx, "1"); !errors.Is(err, contactsport.ErrNotFound) {
		t.Fatalf("an event of a refused batch was counted")
	}
	big := make([]contacts.EventInput, contacts.MaxBatch+1)
	if _, err := s.Ingest(ctx, big); kernel.MessageOf(err) != "events holds 1001 events; at most 1000 are allowed per call" {
		t.Fatalf("big batch: %v", err)
	}
}

func TestValidationBeforeLookup(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newSvc()
	cases := []struct {
		err  error
		kind kernel.Kind
		msg  string
	}{
		{must(s.ItemTotal(ctx, "abc", contactsport.TotalQuery{})), kernel.Invalid, `item id "abc" cannot be decoded: it must be a site id followed by digits, e.g. MLA1100`},
		{must(s.UserTotal(ctx, "x1", contactsport.TotalQuery{})), kernel.Invalid, `user id "x1" cannot be decoded: it must be a positive integer`},
		{must(s.ItemTotal(ctx, "MLA404", contactsport.TotalQuery{DateFrom: "2026-11-01", DateTo: "2026-11-02"})), kernel.NotExist, "item MLA404 not found"},
		{must(s.UserTotal(ctx, "404", contactsport.TotalQuery{DateFrom: "2026-11-01", DateTo: "2026-11-02"})), kernel.NotExist, "user 404 not found"},
		{must(s.ItemWindows(ctx, []string{"MLA1", "MLA404", "MLA405"}, contactsport.WindowQuery{Last: "1", Unit: "day"})), kernel.NotExist, "items MLA404, MLA405 not found"},
		{must(s.UserWindow(ctx, "404", contactsport.WindowQuery{Last: "1", Unit: "day"})), kernel.NotExist, "user 404 not found"},
		{must(s.UserWindow(ctx, "7", contactsport.WindowQuery{Last: "1"})), kernel.Invalid, "unit is required: hour or day"},
	}
	for i, c := range cases {
		if kernel.KindOf(c.err) != c.kind || kernel.MessageOf(c.err) != c.msg {
			t.Errorf("case %d: %v, want %v %q", i, c.err, c.kind, c.msg)
		}
	}
}

func must[T any](_ T, err error) error { return err }

func TestAskAndSearch(t *testing.T) {
	s, c, _ := newSvc()
	buyer := kernel.WithCaller(context.Background(), kernel.Caller{UserID: 9})
	seller := kernel.WithCaller(context.Background(), kernel.Caller{UserID: 7})
	q, err := s.Ask(buyer, "MLA1", " ¿Tiene stock? ")
	if err != nil || q.ID == 0 || q.SellerID != 7 || q.FromID != 9 || q.Text != "¿Tiene stock?" || q.Status != "UNANSWERED" || !q.DateCreated.Equal(now) {
		t.Fatalf("Ask = %+v, %v", q, err)
	}
	if e, err := c.Event(buyer, contacts.QuestionEventID(q.ID)); err != nil || e.Kind != contacts.Question {
		t.Fatalf("question not counted: %v", err)
	}
	if _, err := s.Ask(seller, "MLA1", "mine"); kernel.KindOf(err) != kernel.Permission {
		t.Fatalf("own item: %v", err)
	}
	if _, err := s.Ask(buyer, "MLA404", "x"); kernel.KindOf(err) != kernel.NotExist {
		t.Fatalf("unknown item: %v", err)
	}
	if _, err := s.Ask(buyer, "MLA1", ""); kernel.KindOf(err) != kernel.Invalid {
		t.Fatalf("empty: %v", err)
	}
	if _, err := s.Ask(context.Background(), "MLA1", "x"); kernel.KindOf(err) != kernel.Unauthenticated {
		t.Fatalf("anonymous: %v", err)
	}
	qs, page, err := s.Questions(seller, contactsport.QuestionSearch{Item: "MLA1"}, paging.Default())
	if err != nil || len(qs) != 1 || page.Total != 1 {
		t.Fatalf("Questions = %v %+v %v", qs, page, err)
	}
	if _, _, err := s.Questions(buyer, contactsport.QuestionSearch{Item: "MLA1"}, paging.Default()); kernel.KindOf(err) != kernel.Permission {
		t.Fatalf("buyer reads inbox: %v", err)
	}
}

func TestCountersDown(t *testing.T) {
	s, c, _ := newSvc()
	c.Err = kernel.E(kernel.Unavailable, "service_unavailable", "down")
	buyer := kernel.WithCaller(context.Background(), kernel.Caller{UserID: 9})
	if _, err := s.Ask(buyer, "MLA1", "hola"); kernel.KindOf(err) != kernel.Unavailable {
		t.Fatalf("Ask with counters down: %v", err)
	}
	if _, err := s.ItemTotal(buyer, "MLA1", contactsport.TotalQuery{DateFrom: "2026-11-01", DateTo: "2026-11-02"}); kernel.KindOf(err) != kernel.Unavailable {
		t.Fatalf("read with counters down: %v", err)
	}
}
