// Package notify holds what feria tells a buyer about: the notifications of
// the buyer's feed and the e-mail that carries each of them.
package notify

import (
	"fmt"
	"strconv"
	"time"
)

// Kinds of notification.
const (
	KindFiscalDocument = "fiscal_document_uploaded"
	KindBillingRequest = "billing_info_request"
)

// Notification is one entry of a user's feed. Its ID is the id of the job
// (outbox message) that created it, which makes a retried job find the
// notification it already stored instead of making a second.
type Notification struct {
	ID          string     `json:"id"`
	UserID      int64      `json:"user_id"`
	Kind        string     `json:"kind"`
	PackID      int64      `json:"pack_id"`
	Title       string     `json:"title"`
	Text        string     `json:"text"`
	DateCreated time.Time  `json:"date_created"`
	MailedAt    *time.Time `json:"-"`
}

// Mail is one e-mail to send.
type Mail struct {
	// ID is stable for one notification, sent as the Message-ID so that a
	// mail sent twice after a crash is recognisable as the same mail.
	ID      string
	To      string
	Subject string
	Text    string
}

// MailDomain is the domain of the addresses feria derives for its users:
// the sandbox's users carry no e-mail address (docs/decisions.md).
const MailDomain = "users.feria.invalid"

// AddressOf returns the e-mail address of a user.
func AddressOf(userID int64) string {
	return "user-" + strconv.FormatInt(userID, 10) + "@" + MailDomain
}

// MailOf returns the e-mail that carries a notification.
func MailOf(n Notification) Mail {
	return Mail{ID: n.ID, To: AddressOf(n.UserID), Subject: n.Title,
		Text: fmt.Sprintf("%s\n\nPack %d.\n", n.Text, n.PackID)}
}
