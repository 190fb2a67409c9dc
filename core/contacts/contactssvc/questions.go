package contactssvc

import (
	"context"
	"errors"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/contactsport"
)

var errNoToken = kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")

// Questions lists the caller's questions as a seller: of one item (item),
// of all their items (seller_id, which must be the caller), or both, of one
// status when asked.
func (s *Service) Questions(ctx context.Context, in contactsport.QuestionSearch, p paging.Request) ([]contacts.AskedQuestion, paging.Page, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return nil, paging.Page{}, errNoToken
	}
	if in.Item == "" && in.SellerID == "" {
		return nil, paging.Page{}, contacts.ErrBadRequest.With("item_id or seller_id is required")
	}
	f := contacts.QuestionFilter{SellerID: caller.UserID}
	var err error
	if f.Status, err = contacts.ParseQuestionStatus(in.Status); err != nil {
		return nil, paging.Page{}, err
	}
	if in.SellerID != "" {
		seller, err := contacts.ParseUserID(in.SellerID)
		if err != nil {
			return nil, paging.Page{}, err
		}
		if seller != caller.UserID {
			return nil, paging.Page{}, contacts.ErrForbidden.Withf("only seller %d may read their questions", seller)
		}
	}
	if in.Item != "" {
		if f.ItemID, err = contacts.ParseItemID(in.Item); err != nil {
			return nil, paging.Page{}, err
		}
		sellers, err := s.counting.Sellers(ctx, []string{f.ItemID})
		if err != nil {
			return nil, paging.Page{}, err
		}
		if sellers[f.ItemID] != caller.UserID {
			return nil, paging.Page{}, contacts.ErrForbidden.Withf("only the seller of item %s may read its questions", f.ItemID)
		}
	}
	qs, total, err := s.questions.Search(ctx, f, p)
	if err != nil {
		return nil, paging.Page{}, err
	}
	return qs, p.Of(total), nil
}

// DeleteQuestion deletes a question by its item's seller: it is gone from
// its read and from searches (its contact stays counted). An unknown
// question is 404 before anybody's permission is read.
func (s *Service) DeleteQuestion(ctx context.Context, id int64) error {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return errNoToken
	}
	q, err := s.questions.Question(ctx, id)
	if errors.Is(err, contactsport.ErrNotFound) {
		return contacts.ErrQuestionNotFound.Wrap(err)
	}
	if err != nil {
		return err
	}
	if caller.UserID != q.SellerID {
		return contacts.ErrForbidden.Withf("only the seller of item %s may delete question %d", q.ItemID, id)
	}
	err = s.questions.Delete(ctx, id)
	if errors.Is(err, contactsport.ErrNotFound) {
		return contacts.ErrQuestionNotFound.Wrap(err)
	}
	return err
}

// ResponseTime is a seller's mean time to answer questions, for the seller
// themself.
func (s *Service) ResponseTime(ctx context.Context, userID string) (contacts.ResponseTime, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return contacts.ResponseTime{}, errNoToken
	}
	id, err := contacts.ParseUserID(userID)
	if err != nil {
		return contacts.ResponseTime{}, err
	}
	if id != caller.UserID {
		return contacts.ResponseTime{}, contacts.ErrForbidden.Withf("only user %d may read their response time", id)
	}
	qs, err := s.questions.AnsweredOf(ctx, id)
	if err != nil {
		return contacts.ResponseTime{}, err
	}
	return contacts.ResponseTimes(id, qs), nil
}
