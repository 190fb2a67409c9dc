package webhooks

import "time"

// MaxAttempts is how often a notification is tried: 8, the marketplace's
// rule, on every schedule.
const MaxAttempts = 8

// DefaultDelays is the default schedule: delay i runs from the end of
// attempt i to the start of attempt i+1, and the 7 delays add up to one
// hour (docs/decisions.md).
var DefaultDelays = []time.Duration{
	time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute,
	10 * time.Minute, 15 * time.Minute, 20 * time.Minute,
}
