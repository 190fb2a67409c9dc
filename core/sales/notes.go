package sales

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feria/feria/core/kernel"
)

// MaxNoteLength bounds a note's text in characters; the marketplace shows
// none, so feria takes that of an order's other seller texts (300).
const MaxNoteLength = 300

// Errors of notes.
var (
	ErrInvalidNote  = kernel.E(kernel.Invalid, "bad_request", "invalid note")
	ErrNotYourNotes = kernel.E(kernel.Permission, "forbidden", "only the order's seller may read and write its notes")
	ErrNoteEmpty    = ErrInvalidNote.With("note is required").WithCause("note", "note must not be empty")
	ErrNoteTooLong  = ErrInvalidNote.With(fmt.Sprintf("note must be at most %d characters", MaxNoteLength)).WithCause("note", fmt.Sprintf("note must be at most %d characters", MaxNoteLength))
)

// Note is a seller's private note on one of its orders.
type Note struct {
	ID              string    `json:"id"`
	OrderID         int64     `json:"-"`
	Note            string    `json:"note"`
	DateCreated     time.Time `json:"date_created"`
	DateLastUpdated time.Time `json:"date_last_updated"`
}

// CheckNote applies the rules of a note's text.
func CheckNote(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return ErrNoteEmpty
	case utf8.RuneCountInString(text) > MaxNoteLength:
		return ErrNoteTooLong
	}
	return nil
}

// NoteAnswer is POST /orders/{id}/notes's answer: the note created.
type NoteAnswer struct {
	OrderID string `json:"order_id"`
	Note    Note   `json:"note"`
}

// NotesAnswer is one entry of GET /orders/{id}/notes's answer, a list of
// one: the order's notes, oldest first.
type NotesAnswer struct {
	OrderID string `json:"order_id"`
	Results []Note `json:"results"`
}
