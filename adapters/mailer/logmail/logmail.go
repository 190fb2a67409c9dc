// Package logmail is the Mailer of the embedded mode: it writes each e-mail
// to the log instead of sending it, so that `make run` needs no mail server.
package logmail

import (
	"context"
	"log/slog"

	"github.com/feria/feria/core/notify"
	"github.com/feria/feria/ports/notifyport"
)

// Mailer logs mails.
type Mailer struct{ log *slog.Logger }

var _ notifyport.Mailer = (*Mailer)(nil)

// New returns a mailer logging to log.
func New(log *slog.Logger) *Mailer { return &Mailer{log: log} }

// Send logs the mail; it never fails.
func (m *Mailer) Send(ctx context.Context, mail notify.Mail) error {
	m.log.InfoContext(ctx, "mail (not sent: SMTP_URL is not set)", slog.String("id", mail.ID),
		slog.String("to", mail.To), slog.String("subject", mail.Subject), slog.String("text", mail.Text))
	return nil
}
