// Package contactssvc holds the use cases of contact statistics: it decodes
// and validates requests with the rules of core/contacts, checks that items
// and users exist, and reads and writes the counters.
package contactssvc

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/contactsport"
	"github.com/feria/feria/ports/webhooksport"
)

// Deps is what the service needs.
type Deps struct {
	Counters  contactsport.Counters
	Owners    contactsport.ItemOwners
	Questions contactsport.Questions
	// Changes are the notifications to applications (topic questions),
	// told of every question asked, for the item's seller.
	Changes webhooksport.Changes
	// Tx holds a question, its notification and its contact in one
	// transaction.
	Tx    kernel.Tx
	Clock kernel.Clock
}

// Service implements contactsport.Service.
type Service struct {
	counting  contacts.Counting
	counters  contactsport.Counters
	owners    contactsport.ItemOwners
	questions contactsport.Questions
	changes   webhooksport.Changes
	tx        kernel.Tx
	clock     kernel.Clock
}

var _ contactsport.Service = (*Service)(nil)

// New builds the service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{counting: contacts.Counting{Counters: d.Counters, Owners: d.Owners}, counters: d.Counters, owners: d.Owners, questions: d.Questions, changes: d.Changes, tx: d.Tx, clock: d.Clock}
}

// ItemTotal counts an item's contacts between two dates.
func (s *Service) ItemTotal(ctx context.Context, itemID string, q contactsport.TotalQuery) (contacts.Total, error) {
	id, err := contacts.ParseItemID(itemID)
	if err != nil {
		return contacts.Total{}, err
	}
	r, err := contacts.ParseRange(q.DateFrom, q.DateTo)
	if err != nil {
		return contacts.Total{}, err
	}
	return s.total(ctx, contacts.ItemSubject(id), q.Kind, r)
}

// UserTotal counts a seller's contacts (all its items) between two dates.
func (s *Service) UserTotal(ctx context.Context, userID string, q contactsport.TotalQuery) (contacts.Total, error) {
	id, err := contacts.ParseUserID(userID)
	if err != nil {
		return contacts.Total{}, err
	}
	r, err := contacts.ParseRange(q.DateFrom, q.DateTo)
	if err != nil {
		return contacts.Total{}, err
	}
	return s.total(ctx, contacts.UserSubject(id), q.Kind, r)
}

// total counts every event in [r.From, r.To) exactly, and asks the
// counters in the same read whether the subject is known.
func (s *Service) total(ctx context.Context, sub contacts.Subject, k contacts.Kind, r contacts.Range) (contacts.Total, error) {
	subs := []contacts.Subject{sub}
	ans, err := s.counters.Read(ctx, contactsport.Query{Spans: []contactsport.Span{{Kind: k, Subject: sub, Range: r}}, Known: subs})
	if err != nil {
		return contacts.Total{}, err
	}
	if err := s.exist(ctx, subs, ans.Known); err != nil {
		return contacts.Total{}, err
	}
	return contacts.Total{Subject: sub, Kind: k, Range: r, Total: ans.Spans[0]}, nil
}

// ItemWindows answers a time window per item.
func (s *Service) ItemWindows(ctx context.Context, itemIDs []string, q contactsport.WindowQuery) ([]contacts.Window, error) {
	ids, err := contacts.ParseIDs(strings.Join(itemIDs, ","))
	if err != nil {
		return nil, err
	}
	w, err := contacts.ParseWindow(q.Last, q.Unit, q.Ending, q.Order, s.clock.Now())
	if err != nil {
		return nil, err
	}
	subs := make([]contacts.Subject, len(ids))
	for i, id := range ids {
		subs[i] = contacts.ItemSubject(id)
	}
	return s.windows(ctx, subs, q.Kind, w)
}

// UserWindow answers a seller's time window.
func (s *Service) UserWindow(ctx context.Context, userID string, q contactsport.WindowQuery) (contacts.Window, error) {
	id, err := contacts.ParseUserID(userID)
	if err != nil {
		return contacts.Window{}, err
	}
	w, err := contacts.ParseWindow(q.Last, q.Unit, q.Ending, q.Order, s.clock.Now())
	if err != nil {
		return contacts.Window{}, err
	}
	out, err := s.windows(ctx, []contacts.Subject{contacts.UserSubject(id)}, q.Kind, w)
	if err != nil {
		return contacts.Window{}, err
	}
	return out[0], nil
}

func (s *Service) windows(ctx context.Context, subs []contacts.Subject, k contacts.Kind, w contacts.WindowSpec) ([]contacts.Window, error) {
	starts := w.Starts()
	series := make([]contactsport.Series, len(subs))
	for i, sub := range subs {
		series[i] = contactsport.Series{Kind: k, Subject: sub, Unit: w.Unit, Starts: starts}
	}
	ans, err := s.counters.Read(ctx, contactsport.Query{Series: series, Known: subs})
	if err != nil {
		return nil, err
	}
	if err := s.exist(ctx, subs, ans.Known); err != nil {
		return nil, err
	}
	out := make([]contacts.Window, len(subs))
	for i, sub := range subs {
		out[i] = contacts.NewWindow(sub, k, w, ans.Series[i])
	}
	return out, nil
}

// exist fails with 404 naming the subjects the database does not know.
// Subjects the counters know (known[i]) were found in the database before,
// and items and users are deleted only by a sandbox reset, which forgets
// those marks too: a read of known subjects is Redis only. The others are
// looked up in the database and, when found, marked known for later reads.
func (s *Service) exist(ctx context.Context, subs []contacts.Subject, known []bool) error {
	var items []string
	var users []int64
	for i, sub := range subs {
		if known[i] {
			continue
		}
		if sub.Item != "" {
			items = append(items, sub.Item)
		} else {
			users = append(users, sub.User)
		}
	}
	if len(items) == 0 && len(users) == 0 {
		return nil
	}
	var found []contacts.Subject
	if len(items) > 0 {
		if _, err := s.counting.Sellers(ctx, items); err != nil {
			return err
		}
		for _, id := range items {
			found = append(found, contacts.ItemSubject(id))
		}
	}
	for _, id := range users {
		if err := s.user(ctx, id); err != nil {
			return err
		}
		found = append(found, contacts.UserSubject(id))
	}
	// A mark that could not be written costs the next read a database
	// query, not a wrong answer: the answer stands.
	_ = s.counters.MarkKnown(ctx, found)
	return nil
}

func (s *Service) user(ctx context.Context, id int64) error {
	ok, err := s.owners.UserExists(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return contacts.ErrNotFound.Withf("user %d not found", id)
	}
	return nil
}

// Ingest validates a whole batch, resolves every item's seller, then counts
// the batch in one call of the counters.
func (s *Service) Ingest(ctx context.Context, in []contacts.EventInput) (contacts.Result, error) {
	return contacts.Ingest(ctx, s.counting, in)
}

// Prepare validates one event and resolves its seller.
func (s *Service) Prepare(ctx context.Context, in contacts.EventInput) (contacts.Event, error) {
	return s.counting.Prepare(ctx, in)
}

// Count counts prepared events.
func (s *Service) Count(ctx context.Context, events []contacts.Event) (contacts.Result, error) {
	return s.counters.Add(ctx, events)
}

// StoredEvent returns a counted event.
func (s *Service) StoredEvent(ctx context.Context, id string) (contacts.Event, error) {
	ev, err := s.counters.Event(ctx, id)
	if errors.Is(err, contactsport.ErrNotFound) {
		return ev, contacts.ErrNotFound.Withf("contact event %q not found", id)
	}
	return ev, err
}

// Ask stores a buyer's question and counts it as a question event, in the
// question's transaction: if the counters are down nothing is stored, and a
// retried count is not counted twice (the event id is the question id).
func (s *Service) Ask(ctx context.Context, itemID, text string) (contacts.AskedQuestion, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return contacts.AskedQuestion{}, kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
	}
	if itemID == "" {
		return contacts.AskedQuestion{}, contacts.ErrBadRequest.With("item_id is required")
	}
	id, err := contacts.ParseItemID(itemID)
	if err != nil {
		return contacts.AskedQuestion{}, err
	}
	t, err := contacts.CheckQuestionText(text)
	if err != nil {
		return contacts.AskedQuestion{}, err
	}
	var q contacts.AskedQuestion
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		sellers, err := s.counting.Sellers(ctx, []string{id})
		if err != nil {
			return err
		}
		seller := sellers[id]
		if seller == caller.UserID {
			return contacts.ErrForbidden.With("a seller cannot ask a question on their own item")
		}
		q, err = s.questions.Add(ctx, contacts.AskedQuestion{ItemID: id, SellerID: seller, FromID: caller.UserID,
			Text: t, Status: contacts.Unanswered, DateCreated: s.clock.Now().UTC()})
		if err != nil {
			return err
		}
		if err := s.changes.Changed(ctx, webhooks.Change{Topic: webhooks.TopicQuestions,
			Resource: "/questions/" + strconv.FormatInt(q.ID, 10), UserID: seller}); err != nil {
			return err
		}
		_, err = s.counters.Add(ctx, []contacts.Event{{ID: contacts.QuestionEventID(q.ID), ItemID: id,
			SellerID: seller, Kind: contacts.Question, Date: q.DateCreated}})
		return err
	})
	return q, err
}

// Question returns a question to the item's seller or the buyer who asked
// it; an unknown question is 404 before anybody's permission is read.
func (s *Service) Question(ctx context.Context, id int64) (contacts.AskedQuestion, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return contacts.AskedQuestion{}, kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
	}
	q, err := s.questions.Question(ctx, id)
	if errors.Is(err, contactsport.ErrNotFound) {
		return q, contacts.ErrQuestionNotFound.Wrap(err)
	}
	if err != nil {
		return q, err
	}
	if caller.UserID != q.SellerID && caller.UserID != q.FromID {
		return contacts.AskedQuestion{}, contacts.ErrForbidden.Withf("question %d is neither asked by the caller nor on the caller's item", id)
	}
	return q, nil
}

// Reset forgets every counter.
func (s *Service) Reset(ctx context.Context) error { return s.counters.Reset(ctx) }
