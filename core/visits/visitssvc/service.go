// Package visitssvc holds the use cases of visits: it decodes requests
// with the rules of core/visits, checks that items exist and that a user's
// visits are read by that user, and reads and writes the counters in one
// round trip per request.
package visitssvc

import (
	"context"
	"errors"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/visits"
	"github.com/feria/feria/ports/contactsport"
	"github.com/feria/feria/ports/visitsport"
)

// Deps is what the service needs.
type Deps struct {
	// Counters are the visits' own counters (keys apart from contacts').
	Counters contactsport.Counters
	Owners   contactsport.ItemOwners
	Clock    kernel.Clock
}

// Service implements visitsport.Service.
type Service struct {
	counting contacts.Counting
	counters contactsport.Counters
	clock    kernel.Clock
}

var _ visitsport.Service = (*Service)(nil)

// New builds the service; it panics when a port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	return &Service{counting: contacts.Counting{Counters: d.Counters, Owners: d.Owners}, counters: d.Counters, clock: d.Clock}
}

// ItemTotals counts each item's visits in [date_from, date_to).
func (s *Service) ItemTotals(ctx context.Context, ids, dateFrom, dateTo string) ([]contacts.Total, error) {
	parsed, err := contacts.ParseIDs(ids)
	if err != nil {
		return nil, err
	}
	r, err := visits.ParseRange(dateFrom, dateTo)
	if err != nil {
		return nil, err
	}
	subs := make([]contacts.Subject, len(parsed))
	spans := make([]contactsport.Span, len(parsed))
	for i, id := range parsed {
		subs[i] = contacts.ItemSubject(id)
		spans[i] = contactsport.Span{Kind: visits.Kind, Subject: subs[i], Range: r}
	}
	ans, err := s.counters.Read(ctx, contactsport.Query{Spans: spans, Known: subs})
	if err != nil {
		return nil, err
	}
	if err := s.exist(ctx, parsed, ans.Known); err != nil {
		return nil, err
	}
	out := make([]contacts.Total, len(subs))
	for i, sub := range subs {
		out[i] = contacts.Total{Subject: sub, Kind: visits.Kind, Range: r, Total: ans.Spans[i]}
	}
	return out, nil
}

// UserTotal counts the visits of all the caller's items.
func (s *Service) UserTotal(ctx context.Context, userID, dateFrom, dateTo string) (contacts.Total, error) {
	sub, err := own(ctx, userID)
	if err != nil {
		return contacts.Total{}, err
	}
	r, err := visits.ParseRange(dateFrom, dateTo)
	if err != nil {
		return contacts.Total{}, err
	}
	ans, err := s.counters.Read(ctx, contactsport.Query{Spans: []contactsport.Span{{Kind: visits.Kind, Subject: sub, Range: r}}})
	if err != nil {
		return contacts.Total{}, err
	}
	return contacts.Total{Subject: sub, Kind: visits.Kind, Range: r, Total: ans.Spans[0]}, nil
}

// ItemWindow answers an item's time window.
func (s *Service) ItemWindow(ctx context.Context, itemID string, q visitsport.WindowQuery) (contacts.Window, error) {
	id, err := contacts.ParseItemID(itemID)
	if err != nil {
		return contacts.Window{}, err
	}
	w, err := visits.ParseWindow(q.Last, q.Unit, q.Ending, s.clock.Now())
	if err != nil {
		return contacts.Window{}, err
	}
	sub := contacts.ItemSubject(id)
	ans, err := s.counters.Read(ctx, contactsport.Query{Series: []contactsport.Series{series(sub, w)}, Known: []contacts.Subject{sub}})
	if err != nil {
		return contacts.Window{}, err
	}
	if err := s.exist(ctx, []string{id}, ans.Known); err != nil {
		return contacts.Window{}, err
	}
	return contacts.NewWindow(sub, visits.Kind, w, ans.Series[0]), nil
}

// UserWindow answers the time window of all the caller's items.
func (s *Service) UserWindow(ctx context.Context, userID string, q visitsport.WindowQuery) (contacts.Window, error) {
	sub, err := own(ctx, userID)
	if err != nil {
		return contacts.Window{}, err
	}
	w, err := visits.ParseWindow(q.Last, q.Unit, q.Ending, s.clock.Now())
	if err != nil {
		return contacts.Window{}, err
	}
	ans, err := s.counters.Read(ctx, contactsport.Query{Series: []contactsport.Series{series(sub, w)}})
	if err != nil {
		return contacts.Window{}, err
	}
	return contacts.NewWindow(sub, visits.Kind, w, ans.Series[0]), nil
}

func series(sub contacts.Subject, w contacts.WindowSpec) contactsport.Series {
	return contactsport.Series{Kind: visits.Kind, Subject: sub, Unit: w.Unit, Starts: w.Starts()}
}

// own decodes a user id that must be the caller's: a user's visits are
// read by that user only.
func own(ctx context.Context, userID string) (contacts.Subject, error) {
	id, err := contacts.ParseUserID(userID)
	if err != nil {
		return contacts.Subject{}, err
	}
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return contacts.Subject{}, kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
	}
	if caller.UserID != id {
		return contacts.Subject{}, visits.ErrForbidden.Withf("the caller is not user %d", id)
	}
	return contacts.UserSubject(id), nil
}

// exist fails with 404 naming the items the database does not know; items
// the counters mark known need no query (a sandbox reset, the only way an
// item goes, forgets the marks too), the others are marked once found.
func (s *Service) exist(ctx context.Context, ids []string, known []bool) error {
	var ask []string
	for i, id := range ids {
		if !known[i] {
			ask = append(ask, id)
		}
	}
	if len(ask) == 0 {
		return nil
	}
	if _, err := s.counting.Sellers(ctx, ask); err != nil {
		return err
	}
	found := make([]contacts.Subject, len(ask))
	for i, id := range ask {
		found[i] = contacts.ItemSubject(id)
	}
	// A mark not written costs the next read a query, not a wrong answer.
	_ = s.counters.MarkKnown(ctx, found)
	return nil
}

// Ingest validates a whole batch, resolves every item's seller, then counts
// the batch in one call of the counters.
func (s *Service) Ingest(ctx context.Context, in []visits.EventInput) (contacts.Result, error) {
	return contacts.Ingest(ctx, s.counting, in)
}

// Prepare validates one visit and resolves its seller.
func (s *Service) Prepare(ctx context.Context, in visits.EventInput) (contacts.Event, error) {
	return s.counting.Prepare(ctx, in)
}

// Count counts prepared visits.
func (s *Service) Count(ctx context.Context, events []contacts.Event) (contacts.Result, error) {
	return s.counters.Add(ctx, events)
}

// StoredEvent returns a counted visit.
func (s *Service) StoredEvent(ctx context.Context, id string) (contacts.Event, error) {
	ev, err := s.counters.Event(ctx, id)
	if errors.Is(err, contactsport.ErrNotFound) {
		return ev, contacts.ErrNotFound.Withf("visit event %q not found", id)
	}
	return ev, err
}

// Reset forgets every visit.
func (s *Service) Reset(ctx context.Context) error { return s.counters.Reset(ctx) }
