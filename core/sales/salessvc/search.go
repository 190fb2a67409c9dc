package salessvc

import (
	"context"
	"strconv"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/sales"
)

// SearchOrders answers the caller's own orders as seller or buyer: another
// user's id is refused, not answered empty, so that a wrong id reads as one.
// The user's orders are filtered and paged here: a sandbox user holds
// hundreds of orders, not millions, and the rules stay in core.
func (s *Service) SearchOrders(ctx context.Context, q sales.OrderQuery) (sales.SearchAnswer, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return sales.SearchAnswer{}, sales.ErrNoCaller
	}
	if q.Seller != 0 && q.Seller != caller.UserID {
		return sales.SearchAnswer{}, sales.ErrNotYourSearch.Withf("the caller is not seller %d", q.Seller)
	}
	if q.Buyer != 0 && q.Buyer != caller.UserID {
		return sales.SearchAnswer{}, sales.ErrNotYourSearch.Withf("the caller is not buyer %d", q.Buyer)
	}
	orders, err := s.orders.OrdersOf(ctx, q.Seller, q.Buyer, q.Status)
	if err != nil {
		return sales.SearchAnswer{}, err
	}
	return q.Answer(orders), nil
}

// sellersOrder reads an order for its seller, the one user who keeps notes
// on it; an unknown order is 404 before anybody's permission is read.
func (s *Service) sellersOrder(ctx context.Context, id int64) (sales.Order, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return sales.Order{}, sales.ErrNoCaller
	}
	o, err := s.Order(ctx, id)
	if err != nil {
		return o, err
	}
	if o.SellerID != caller.UserID {
		return o, sales.ErrNotYourNotes.Withf("only the seller of order %d may read and write its notes", id)
	}
	return o, nil
}

// AddNote stores a note of the order's seller.
func (s *Service) AddNote(ctx context.Context, orderID int64, text string) (sales.NoteAnswer, error) {
	if _, err := s.sellersOrder(ctx, orderID); err != nil {
		return sales.NoteAnswer{}, err
	}
	if err := sales.CheckNote(text); err != nil {
		return sales.NoteAnswer{}, err
	}
	now := s.clock.Now()
	n := sales.Note{ID: kernel.NewUUID(), OrderID: orderID, Note: text, DateCreated: now, DateLastUpdated: now}
	if err := s.notes.AddNote(ctx, n); err != nil {
		return sales.NoteAnswer{}, err
	}
	return sales.NoteAnswer{OrderID: strconv.FormatInt(orderID, 10), Note: n}, nil
}

// Notes lists the order's notes for its seller.
func (s *Service) Notes(ctx context.Context, orderID int64) ([]sales.NotesAnswer, error) {
	if _, err := s.sellersOrder(ctx, orderID); err != nil {
		return nil, err
	}
	notes, err := s.notes.Notes(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if notes == nil {
		notes = []sales.Note{}
	}
	return []sales.NotesAnswer{{OrderID: strconv.FormatInt(orderID, 10), Results: notes}}, nil
}
