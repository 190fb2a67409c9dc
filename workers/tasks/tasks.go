// Package tasks names feria's job queues. Task type names and payloads live
// once, in the port of the module whose use cases write them to the outbox
// (compatport.TaskCopy, fiscalport.TaskDocumentUploaded); the module map
// (app/modules.go) says which queue each type goes to.
package tasks

// Queues and their weights: copies are slow and must not starve the
// notifications buyers wait for.
var Queues = map[string]int{
	QueueDefault: 6,
	QueueBulk:    3,
}

const (
	QueueDefault = "default"
	QueueBulk    = "bulk"
)
