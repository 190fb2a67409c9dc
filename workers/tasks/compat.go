package tasks

import (
	"encoding/json"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/compatport"
)

// Task types of the compatibilities module: a copy of one item's
// compatibilities onto another (bulk queue) and the moderation of a note.
const (
	TypeCompatCopy         = compatport.TaskCopy
	TypeCompatModerateNote = compatport.TaskModerateNote
)

// CompatCopy and CompatNote are their payloads.
type (
	CompatCopy = compatport.CopyJob
	CompatNote = compatport.NoteJob
)

// NewCompatCopyTask builds a copy task; the outbox relay builds the same
// task from the stored message.
func NewCompatCopyTask(j CompatCopy) (*asynq.Task, error) {
	payload, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeCompatCopy, payload), nil
}

// NewCompatNoteTask builds a note moderation task.
func NewCompatNoteTask(j CompatNote) (*asynq.Task, error) {
	payload, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(TypeCompatModerateNote, payload), nil
}
