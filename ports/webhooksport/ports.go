// Package webhooksport declares the ports of the webhooks module, the
// marketplace's notifications to integrators' applications: what write
// paths call inside their transaction (Changes, the outbox of
// notifications), what HTTP calls (Service), what the worker calls (Jobs),
// and what the use cases need (Store, Sender).
package webhooksport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
)

// ErrNotFound is returned by stores for a missing notification.
var ErrNotFound = errors.New("not found")

// TaskDeliver is the job of one notification: its next attempt. Its
// payload is Task; the task id is the notification id.
const TaskDeliver = "webhooks:deliver"

// Task is the payload of TaskDeliver.
type Task struct {
	ID string `json:"id"`
}

// Changes is what every write path calls, inside the transaction of its
// change, for each resource of a topic it creates or may change: the
// notifications are written in that transaction (an outbox), or not at all.
type Changes interface {
	Changed(ctx context.Context, c webhooks.Change) error
}

// Trigger is the body of POST /sandbox/notifications.
type Trigger struct {
	AppID    int64
	Topic    string
	Resource string
	UserID   int64
}

// Service is what HTTP and the other modules call.
type Service interface {
	Changes
	// Trigger creates a notification as a change would (sandbox); the
	// application must exist and the topic be one of the table's.
	Trigger(ctx context.Context, t Trigger) (webhooks.Notification, error)
	// Notifications lists notifications with their deliveries, oldest
	// first; appID 0 and topic "" filter nothing.
	Notifications(ctx context.Context, appID int64, topic string) ([]webhooks.Notification, error)
	// MissedFeeds pages through an application's missed feeds for its
	// owner (the caller in ctx), oldest first; topic "" filters nothing.
	MissedFeeds(ctx context.Context, appID int64, topic string, page paging.Request) ([]webhooks.Notification, paging.Page, error)
	// Counts is what the metrics show, by topic.
	Counts(ctx context.Context) ([]webhooks.Count, error)
}

// Jobs is what the worker calls.
type Jobs interface {
	// Deliver makes the notification's next attempt, if one is due. It
	// answers *Later when another attempt is scheduled (or this one must
	// wait), nil when the notification needs nothing more.
	Deliver(ctx context.Context, id string) error
}

// Later is the answer of a job to run again after In; it is not a failure
// (the job queue counts no retry for it).
type Later struct {
	In     time.Duration
	Reason string
}

func (l *Later) Error() string { return fmt.Sprintf("again in %s: %s", l.In, l.Reason) }

// RetryIn is when the job runs again (the job server reads it).
func (l *Later) RetryIn() time.Duration { return l.In }

// Filter selects notifications; zero values select everything.
type Filter struct {
	AppID int64
	Topic string
}

// Store persists the notifications, their attempts and the last state of
// every resource a topic watches.
type Store interface {
	// SwapState records fingerprint as the state of the topic's resource:
	// created when there was none, changed when there was another. Two
	// concurrent swaps of one resource are serialised (a row lock).
	SwapState(ctx context.Context, topic, resource, fingerprint string) (created, changed bool, err error)
	// Add stores new notifications (state pending, no attempt).
	Add(ctx context.Context, ns []webhooks.Notification) error
	// Notification returns a notification with its deliveries, or
	// ErrNotFound.
	Notification(ctx context.Context, id string) (webhooks.Notification, error)
	// StartAttempt records that attempt d.Attempt began (its delivery not
	// done), with the request it posts, and sets attempts and sent; only
	// if the notification is still at attempt d.Attempt-1, that attempt is
	// done and the notification is not finished: ok false otherwise
	// (another worker got there first).
	StartAttempt(ctx context.Context, id string, d webhooks.Delivery, req webhooks.Request) (ok bool, err error)
	// FinishAttempt records the result of attempt d.Attempt and the
	// notification's new State, Due, MissedAt and Response (as in n), only
	// if that attempt is still its current, unfinished one.
	FinishAttempt(ctx context.Context, n webhooks.Notification, d webhooks.Delivery) (ok bool, err error)
	// List returns the newest limit notifications that match, oldest first.
	List(ctx context.Context, f Filter, limit int) ([]webhooks.Notification, error)
	// Missed returns a page of the missed notifications that match and
	// were missed after since, oldest first, and how many match.
	Missed(ctx context.Context, f Filter, since time.Time, page paging.Request) ([]webhooks.Notification, int, error)
	// Counts counts notifications created, delivered and missed, and
	// retries, by topic (topics with none left out), by topic name.
	Counts(ctx context.Context) ([]webhooks.Count, error)
}

// Sender posts a notification to a callback URL.
type Sender interface {
	// Post sends req (its URL, exactly its headers and its data) and
	// reports what came back within timeout. It never follows a redirect
	// and reads at most webhooks.MaxResponseBody of the answer.
	Post(ctx context.Context, req webhooks.Request, timeout time.Duration) webhooks.Exchange
}
