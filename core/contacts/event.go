package contacts

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feria/feria/core/kernel"
)

// Event is one contact. ID is an idempotency key: an event id is counted
// once however often it is sent. SellerID is the item's seller when the
// event is counted; the seller's figures are the sum over its items.
type Event struct {
	ID       string
	ItemID   string
	SellerID int64
	Kind     Kind
	Date     time.Time
}

// EventInput is an event as a client sends it, before validation.
type EventInput struct {
	ID     string `json:"id"`
	ItemID string `json:"item_id"`
	Type   string `json:"type"`
	Date   string `json:"date"`
}

// Check validates an event input; field prefixes the field names of the
// causes (e.g. "events[2]."), so that a batch error names the entry.
func (in EventInput) Check(field string) (Event, error) {
	bad := func(name, msg string) error {
		return ErrBadRequest.With(field+name+": "+msg).WithCause(field+name, msg)
	}
	if strings.TrimSpace(in.ID) == "" {
		return Event{}, bad("id", "id is required: a non-empty string")
	}
	if len(in.ID) > MaxEventIDLength {
		return Event{}, bad("id", fmt.Sprintf("id must be at most %d bytes", MaxEventIDLength))
	}
	// Questions asked through POST /questions are counted under these ids:
	// a client event taking one first would make that question a
	// "duplicate" and leave it uncounted.
	if strings.HasPrefix(in.ID, QuestionEventPrefix) {
		return Event{}, bad("id", "ids starting with "+quote(QuestionEventPrefix)+" are reserved for questions asked through POST /questions")
	}
	if in.ItemID == "" {
		return Event{}, bad("item_id", "item_id is required")
	}
	if kernel.SiteOf(in.ItemID) == "" {
		return Event{}, bad("item_id", "item_id "+quote(in.ItemID)+" cannot be decoded: a site id followed by digits, e.g. MLA1100")
	}
	k, err := ParseKind(in.Type)
	if err != nil {
		return Event{}, bad("type", "type must be question, phone_view or msgapp, got "+quote(in.Type))
	}
	d, err := ParseDate("date", in.Date)
	if err != nil {
		return Event{}, bad("date", kernel.MessageOf(err))
	}
	return Event{ID: in.ID, ItemID: in.ItemID, Kind: k, Date: d}, nil
}

func quote(s string) string { return `"` + s + `"` }

// Result is what an ingestion did: Accepted events were counted now,
// Duplicates had been counted before. Counted tells each event apart, in
// input order.
type Result struct {
	Accepted   int    `json:"accepted"`
	Duplicates int    `json:"duplicates"`
	Counted    []bool `json:"-"`
}

// Unanswered is the status of a question no one has answered yet.
const Unanswered = "UNANSWERED"

// MaxQuestionText bounds a question's text, in characters.
const MaxQuestionText = 2000

// QuestionEventID is the idempotency key of the contact event a question
// counts as, so that a question is counted once whatever retries happen.
func QuestionEventID(id int64) string { return QuestionEventPrefix + strconv.FormatInt(id, 10) }

// QuestionEventPrefix starts the event ids of questions; clients may not
// send ids starting with it.
const QuestionEventPrefix = "question-"

// AskedQuestion is a buyer's question on an item, in its seller's inbox.
type AskedQuestion struct {
	ID          int64
	ItemID      string
	SellerID    int64
	FromID      int64
	Text        string
	Status      string
	DateCreated time.Time
	// Answer is the seller's answer; nil while the question is unanswered.
	Answer *Answer
}

// Answer is a seller's answer to a question; its status is always
// AnswerActive (the marketplace's moderation is not modelled).
type Answer struct {
	Text        string
	Status      string
	DateCreated time.Time
}

// Answered is the status of a question its seller answered; AnswerActive
// the status of an answer shown to buyers.
const (
	Answered     = "ANSWERED"
	AnswerActive = "ACTIVE"
)

// MaxAnswerText bounds an answer's text in characters, as the marketplace
// bounds answers.
const MaxAnswerText = 2000

// Errors of answers.
var (
	ErrAlreadyAnswered = kernel.E(kernel.Invalid, "bad_request", "the question was already answered")
	ErrNotYourQuestion = kernel.E(kernel.Permission, "forbidden", "only the item's seller may answer its questions")
)

// CheckAnswerText validates an answer's text and returns it trimmed.
func CheckAnswerText(text string) (string, error) { return checkText(text, "answer", MaxAnswerText) }

// ErrForbidden is a caller acting on what is not theirs.
var ErrForbidden = kernel.E(kernel.Permission, "forbidden", "forbidden")

// ErrQuestionNotFound is GET /questions/{id} of an unknown question.
var ErrQuestionNotFound = kernel.E(kernel.NotExist, "not_found", "question not found")

// CheckQuestionText validates a question's text and returns it trimmed.
func CheckQuestionText(text string) (string, error) {
	return checkText(text, "question", MaxQuestionText)
}

// checkText is the rule of a question's and an answer's text: not blank,
// valid UTF-8 without NUL (the HTTP layer refuses these first; the rule
// holds for any caller), at most max characters once trimmed.
func checkText(text, what string, max int) (string, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return "", ErrBadRequest.With("text is required: the " + what + " must not be empty")
	}
	if !utf8.ValidString(t) || strings.ContainsRune(t, 0) {
		return "", ErrBadRequest.With("text must be valid UTF-8 without NUL characters")
	}
	if n := utf8.RuneCountInString(t); n > max {
		return "", ErrBadRequest.Withf("text is %d characters long; at most %d are allowed", n, max)
	}
	return t, nil
}

// Input is an event as a client sends it, of any kind of counter (a
// contact, a visit): it checks itself into an Event.
type Input interface {
	Check(field string) (Event, error)
}

// CheckBatch checks a batch of at most MaxBatch inputs, every one before
// any is counted, naming a bad entry by its index; it answers the events
// and their items' ids, sorted and each once.
func CheckBatch[T Input](in []T) ([]Event, []string, error) {
	if len(in) > MaxBatch {
		return nil, nil, ErrBadRequest.Withf("events holds %d events; at most %d are allowed per call", len(in), MaxBatch).
			WithCause("events", fmt.Sprintf("at most %d events per call", MaxBatch))
	}
	events := make([]Event, len(in))
	ids := make([]string, 0, len(in))
	for i, e := range in {
		ev, err := e.Check(fmt.Sprintf("events[%d].", i))
		if err != nil {
			return nil, nil, err
		}
		events[i] = ev
		ids = append(ids, ev.ItemID)
	}
	return events, slices.Compact(slices.Sorted(slices.Values(ids))), nil
}
