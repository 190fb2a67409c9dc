package contactssvc

import (
	"context"
	"errors"
	"strconv"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/contactsport"
)

// AnswerQuestion answers a question by its item's seller: its answer and
// status ANSWERED are one write, told to the questions topic in the same
// transaction. An unknown question is 404 before anybody's permission is
// read, and the permission before the text.
func (s *Service) AnswerQuestion(ctx context.Context, questionID int64, text string) (contacts.AskedQuestion, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return contacts.AskedQuestion{}, kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
	}
	if questionID <= 0 {
		return contacts.AskedQuestion{}, contacts.ErrBadRequest.With("question_id must be a positive integer").WithCause("question_id", "question_id must be a positive integer")
	}
	q, err := s.questions.Question(ctx, questionID)
	if errors.Is(err, contactsport.ErrNotFound) {
		return q, contacts.ErrQuestionNotFound.Wrap(err)
	}
	if err != nil {
		return q, err
	}
	if caller.UserID != q.SellerID {
		return contacts.AskedQuestion{}, contacts.ErrNotYourQuestion.Withf("only the seller of item %s may answer question %d", q.ItemID, questionID)
	}
	t, err := contacts.CheckAnswerText(text)
	if err != nil {
		return contacts.AskedQuestion{}, err
	}
	if q.Answer != nil {
		return contacts.AskedQuestion{}, contacts.ErrAlreadyAnswered.Withf("question %d was already answered", questionID)
	}
	a := contacts.Answer{Text: t, Status: contacts.AnswerActive, DateCreated: s.clock.Now().UTC()}
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if err := s.questions.Answer(ctx, questionID, a); err != nil {
			return err
		}
		q.Answer, q.Status = &a, contacts.Answered
		return s.changes.Changed(ctx, webhooks.Change{Topic: webhooks.TopicQuestions,
			Resource: "/questions/" + strconv.FormatInt(questionID, 10), UserID: q.SellerID, State: q})
	})
	if errors.Is(err, contactsport.ErrAnswered) {
		return contacts.AskedQuestion{}, contacts.ErrAlreadyAnswered.Withf("question %d was already answered", questionID)
	}
	if err != nil {
		return contacts.AskedQuestion{}, err
	}
	return q, nil
}
