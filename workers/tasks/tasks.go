// Package tasks names the job types of feria and their queues. Payloads and
// New...Task constructors of each module live beside these names.
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
