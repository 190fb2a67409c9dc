package tasks

import (
	"encoding/json"

	"github.com/hibiken/asynq"

	"github.com/feria/feria/ports/fiscalport"
)

// Task types of the fiscal module: an uploaded invoice and a billing-data
// request, each told to the buyer (feed and e-mail). The use cases write
// them to the outbox under these names.
const (
	TypeFiscalDocumentUploaded = fiscalport.TaskDocumentUploaded
	TypeFiscalBillingRequested = fiscalport.TaskBillingRequested
)

// FiscalNotice is the payload of both fiscal task types.
type FiscalNotice = fiscalport.Notice

// NewFiscalNoticeTask builds a task of one of the fiscal types; the outbox
// relay builds the same task from the stored message.
func NewFiscalNoticeTask(taskType string, n FiscalNotice) (*asynq.Task, error) {
	payload, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	return asynq.NewTask(taskType, payload), nil
}
