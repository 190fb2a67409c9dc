// Package notifyport declares how buyers are told things: the reading of a
// feed (Service), its storage (Notifications) and the Mailer that e-mails it.
package notifyport

import (
	"context"
	"time"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/core/paging"
)

// Service is what HTTP calls.
type Service interface {
	// Notifications pages through the caller's notification feed.
	Notifications(ctx context.Context, page paging.Request) ([]notify.Notification, paging.Page, error)
}

// Mailer sends e-mail. A refused or failed delivery is an error; the job
// that asked is retried.
type Mailer interface {
	Send(ctx context.Context, m notify.Mail) error
}

// Notifications stores users' feeds.
type Notifications interface {
	// Add stores n unless a notification with its id exists; inserted
	// reports which. Either way the stored notification is returned.
	Add(ctx context.Context, n notify.Notification) (stored notify.Notification, inserted bool, err error)
	// MarkMailed records that the notification's e-mail was sent.
	MarkMailed(ctx context.Context, id string, at time.Time) error
	// ByUser returns one page of a user's feed, newest first, and its total.
	ByUser(ctx context.Context, userID int64, page paging.Request) ([]notify.Notification, int, error)
}

// ErrMailUnavailable wraps a mail server that cannot be reached.
var ErrMailUnavailable = kernel.E(kernel.Unavailable, "mail_unavailable", "mail server unavailable")
