// Package webhooks holds the marketplace's notifications to integrators'
// applications (docs/sandbox.md, "Applications and notifications"): the topic
// table, the body posted to a callback, the retry schedule, what counts as
// delivered, and the missed feeds. It is not core/notify, which is the
// buyer's own feed and e-mails: these go to the integrations' callback URLs.
package webhooks

import "slices"

// Topic is one row of docs/sandbox.md's topic table. Adding a topic is adding a
// row here and one call to Changes.Changed in the write path that changes
// its resource; the delivery pipeline is the same for every topic.
type Topic struct {
	Name string
	// Actions, when set, is the body's "actions" field (messages: created).
	Actions []string
	// CreatesOnly topics notify every creation and no change: their trigger
	// sends no state to compare (questions and messages are never edited).
	CreatesOnly bool
	// Initial, when HasInitial, is the state a resource is taken to have
	// before it exists: a shipment created without a driver changes no
	// assignment.
	Initial    any
	HasInitial bool
}

// The topics of docs/sandbox.md, in its table's order.
const (
	TopicItems          = "items"
	TopicQuestions      = "questions"
	TopicOrders         = "orders_v2"
	TopicMessages       = "messages"
	TopicShipments      = "shipments"
	TopicFlexHandshakes = "flex-handshakes"
)

// Topics is the topic table.
var Topics = []Topic{
	{Name: TopicItems},
	{Name: TopicQuestions, CreatesOnly: true},
	{Name: TopicOrders},
	{Name: TopicMessages, Actions: []string{"created"}, CreatesOnly: true},
	{Name: TopicShipments},
	{Name: TopicFlexHandshakes, Initial: nil, HasInitial: true}, // driver_id null
}

// LookupTopic returns the row of a topic name.
func LookupTopic(name string) (Topic, bool) {
	i := slices.IndexFunc(Topics, func(t Topic) bool { return t.Name == name })
	if i < 0 {
		return Topic{}, false
	}
	return Topics[i], true
}

// TopicNames lists the topic names in table order, for messages.
func TopicNames() []string {
	out := make([]string, len(Topics))
	for i, t := range Topics {
		out[i] = t.Name
	}
	return out
}
