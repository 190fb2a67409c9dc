// Package contactsport declares the ports of the contact statistics module:
// the Service HTTP and the sandbox call, and what its use cases need
// (Counters in Redis, ItemOwners and Questions in the database, beside
// kernel.Tx).
package contactsport

import (
	"context"
	"errors"
	"time"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/paging"
)

// TotalQuery asks for a count between two dates; every field is raw.
type TotalQuery struct {
	Kind     contacts.Kind
	DateFrom string
	DateTo   string
}

// WindowQuery asks for a trailing time window; every field is raw.
type WindowQuery struct {
	Kind   contacts.Kind
	Last   string
	Unit   string
	Ending string
	Order  string
}

// Service is the contact statistics module as its callers see it. Ids are
// raw path or query values: the service decodes them.
type Service interface {
	ItemTotal(ctx context.Context, itemID string, q TotalQuery) (contacts.Total, error)
	UserTotal(ctx context.Context, userID string, q TotalQuery) (contacts.Total, error)
	// ItemWindows answers one window per item, in the order given.
	ItemWindows(ctx context.Context, itemIDs []string, q WindowQuery) ([]contacts.Window, error)
	UserWindow(ctx context.Context, userID string, q WindowQuery) (contacts.Window, error)

	// Ingest counts a batch of events: all or none (an unknown item or a
	// bad field refuses the whole batch); an event id already counted is a
	// duplicate.
	Ingest(ctx context.Context, events []contacts.EventInput) (contacts.Result, error)
	// Prepare validates one event and resolves its seller without counting
	// it; Count counts prepared events.
	Prepare(ctx context.Context, in contacts.EventInput) (contacts.Event, error)
	Count(ctx context.Context, events []contacts.Event) (contacts.Result, error)
	// StoredEvent returns a counted event by id.
	StoredEvent(ctx context.Context, id string) (contacts.Event, error)

	// Ask stores the caller's question on an item and counts it.
	Ask(ctx context.Context, itemID, text string) (contacts.AskedQuestion, error)
	// Question is GET /questions/{id}, for the item's seller and the buyer
	// who asked (the caller in ctx).
	Question(ctx context.Context, id int64) (contacts.AskedQuestion, error)
	// Questions lists the caller's questions as a seller (of one item, or
	// of every item), newest first, optionally of one status.
	Questions(ctx context.Context, q QuestionSearch, p paging.Request) ([]contacts.AskedQuestion, paging.Page, error)
	// DeleteQuestion is DELETE /questions/{id}, by the item's seller.
	DeleteQuestion(ctx context.Context, id int64) error
	// ResponseTime is GET /users/{id}/questions/response_time, for the
	// user themself.
	ResponseTime(ctx context.Context, userID string) (contacts.ResponseTime, error)
	// AnswerQuestion is POST /answers, by the item's seller; it notifies
	// the questions topic.
	AnswerQuestion(ctx context.Context, questionID int64, text string) (contacts.AskedQuestion, error)

	// Reset forgets every counter.
	Reset(ctx context.Context) error
}

// Series asks for the counts of some buckets of one subject.
type Series struct {
	Kind    contacts.Kind
	Subject contacts.Subject
	Unit    contacts.Unit
	Starts  []time.Time
}

// Span asks for the exact number of a subject's events in [Range.From,
// Range.To), to the second and finer.
type Span struct {
	Kind    contacts.Kind
	Subject contacts.Subject
	Range   contacts.Range
}

// Query is everything one request reads from the counters.
type Query struct {
	Series []Series
	Spans  []Span
	// Known asks which of these subjects are marked known (MarkKnown).
	Known []contacts.Subject
}

// Answer answers a Query, in its order: the count of each bucket of each
// series, the total of each span, and whether each subject is known.
type Answer struct {
	Series [][]int64
	Spans  []int64
	Known  []bool
}

// Counters is the read model of contact counts (Redis).
type Counters interface {
	// Add counts events not counted before, in one round trip; an id seen
	// before is a duplicate. Each event must carry its SellerID.
	Add(ctx context.Context, events []contacts.Event) (contacts.Result, error)
	// Read answers a query in one round trip whatever the number of
	// series, buckets, spans and subjects.
	Read(ctx context.Context, q Query) (Answer, error)
	// MarkKnown records that the database knows these subjects (items and
	// users are deleted only by a sandbox reset, which resets the counters
	// too), so that a read need not ask the database again.
	MarkKnown(ctx context.Context, subjects []contacts.Subject) error
	// Event returns a counted event (without SellerID) or ErrNotFound.
	Event(ctx context.Context, id string) (contacts.Event, error)
	// Reset deletes every key of these counters and nothing else.
	Reset(ctx context.Context) error
}

// ItemOwners answers who sells an item and whether a user exists.
type ItemOwners interface {
	// Sellers returns the seller of each known item; unknown ids are
	// absent from the map.
	Sellers(ctx context.Context, itemIDs []string) (map[string]int64, error)
	UserExists(ctx context.Context, userID int64) (bool, error)
}

// Questions stores buyers' questions.
type Questions interface {
	// Add stores q, assigning its ID.
	Add(ctx context.Context, q contacts.AskedQuestion) (contacts.AskedQuestion, error)
	// Question returns a question or ErrNotFound.
	Question(ctx context.Context, id int64) (contacts.AskedQuestion, error)
	// Search returns a page of a seller's questions matching f, newest
	// first, and their total.
	Search(ctx context.Context, f contacts.QuestionFilter, p paging.Request) ([]contacts.AskedQuestion, int, error)
	// Delete removes a question; ErrNotFound for an unknown id.
	Delete(ctx context.Context, id int64) error
	// AnsweredOf returns every answered question of a seller.
	AnsweredOf(ctx context.Context, sellerID int64) ([]contacts.AskedQuestion, error)
	// Answer sets the answer of an unanswered question and its status
	// ANSWERED in one write; ErrAnswered when it already had one (of two
	// answers at once, one wins), ErrNotFound for an unknown id.
	Answer(ctx context.Context, id int64, a contacts.Answer) error
}

// QuestionSearch is GET /questions/search's query as sent: Item and/or
// SellerID, and Status, each empty when absent.
type QuestionSearch struct {
	Item, SellerID, Status string
}

// ErrAnswered is a second answer to one question.
var ErrAnswered = errors.New("contacts: already answered")

// ErrNotFound is returned by adapters for a missing record.
var ErrNotFound = errors.New("contacts: not found")
